package v1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Identity is inlined; its type-level rule joins the parent's.
// +kubebuilder:validation:XValidation:rule="self.id.size() > 0",message="id must not be empty"
type Identity struct {
	// ID of the object.
	ID string `json:"id"`
	// Revision of the object.
	// +optional
	Revision int64 `json:"revision,omitempty"`
}

// Placement is inlined too.
type Placement struct {
	// Region to run in.
	Region string `json:"region"`
	// Zones within the region.
	// +listType=set
	// +optional
	Zones []string `json:"zones,omitempty"`
}

// Level of a setting.
// +kubebuilder:validation:Enum=low;high
type Level string

// Limits is documented on the type.
type Limits struct {
	// Max value.
	Max int32 `json:"max"`
}

// CompositeSpec inlines two structs and keeps its own fields.
// +kubebuilder:validation:XValidation:rule="self.region != 'forbidden'",message="region is forbidden"
type CompositeSpec struct {
	Identity  `json:",inline"`
	Placement `json:",inline"`

	// Levels map names to levels.
	// +optional
	Levels map[string]Level `json:"levels,omitempty"`
	// Data is raw bytes, base64 in JSON.
	// +optional
	Data []byte `json:"data,omitempty"`
	// Limits of the field, with the field's own doc.
	// +optional
	Limits *Limits `json:"limits,omitempty"`
	// +optional
	SoftLimits *Limits `json:"softLimits,omitempty"`
	// Chain of limits.
	// +optional
	Chain []*Limits `json:"chain,omitempty"`
}

// Composite is the Schema for the composites API.
// +kubebuilder:object:root=true
type Composite struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec CompositeSpec `json:"spec,omitempty"`
}
