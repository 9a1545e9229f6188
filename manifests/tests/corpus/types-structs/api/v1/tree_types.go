package v1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Common fields are inlined into several structs.
type Common struct {
	// Owner of the object.
	Owner string `json:"owner"`
	// Team of the owner.
	// +optional
	Team string `json:"team,omitempty"`
}

// Leaf is the innermost struct.
type Leaf struct {
	// Value of the leaf.
	Value string `json:"value"`
}

// Branch nests a leaf.
type Branch struct {
	// Leaf of the branch.
	Leaf Leaf `json:"leaf"`
	// Spare leaf, boxed.
	// +optional
	Spare *Leaf `json:"spare,omitempty"`
	// Leaves of the branch.
	// +optional
	Leaves []Leaf `json:"leaves,omitempty"`
}

// Name is an alias of string.
type Name string

// Names is an alias of a list.
type Names []Name

// TreeSpec uses local structs, aliases, inlining and skipped fields.
type TreeSpec struct {
	Common `json:",inline"`

	// Trunk of the tree.
	Trunk Branch `json:"trunk"`
	// Crown is optional.
	// +optional
	Crown *Branch `json:"crown,omitempty"`
	// Species name.
	Species Name `json:"species"`
	// Aliases of the tree.
	// +optional
	Aliases Names `json:"aliases,omitempty"`
	// Internal state is not part of the API.
	Internal string `json:"-"`
	// Undocumented leaf.
	// +optional
	Undocumented Leaf `json:"undocumented,omitempty"`
}

// TreeStatus has a field with no documentation at all.
type TreeStatus struct {
	Height int32 `json:"height,omitempty"`
}

// Tree is the Schema for the trees API.
// +kubebuilder:object:root=true
// +kubebuilder:subresource:status
type Tree struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// Spec has a doc comment of its own.
	Spec   TreeSpec   `json:"spec,omitempty"`
	Status TreeStatus `json:"status,omitempty"`
}
