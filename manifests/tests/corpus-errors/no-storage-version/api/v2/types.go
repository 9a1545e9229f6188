package v2

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// ThingSpec is the spec.
type ThingSpec struct {
	// Size of the thing.
	Size int32 `json:"size"`
}

// Thing is a kind.
// +kubebuilder:object:root=true
type Thing struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec ThingSpec `json:"spec"`
}
