package v1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// ThingSpec is the spec.
type ThingSpec struct {
	// Mode with a default that does not parse.
	// +kubebuilder:default={a: 1
	Mode map[string]int32 `json:"mode"`
}

// Thing is a kind.
// +kubebuilder:object:root=true
type Thing struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec ThingSpec `json:"spec"`
}
