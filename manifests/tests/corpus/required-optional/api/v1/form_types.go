package v1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// FormSpec is in a package whose fields are optional by default.
type FormSpec struct {
	// Title has no omitempty but the package default makes it optional.
	Title string `json:"title"`
	// Body is required by the kubebuilder marker.
	// +kubebuilder:validation:Required
	Body string `json:"body,omitempty"`
	// Footer is required by the short marker.
	// +required
	Footer string `json:"footer,omitempty"`
	// Author is required by the k8s marker.
	// +k8s:required
	Author string `json:"author,omitempty"`
	// Note is optional by the kubebuilder marker.
	// +kubebuilder:validation:Optional
	Note string `json:"note"`
	// Hint is optional by the k8s marker.
	// +k8s:optional
	Hint string `json:"hint"`
	// Tags may be null.
	// +nullable
	// +optional
	Tags []string `json:"tags"`
	// Extra may be null.
	// +nullable
	// +optional
	Extra *FormExtra `json:"extra,omitempty"`
}

// FormExtra is in the same package, so its fields are optional too.
type FormExtra struct {
	// Key is optional by package default.
	Key string `json:"key"`
	// Value is required.
	// +required
	Value string `json:"value"`
}

// Form is the Schema for the forms API.
// +kubebuilder:object:root=true
type Form struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// +required
	Spec FormSpec `json:"spec"`
}
