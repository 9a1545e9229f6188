package v1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// BeaconSpec is the desired state.
type BeaconSpec struct {
	// Color of the beacon.
	Color string `json:"color"`
	// Channel the beacon uses.
	// +optional
	Channel int32 `json:"channel,omitempty"`
}

// Beacon carries CRD annotations and labels, and selectable fields.
// +kubebuilder:object:root=true
// +kubebuilder:metadata:annotations="api-approved.kubernetes.io=https://example.com/pull/1"
// +kubebuilder:metadata:annotations="example.com/owner=team-a"
// +kubebuilder:metadata:labels="app.kubernetes.io/part-of=corpus"
// +kubebuilder:metadata:labels="tier=backend"
// +kubebuilder:selectablefield:JSONPath=`.spec.color`
// +kubebuilder:selectablefield:JSONPath=`.spec.channel`
type Beacon struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec BeaconSpec `json:"spec,omitempty"`
}
