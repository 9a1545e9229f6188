package v1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// GuestbookSpec defines the desired state of Guestbook.
type GuestbookSpec struct {
	// Size of the guestbook.
	Size int32 `json:"size"`
}

// Guestbook is the Schema for the guestbooks API.
// +kubebuilder:object:root=true
type Guestbook struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec GuestbookSpec `json:"spec,omitempty"`
}
