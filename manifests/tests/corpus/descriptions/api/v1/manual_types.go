package v1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// ManualSpec documents its fields in many styles.
//
// It has a second paragraph.
type ManualSpec struct {
	// Chapters has a multi-line description
	// that wraps over lines,
	//
	// with a blank line between paragraphs.
	//
	//
	// Two blank lines collapse into one.
	Chapters int32 `json:"chapters"`
	// Index lists:
	//   - indented bullet one
	//   - indented bullet two
	//
	// and "quotes", 'apostrophes', colons: here, #hashes and trailing spaces.   
	// +optional
	Index []string `json:"index,omitempty"`
	// Example shows a code block that keeps a TODO line:
	// ```yaml
	// key: value
	// TODO inside code stays
	// ```
	// TODO outside code is dropped
	// After the code block.
	// +optional
	Example string `json:"example,omitempty"`
	// Cut keeps text before the separator.
	// ---
	// Everything after three dashes is dropped.
	// +optional
	Cut string `json:"cut,omitempty"`
	//Tight has no space after the slashes.
	// +optional
	Tight string `json:"tight,omitempty"`
	// Unicode: naïve café — “smart quotes” → arrows.
	// +optional
	Unicode string `json:"unicode,omitempty"`
	// Long line: Lorem ipsum dolor sit amet, consectetur adipiscing elit, sed do eiusmod tempor incididunt ut labore et dolore magna aliqua. Ut enim ad minim veniam.
	// +optional
	Long string `json:"long,omitempty"`
	// +kubebuilder:validation:MinLength=1
	// Markers may come first; the doc still reads as the description.
	// +optional
	MarkerFirst string `json:"markerFirst,omitempty"`
}

// Manual is the Schema for the manuals API.
//
// TODO: a type-level TODO is dropped.
// It documents the docs.
// +kubebuilder:object:root=true
type Manual struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec ManualSpec `json:"spec,omitempty"`
}
