package v1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// WorkerSpec is the desired state.
type WorkerSpec struct {
	// Replicas wanted.
	// +optional
	Replicas *int32 `json:"replicas,omitempty"`
}

// WorkerStatus is the observed state.
type WorkerStatus struct {
	// Replicas running.
	Replicas int32 `json:"replicas"`
	// Selector for the pods, in string form.
	// +optional
	Selector string `json:"selector,omitempty"`
}

// Worker scales like a Deployment.
// +kubebuilder:object:root=true
// +kubebuilder:subresource:status
// +kubebuilder:subresource:scale:specpath=.spec.replicas,statuspath=.status.replicas,selectorpath=.status.selector
type Worker struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec   WorkerSpec   `json:"spec,omitempty"`
	Status WorkerStatus `json:"status,omitempty"`
}

// Runner has a scale subresource without a selector and no status subresource.
// +kubebuilder:object:root=true
// +kubebuilder:subresource:scale:specpath=.spec.replicas,statuspath=.status.replicas
type Runner struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec   WorkerSpec   `json:"spec,omitempty"`
	Status WorkerStatus `json:"status,omitempty"`
}
