package v1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Item is stored in maps and lists.
type Item struct {
	// Name of the item.
	Name string `json:"name"`
	// Count of the item.
	// +optional
	Count int32 `json:"count,omitempty"`
}

// BagSpec maps Vec and map shapes.
type BagSpec struct {
	// Words is a list of strings.
	Words []string `json:"words"`
	// Numbers is a list of int64.
	// +optional
	Numbers []int64 `json:"numbers,omitempty"`
	// Items is a list of structs.
	// +optional
	Items []Item `json:"items,omitempty"`
	// ItemPtrs is a list of optional structs.
	// +optional
	ItemPtrs []*Item `json:"itemPtrs,omitempty"`
	// Labels is a string map.
	// +optional
	Labels map[string]string `json:"labels,omitempty"`
	// Scores maps to int32.
	// +optional
	Scores map[string]int32 `json:"scores,omitempty"`
	// Groups maps to lists.
	// +optional
	Groups map[string][]string `json:"groups,omitempty"`
	// Index maps to structs.
	// +optional
	Index map[string]Item `json:"index,omitempty"`
	// Nested maps to maps.
	// +optional
	Nested map[string]map[string]bool `json:"nested,omitempty"`
	// Flags maps to booleans.
	// +optional
	Flags map[string]bool `json:"flags,omitempty"`
	// Grid is a list of lists of strings.
	// +optional
	Grid [][]string `json:"grid,omitempty"`
	// Weights maps to floats.
	// +optional
	Weights map[string]float64 `json:"weights,omitempty"`
}

// Bag is the Schema for the bags API.
// +kubebuilder:object:root=true
type Bag struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec BagSpec `json:"spec,omitempty"`
}
