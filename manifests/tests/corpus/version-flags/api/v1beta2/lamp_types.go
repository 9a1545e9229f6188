package v1beta2

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// LampSpec is the desired state.
type LampSpec struct {
	// On switches the lamp.
	On bool `json:"on"`
}

// Lamp is the Schema for the lamps API: v1beta2 is not served and deprecated without a warning.
// +kubebuilder:object:root=true
// +kubebuilder:unservedversion
// +kubebuilder:deprecatedversion
type Lamp struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec LampSpec `json:"spec,omitempty"`
}
