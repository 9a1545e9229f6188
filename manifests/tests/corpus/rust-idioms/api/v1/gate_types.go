package v1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Name is a validated name.
// +kubebuilder:validation:MaxLength=20
type Name string

// Port is a port number.
// +kubebuilder:validation:Minimum=1
type Port int32

// Rule is shared with v2.
type Rule struct {
	// Type of the rule.
	Type string `json:"type"`
	// Ref names another rule.
	// +optional
	Ref Name `json:"ref,omitempty"`
}

// PlainBlock keeps Rust field names as they are.
type PlainBlock struct {
	// snake field.
	SnakeField string `json:"snake_field"`
	// other field.
	// +optional
	OtherField int32 `json:"other_field,omitempty"`
}

// GateSpec uses Rust idioms on the Rust side.
type GateSpec struct {
	// Type is a keyword in Rust.
	Type string `json:"type"`
	// Name is a newtype.
	Name Name `json:"name"`
	// Port is a transparent wrapper.
	// +optional
	Port Port `json:"port,omitempty"`
	// Rules of the gate.
	// +optional
	Rules []Rule `json:"rules,omitempty"`
	// Plain block.
	// +optional
	Plain *PlainBlock `json:"plain,omitempty"`
}

// Gate is the Schema for the gates API.
// +kubebuilder:object:root=true
type Gate struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec GateSpec `json:"spec,omitempty"`
}
