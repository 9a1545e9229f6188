package v1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// MemoSpec has docs with odd spacing.
type MemoSpec struct {
	//
	// Title has blank doc lines around it.
	//
	//    +kubebuilder:validation:MinLength=1
	Title string `json:"title"`
	//	Body starts with a tab.
	//	Second line too.
	// +optional
	Body string `json:"body,omitempty"`
	//     Indented by five spaces.
	// Then not indented.
	// +optional
	Indented string `json:"indented,omitempty"`
	// +optional
	//
	// Marker first, then a blank line, then the doc.
	After string `json:"after,omitempty"`
}

// Memo is the Schema for the memos API.
// +kubebuilder:object:root=true
type Memo struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec MemoSpec `json:"spec,omitempty"`
}
