package v1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// DemoMicroServiceSpec defines the desired state of DemoMicroService
type DemoMicroServiceSpec struct {
	// image is the container image the micro service runs.
	Image string `json:"image"`
}

// DemoMicroServiceStatus defines the observed state of DemoMicroService.
type DemoMicroServiceStatus struct {
	// conditions represent the current state of the DemoMicroService resource.
	// Each condition has a unique type and reflects the status of a specific aspect of the resource.
	//
	// Standard condition types include:
	// - "Available": the resource is fully functional
	// - "Progressing": the resource is being created or updated
	// - "Degraded": the resource failed to reach or maintain its desired state
	//
	// The status of each condition is one of True, False, or Unknown.
	// +listType=map
	// +listMapKey=type
	// +optional
	Conditions []metav1.Condition `json:"conditions,omitempty"`
}

// +kubebuilder:object:root=true
// +kubebuilder:subresource:status
// +kubebuilder:resource:shortName=dms

// DemoMicroService is the Schema for the demomicroservices API
type DemoMicroService struct {
	metav1.TypeMeta `json:",inline"`

	// metadata is a standard object metadata
	// +optional
	metav1.ObjectMeta `json:"metadata,omitempty,omitzero"`

	// spec defines the desired state of DemoMicroService
	// +required
	Spec DemoMicroServiceSpec `json:"spec"`

	// status defines the observed state of DemoMicroService
	// +optional
	Status DemoMicroServiceStatus `json:"status,omitempty,omitzero"`
}
