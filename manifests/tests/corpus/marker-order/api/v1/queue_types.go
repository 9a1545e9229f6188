package v1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Slot is keyed by name.
type Slot struct {
	// Name of the slot.
	Name string `json:"name"`
}

// QueueSpec writes markers in an order other than the one they apply in.
// +kubebuilder:validation:ExactlyOneOf=fifo;lifo
// +kubebuilder:validation:XValidation:rule="!has(self.fifo) || self.fifo",message="fifo is true when set"
type QueueSpec struct {
	// Depth is a string on the Go side that the Type marker makes an integer before Maximum applies.
	// +kubebuilder:validation:Maximum=10
	// +kubebuilder:validation:Type=integer
	// +optional
	Depth string `json:"depth,omitempty"`
	// Slots names its key before its list type.
	// +listMapKey=name
	// +listType=map
	// +optional
	Slots []Slot `json:"slots,omitempty"`
	// Fifo serves first in, first out.
	// +optional
	Fifo *bool `json:"fifo,omitempty"`
	// Lifo serves last in, first out.
	// +optional
	Lifo *bool `json:"lifo,omitempty"`
}

// Queue is the Schema for the queues API.
// +kubebuilder:object:root=true
type Queue struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec QueueSpec `json:"spec,omitempty"`
}
