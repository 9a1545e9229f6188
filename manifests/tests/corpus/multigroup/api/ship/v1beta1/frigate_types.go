package v1beta1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// FrigateSpec defines the desired state of Frigate.
type FrigateSpec struct {
	// Capacity of the frigate in v1beta1.
	Capacity int32 `json:"capacity"`
}

// FrigateStatus defines the observed state of Frigate.
type FrigateStatus struct {
	// Docked counts what is inside.
	// +optional
	Docked int32 `json:"docked,omitempty"`
}

// Frigate is the Schema for the frigates API.
// +kubebuilder:object:root=true
// +kubebuilder:subresource:status
type Frigate struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec   FrigateSpec   `json:"spec,omitempty"`
	Status FrigateStatus `json:"status,omitempty"`
}
