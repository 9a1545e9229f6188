package v1beta1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// HarborSpec defines the desired state of Harbor.
type HarborSpec struct {
	// Capacity of the harbor in v1beta1.
	Capacity int32 `json:"capacity"`
}

// HarborStatus defines the observed state of Harbor.
type HarborStatus struct {
	// Docked counts what is inside.
	// +optional
	Docked int32 `json:"docked,omitempty"`
}

// Harbor is the Schema for the harbors API.
// +kubebuilder:object:root=true
// +kubebuilder:subresource:status
type Harbor struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec   HarborSpec   `json:"spec,omitempty"`
	Status HarborStatus `json:"status,omitempty"`
}
