package v1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Settings is a cluster-scoped ConfigMap-like kind without spec or status.
// +kubebuilder:object:root=true
// +kubebuilder:resource:scope=Cluster,shortName=set
type Settings struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// Data holds the settings; required by the package default even with omitempty.
	Data map[string]string `json:"data,omitempty"`
	// BinaryData is optional by marker.
	// +optional
	BinaryData map[string][]byte `json:"binaryData,omitempty"`
	// Immutable is optional by marker.
	// +kubebuilder:validation:Optional
	Immutable *bool `json:"immutable,omitempty"`
}
