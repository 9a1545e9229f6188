package v2

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	v1 "rkb.local/corpus/rust-idioms/api/v1"
)

// GateSpec in v2 reuses v1's types.
type GateSpec struct {
	// Rules reused from v1.
	Rules []v1.Rule `json:"rules"`
	// Primary name, a v1 type.
	Primary v1.Name `json:"primary"`
}

// Gate is the Schema for the gates API (v2).
// +kubebuilder:object:root=true
// +kubebuilder:storageversion
type Gate struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec GateSpec `json:"spec,omitempty"`
}
