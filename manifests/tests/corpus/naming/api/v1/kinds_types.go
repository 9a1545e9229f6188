package v1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// DNSRecord has a plural that follows English rules.
// +kubebuilder:object:root=true
type DNSRecord struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// Note about the object.
	// +optional
	Note string `json:"note,omitempty"`
}

// Address has a plural that follows English rules.
// +kubebuilder:object:root=true
type Address struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// Note about the object.
	// +optional
	Note string `json:"note,omitempty"`
}

// Person has a plural that follows English rules.
// +kubebuilder:object:root=true
type Person struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// Note about the object.
	// +optional
	Note string `json:"note,omitempty"`
}

// Index has a plural that follows English rules.
// +kubebuilder:object:root=true
type Index struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// Note about the object.
	// +optional
	Note string `json:"note,omitempty"`
}

// Analysis has a plural that follows English rules.
// +kubebuilder:object:root=true
type Analysis struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// Note about the object.
	// +optional
	Note string `json:"note,omitempty"`
}

// Leaf has a plural that follows English rules.
// +kubebuilder:object:root=true
type Leaf struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// Note about the object.
	// +optional
	Note string `json:"note,omitempty"`
}

// Bus has a plural that follows English rules.
// +kubebuilder:object:root=true
type Bus struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// Note about the object.
	// +optional
	Note string `json:"note,omitempty"`
}

// Quiz has a plural that follows English rules.
// +kubebuilder:object:root=true
type Quiz struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// Note about the object.
	// +optional
	Note string `json:"note,omitempty"`
}

// HTTPRoute has a plural that follows English rules.
// +kubebuilder:object:root=true
type HTTPRoute struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// Note about the object.
	// +optional
	Note string `json:"note,omitempty"`
}
