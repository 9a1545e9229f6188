package v1alpha1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// PoolSpec is the desired state of a Pool.
type PoolSpec struct {
	// Size is the number of machines the pool keeps.
	// +kubebuilder:validation:Minimum=0
	Size int32 `json:"size"`

	// Selector picks the machines of the pool.
	Selector metav1.LabelSelector `json:"selector"`

	// Paused stops the pool from adding or removing machines.
	// +optional
	Paused bool `json:"paused,omitempty"`
}

// PoolStatus is the observed state of a Pool.
type PoolStatus struct {
	// Replicas is the number of machines in the pool.
	// +optional
	Replicas int32 `json:"replicas,omitempty"`

	// Selector is the label selector of the machines as a string, for the scale subresource.
	// +optional
	Selector string `json:"selector,omitempty"`
}

// +kubebuilder:object:root=true
// +kubebuilder:subresource:status
// +kubebuilder:subresource:scale:specpath=.spec.size,statuspath=.status.replicas,selectorpath=.status.selector
// +kubebuilder:resource:categories=fleet,shortName=mp
// +kubebuilder:printcolumn:name="Size",type=integer,JSONPath=".spec.size"
// +kubebuilder:printcolumn:name="Age",type=date,JSONPath=".metadata.creationTimestamp"

// Pool is a set of interchangeable machines.
// Its kind-level markers sit in their own comment block above the doc, as kubebuilder scaffolds them.
type Pool struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec   PoolSpec   `json:"spec,omitempty"`
	Status PoolStatus `json:"status,omitempty"`
}

// +kubebuilder:object:root=true

// PoolList contains a list of Pool.
type PoolList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []Pool `json:"items"`
}
