package v1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// ShelfSpec exercises array validation and items: markers.
type ShelfSpec struct {
	// Books on the shelf.
	// +kubebuilder:validation:MinItems=1
	// +kubebuilder:validation:MaxItems=10
	// +kubebuilder:validation:items:MinLength=1
	// +kubebuilder:validation:items:MaxLength=40
	Books []string `json:"books"`
	// Tags are unique and lower case.
	// +kubebuilder:validation:UniqueItems=false
	// +kubebuilder:validation:items:Pattern=`^[a-z]+$`
	// +optional
	Tags []string `json:"tags,omitempty"`
	// Colors from a fixed set.
	// +kubebuilder:validation:items:Enum=red;green;blue
	// +optional
	Colors []string `json:"colors,omitempty"`
	// Sizes are bounded.
	// +kubebuilder:validation:items:Minimum=1
	// +kubebuilder:validation:items:Maximum=9
	// +kubebuilder:validation:items:MultipleOf=1
	// +optional
	Sizes []int32 `json:"sizes,omitempty"`
	// Hosts are validated by CEL one by one.
	// +kubebuilder:validation:items:XValidation:rule="self.endsWith('.example.com')",message="must be in example.com"
	// +kubebuilder:validation:items:Format=hostname
	// +optional
	Hosts []string `json:"hosts,omitempty"`
	// Matrix is a list of lists.
	// +optional
	Matrix [][]int64 `json:"matrix,omitempty"`
	// Slots are checked as a whole.
	// +kubebuilder:validation:XValidation:rule="self.size() <= 3",message="at most three slots"
	// +optional
	Slots []Slot `json:"slots,omitempty"`
}

// Slot is one place on the shelf.
type Slot struct {
	// Index of the slot.
	Index int32 `json:"index"`
	// Label printed on the slot.
	// +optional
	Label string `json:"label,omitempty"`
}

// Shelf is the Schema for the shelves API.
// +kubebuilder:object:root=true
type Shelf struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec ShelfSpec `json:"spec,omitempty"`
}
