package v1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Hostname is a DNS name.
// +kubebuilder:validation:MinLength=3
// +kubebuilder:validation:MaxLength=253
// +kubebuilder:validation:Pattern=`^[a-z0-9.-]+$`
type Hostname string

// Percent is an integer percentage.
// +kubebuilder:validation:Minimum=0
// +kubebuilder:validation:Maximum=100
type Percent int32

// Labels are string pairs with a bounded count.
// +kubebuilder:validation:MaxProperties=8
type Labels map[string]string

// Window is a time window; start must come before end.
// +kubebuilder:validation:XValidation:rule="self.start < self.end",message="start must be before end"
// +kubebuilder:validation:MinProperties=1
type Window struct {
	// Start hour.
	Start int32 `json:"start"`
	// End hour.
	End int32 `json:"end"`
}

// GadgetSpec uses types that carry their own validation.
// +kubebuilder:validation:XValidation:rule="!has(self.backup) || self.backup != self.primary",message="backup must differ from primary"
type GadgetSpec struct {
	// Primary host.
	Primary Hostname `json:"primary"`
	// Backup host.
	// +optional
	Backup *Hostname `json:"backup,omitempty"`
	// Load is the share of traffic, with a tighter field-level bound.
	// +kubebuilder:validation:Maximum=90
	// +optional
	Load Percent `json:"load,omitempty"`
	// Extra labels.
	// +optional
	Extra Labels `json:"extra,omitempty"`
	// Maintenance window.
	// +optional
	Maintenance *Window `json:"maintenance,omitempty"`
	// Mirrors are more hosts.
	// +optional
	Mirrors []Hostname `json:"mirrors,omitempty"`
}

// Gadget is the Schema for the gadgets API.
// +kubebuilder:object:root=true
type Gadget struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec GadgetSpec `json:"spec,omitempty"`
}
