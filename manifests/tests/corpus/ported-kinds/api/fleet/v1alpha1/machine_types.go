package v1alpha1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// The kind-level markers below sit on MachineSpec, not on Machine: controller-gen ignores them there, and
// still makes a CRD for Machine because it embeds TypeMeta and ObjectMeta (namespaced, no status subresource).

// +kubebuilder:object:root=true
// +kubebuilder:subresource:status
// +kubebuilder:resource:scope=Cluster,shortName=mach

// MachineSpec describes the host a Machine stands for.
type MachineSpec struct {
	// ProviderID identifies the host at its infrastructure provider.
	// +kubebuilder:validation:MinLength=1
	ProviderID string `json:"providerID"`

	// Roles the host takes in the fleet.
	// +optional
	// +listType=set
	Roles []string `json:"roles,omitempty"`

	// Template the host was created from, if any.
	// +optional
	Template *MachineTemplate `json:"template,omitempty"`
}

// MachineTemplate is what a host is created from: the labels and annotations of its Machine, and its image.
// It embeds ObjectMeta but not TypeMeta, so it is no kind.
type MachineTemplate struct {
	// Standard object's metadata.
	// +optional
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// Image the host boots.
	Image string `json:"image"`
}

// MachineStatus is the observed state of a Machine.
type MachineStatus struct {
	// Ready is true once the host has joined the fleet.
	// +optional
	Ready bool `json:"ready,omitempty"`

	// Conditions of the host.
	// +optional
	// +listType=map
	// +listMapKey=type
	Conditions []metav1.Condition `json:"conditions,omitempty"`
}

// Machine is a host of the fleet.
type Machine struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec   MachineSpec   `json:"spec,omitempty"`
	Status MachineStatus `json:"status,omitempty"`
}

// +kubebuilder:object:root=true

// MachineList contains a list of Machine.
type MachineList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []Machine `json:"items"`
}
