package internal

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// MachineSpec describes the host a Machine stands for.
type MachineSpec struct {
	ProviderID string   `json:"providerID"`
	Roles      []string `json:"roles,omitempty"`
}

// Machine is a host of the fleet.
type Machine struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec MachineSpec `json:"spec,omitempty"`
}

// +kubebuilder:object:root=true

// Pool is a set of interchangeable machines.
type Pool struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Size int32 `json:"size"`
}
