package v1

import (
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// MicroServiceDeploySpec defines the desired state of MicroServiceDeploy
type MicroServiceDeploySpec struct {
	// MsName is the short name of the micro service.
	MsName string `json:"msName"`
	// FullName is the fully qualified name of the micro service.
	FullName string `json:"fullName"`
	// Version of the micro service to deploy.
	Version string `json:"version"`
	// Path the service is exposed under.
	Path string `json:"path"`
	// Image is the container image.
	Image string `json:"image"`
	// Replicas is the desired number of pods.
	// +kubebuilder:validation:Minimum=0
	// +kubebuilder:default=1
	// +optional
	Replicas int32 `json:"replicas,omitempty"`
	// Autoscaling enables the horizontal pod autoscaler.
	// +optional
	Autoscaling bool `json:"autoscaling,omitempty"`
	// NeedAuth puts the service behind the auth gateway.
	// +optional
	NeedAuth bool `json:"needAuth,omitempty"`
	// Config is passed to the service as environment variables.
	// +optional
	Config map[string]string `json:"config,omitempty"`
	// CreationTimestamp records when the deployment was requested.
	// +optional
	CreationTimestamp metav1.Time `json:"creationTimestamp,omitempty"`
	// ResourceRequirements of the service container.
	// +optional
	ResourceRequirements corev1.ResourceRequirements `json:"resourceRequirements,omitempty"`
	// Idle scales the service to zero while true.
	// +optional
	Idle bool `json:"idle,omitempty"`
}

// MicroServiceDeployStatus defines the observed state of MicroServiceDeploy
type MicroServiceDeployStatus struct {
	// Conditions of the deployment.
	// +listType=map
	// +listMapKey=type
	// +optional
	Conditions []metav1.Condition `json:"conditions,omitempty"`
}

// MicroServiceDeploy is the Schema for the microservicedeploys API
// +kubebuilder:object:root=true
// +kubebuilder:subresource:status
type MicroServiceDeploy struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec   MicroServiceDeploySpec   `json:"spec,omitempty"`
	Status MicroServiceDeployStatus `json:"status,omitempty"`
}
