package v2

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// StoreSpec in v2 splits size into tiers.
type StoreSpec struct {
	// Hot storage in gigabytes.
	Hot int32 `json:"hot"`
	// Cold storage in gigabytes.
	// +optional
	Cold int32 `json:"cold,omitempty"`
}

// StoreStatus reports usage.
type StoreStatus struct {
	// Used gigabytes.
	// +optional
	Used int32 `json:"used,omitempty"`
}

// Store is the Schema for the stores API (v2, the storage version).
// +kubebuilder:object:root=true
// +kubebuilder:storageversion
// +kubebuilder:subresource:status
// +kubebuilder:resource:shortName=st
// +kubebuilder:printcolumn:name="Hot",type=integer,JSONPath=`.spec.hot`
type Store struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec   StoreSpec   `json:"spec,omitempty"`
	Status StoreStatus `json:"status,omitempty"`
}
