package v1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// PortSpec is the sea port's spec.
type PortSpec struct {
	// Berths of the harbour.
	// +optional
	Berths []string `json:"berths,omitempty"`
}

// Port of the sea group.
// +kubebuilder:object:root=true
// +kubebuilder:resource:scope=Namespaced
type Port struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec PortSpec `json:"spec"`
}
