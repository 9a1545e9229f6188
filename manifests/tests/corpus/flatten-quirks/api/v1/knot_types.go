package v1

import (
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// BaseName is a bounded name.
// +kubebuilder:validation:MaxLength=63
// +kubebuilder:validation:Pattern=`^[a-z]`
type BaseName string

// ShortName narrows BaseName.
// +kubebuilder:validation:MaxLength=8
type ShortName BaseName

// Color is an enum type.
// +kubebuilder:validation:Enum=Red;Amber;Green
type Color string

// Span is validated by its type.
// +kubebuilder:validation:XValidation:rule="self.from <= self.to",message="from after to"
type Span struct {
	// From index.
	From int32 `json:"from"`
	// To index.
	To int32 `json:"to"`
}

// Stamp aliases the Kubernetes time.
type Stamp metav1.Time

// Size aliases a quantity.
// +kubebuilder:validation:XIntOrString
type Size = resource.Quantity

// KnotSpec stacks type-level and field-level markers.
type KnotSpec struct {
	// Short is an alias of an alias, each with markers.
	Short ShortName `json:"short"`
	// Base has a field bound tighter than its type's.
	// +kubebuilder:validation:MaxLength=10
	// +optional
	Base BaseName `json:"base,omitempty"`
	// Color has a field enum; the type's enum wins when flattening.
	// +kubebuilder:validation:Enum=Red;Amber
	// +optional
	Color Color `json:"color,omitempty"`
	// Span has rules on the field and on its type.
	// +kubebuilder:validation:XValidation:rule="self.to - self.from < 100",message="span too long"
	// +optional
	Span *Span `json:"span,omitempty"`
	// Seen is an aliased timestamp.
	// +optional
	Seen *Stamp `json:"seen,omitempty"`
	// Size is an aliased quantity.
	// +optional
	Size *Size `json:"size,omitempty"`
	// Spans is a list of spans with an items rule.
	// +kubebuilder:validation:items:XValidation:rule="self.from >= 0",message="negative from"
	// +optional
	Spans []Span `json:"spans,omitempty"`
}

// Knot is the Schema for the knots API.
// +kubebuilder:object:root=true
type Knot struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec KnotSpec `json:"spec,omitempty"`
}
