package v1

import (
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// MicroServiceDeploySpec defines the desired state of MicroServiceDeploy.
type MicroServiceDeploySpec struct {
	// msName is the microservice's name: it names the Service and ServiceAccount, and labels the pods app=<msName>.
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=63
	// +kubebuilder:validation:Pattern=`^[a-z0-9]([-a-z0-9]*[a-z0-9])?$`
	MsName string `json:"msName"`

	// fullName is the name of this instance of the microservice: it names the Deployment, ConfigMap and HPA.
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=253
	// +kubebuilder:validation:Pattern=`^[a-z0-9]([-a-z0-9]*[a-z0-9])?$`
	FullName string `json:"fullName"`

	// version of this instance, e.g. "1.0"; it names the host log directory /data0/logs/<msName>/<version>.
	// +kubebuilder:validation:MinLength=1
	Version string `json:"version"`

	// path is the major version of the instance, part of its domain name at the gateway.
	// +optional
	Path string `json:"path,omitempty"`

	// image is the container image of the microservice.
	// +kubebuilder:validation:MinLength=1
	Image string `json:"image"`

	// replicas is the number of pods while the instance is neither idle nor autoscaled.
	// +kubebuilder:validation:Minimum=0
	// +kubebuilder:default=1
	// +optional
	Replicas int32 `json:"replicas,omitempty"`

	// autoscaling hands the replica count to an HPA (1 to 10 pods, 81% CPU).
	// +optional
	Autoscaling bool `json:"autoscaling,omitempty"`

	// needAuth says whether callers need tenant authentication; the gateway reads it from the Service
	// annotation app.ops.my.domain/need-auth.
	// +optional
	NeedAuth bool `json:"needAuth,omitempty"`

	// config is the runtime configuration, mounted as /home/admin/conf/ms.properties.
	// +optional
	Config string `json:"config,omitempty"`

	// creationTimestamp is when the platform created this instance (milliseconds since the epoch, as a string).
	// It is the pods' app.ops.my.domain/create-at annotation until a restart is requested.
	// +optional
	CreationTimestamp string `json:"creationTimestamp,omitempty"`

	// resourceRequirements are the container's requests and limits.
	// +optional
	ResourceRequirements *corev1.ResourceRequirements `json:"resourceRequirements,omitempty"`

	// idle scales the instance to zero pods (and removes its HPA) without deleting anything else.
	// +optional
	Idle bool `json:"idle,omitempty"`
}

// MicroServiceDeployStatus defines the observed state of MicroServiceDeploy.
type MicroServiceDeployStatus struct {
	// conditions represent the current state of the MicroServiceDeploy resource.
	// "Ready" is True once every child object has been applied for observedGeneration.
	// +listType=map
	// +listMapKey=type
	// +optional
	Conditions []metav1.Condition `json:"conditions,omitempty"`

	// observedGeneration is the metadata.generation the conditions describe.
	// +optional
	ObservedGeneration *int64 `json:"observedGeneration,omitempty"`
}

// MicroServiceDeploy is the Schema for the microservicedeploys API.
// +kubebuilder:object:root=true
// +kubebuilder:subresource:status
// +kubebuilder:resource:shortName=msd
// +kubebuilder:printcolumn:name="Image",type=string,JSONPath=`.spec.image`
// +kubebuilder:printcolumn:name="Replicas",type=integer,JSONPath=`.spec.replicas`
// +kubebuilder:printcolumn:name="Idle",type=boolean,JSONPath=`.spec.idle`
// +kubebuilder:printcolumn:name="Ready",type=string,JSONPath=`.status.conditions[?(@.type=="Ready")].status`
// +kubebuilder:printcolumn:name="Age",type=date,JSONPath=`.metadata.creationTimestamp`
type MicroServiceDeploy struct {
	metav1.TypeMeta `json:",inline"`

	// metadata is a standard object metadata
	// +optional
	metav1.ObjectMeta `json:"metadata,omitempty,omitzero"`

	// spec defines the desired state of MicroServiceDeploy
	// +required
	Spec MicroServiceDeploySpec `json:"spec"`

	// status defines the observed state of MicroServiceDeploy
	// +optional
	Status MicroServiceDeployStatus `json:"status,omitempty,omitzero"`
}
