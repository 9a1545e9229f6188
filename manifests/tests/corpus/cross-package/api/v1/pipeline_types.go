package v1

import (
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"rkb.local/corpus/cross-package/api/shared"
)

// PipelineSpec uses types from another package of the project.
type PipelineSpec struct {
	// Steps run in order.
	Steps []shared.Container `json:"steps"`
	// Retry policy.
	// +optional
	Retry *shared.Retry `json:"retry,omitempty"`
	// Sidecar is the Kubernetes container type.
	// +optional
	Sidecar *corev1.Container `json:"sidecar,omitempty"`
}

// Pipeline is the Schema for the pipelines API.
// +kubebuilder:object:root=true
type Pipeline struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec PipelineSpec `json:"spec,omitempty"`
}
