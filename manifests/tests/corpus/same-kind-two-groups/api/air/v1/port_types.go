package v1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// PortSpec is the air port's spec.
type PortSpec struct {
	// Runways of the airport.
	Runways int32 `json:"runways"`
}

// Port of the air group.
// +kubebuilder:object:root=true
// +kubebuilder:resource:scope=Cluster
type Port struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec PortSpec `json:"spec"`
}
