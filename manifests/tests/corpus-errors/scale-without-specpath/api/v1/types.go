package v1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// ThingSpec is the spec.
type ThingSpec struct {
	// Replicas wanted.
	Replicas int32 `json:"replicas"`
}

// Thing is a kind.
// +kubebuilder:object:root=true
// +kubebuilder:subresource:scale:statuspath=.status.replicas
type Thing struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec ThingSpec `json:"spec"`
}
