package v1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Severity uses kebab-case values.
// +kubebuilder:validation:Enum=very-low;low;very-high
type Severity string

// Code uses screaming snake case values.
// +kubebuilder:validation:Enum=NOT_FOUND;ALREADY_EXISTS;OK
type Code string

// SnakeBlock has snake_case JSON names.
type SnakeBlock struct {
	// First field.
	FirstField string `json:"first_field"`
	// Second field.
	// +optional
	SecondField int32 `json:"second_field,omitempty"`
}

// Empty has no fields at all.
type Empty struct{}

// RecordSpec mixes naming styles.
type RecordSpec struct {
	// Severity of the record.
	Severity Severity `json:"severity"`
	// Code of the record.
	// +optional
	Code Code `json:"code,omitempty"`
	// Snake is a snake_case block.
	// +optional
	Snake *SnakeBlock `json:"snake,omitempty"`
	// URL keeps its spelling through an explicit rename.
	// +optional
	URL string `json:"URL,omitempty"`
	// Marker is empty.
	// +optional
	Marker *Empty `json:"marker,omitempty"`
	// Doc comes from a block doc comment.
	// +optional
	Doc string `json:"doc,omitempty"`
	// Attr comes from a doc attribute.
	// +optional
	Attr string `json:"attr,omitempty"`
}

// +kubebuilder:object:root=true
type Record struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec RecordSpec `json:"spec,omitempty"`
}
