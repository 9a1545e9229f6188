package v1

import (
	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// SpliceSpec embeds two Kubernetes types whose fields share names (name, protocol): their shared
// sub-schemas meet in one merge.
type SpliceSpec struct {
	// Size in gigabytes.
	Size                     int32 `json:"size"`
	corev1.ContainerPort     `json:",inline"`
	discoveryv1.EndpointPort `json:",inline"`
}

// Splice is the Schema for the splices API.
// +kubebuilder:object:root=true
type Splice struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec SpliceSpec `json:"spec,omitempty"`
}
