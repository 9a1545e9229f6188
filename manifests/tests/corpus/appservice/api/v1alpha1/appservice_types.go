package v1alpha1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// AppServiceSpec defines the desired state of AppService
type AppServiceSpec struct {
	// Replicas is the number of pods to run.
	Replicas int32 `json:"replicas"`
}

// AppServiceStatus defines the observed state of AppService
type AppServiceStatus struct {
	// AvailableReplicas is the number of ready pods.
	AvailableReplicas int32 `json:"availableReplicas"`
}

// AppService is the Schema for the appservices API
// +kubebuilder:object:root=true
// +kubebuilder:subresource:status
type AppService struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec   AppServiceSpec   `json:"spec,omitempty"`
	Status AppServiceStatus `json:"status,omitempty"`
}
