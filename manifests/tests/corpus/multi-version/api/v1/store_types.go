package v1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// StoreSpec in v1 has a single size.
type StoreSpec struct {
	// Size in gigabytes.
	Size int32 `json:"size"`
}

// Store is the Schema for the stores API (v1).
// +kubebuilder:object:root=true
// +kubebuilder:resource:shortName=st
type Store struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec StoreSpec `json:"spec,omitempty"`
}
