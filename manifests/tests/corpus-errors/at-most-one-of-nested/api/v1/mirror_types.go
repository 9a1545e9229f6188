package v1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// +kubebuilder:object:root=true
// +kubebuilder:subresource:status
// +kubebuilder:resource:singular=mirror

// MirrorSpec says what a Mirror copies. The marker names the source fields through their parent:
// controller-gen refuses a OneOf marker over nested fields.
// +kubebuilder:validation:AtMostOneOf=source.git;source.oci
type MirrorSpec struct {
	// Source to copy from.
	// +optional
	Source *MirrorSource `json:"source,omitempty"`
}

// MirrorSource is where a Mirror copies from.
type MirrorSource struct {
	// Git is the URL of a Git repository.
	// +optional
	Git *string `json:"git,omitempty"`

	// OCI is the reference of an OCI artifact.
	// +optional
	OCI *string `json:"oci,omitempty"`
}

// Mirror copies artifacts from a source. It has no root marker (the group above sits on MirrorSpec): it is a
// kind because it embeds TypeMeta and ObjectMeta.
type Mirror struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec MirrorSpec `json:"spec"`
}

// +kubebuilder:object:root=true

// MirrorList contains a list of Mirror.
type MirrorList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []Mirror `json:"items"`
}
