package v1

import (
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// WorkloadSpec embeds core/v1 types.
type WorkloadSpec struct {
	// Template of the pods.
	Template corev1.PodTemplateSpec `json:"template"`
	// Sidecar container added to every pod.
	// +optional
	Sidecar *corev1.Container `json:"sidecar,omitempty"`
	// InitContainers run first.
	// +optional
	InitContainers []corev1.Container `json:"initContainers,omitempty"`
	// Resources for the sidecar.
	// +optional
	Resources corev1.ResourceRequirements `json:"resources,omitempty"`
	// Env is added to every container.
	// +optional
	Env []corev1.EnvVar `json:"env,omitempty"`
	// Volumes are mounted into the sidecar.
	// +optional
	Volumes []corev1.Volume `json:"volumes,omitempty"`
	// Tolerations for the pods.
	// +optional
	Tolerations []corev1.Toleration `json:"tolerations,omitempty"`
	// Affinity of the pods.
	// +optional
	Affinity *corev1.Affinity `json:"affinity,omitempty"`
	// PullSecret for the images.
	// +optional
	PullSecret *corev1.LocalObjectReference `json:"pullSecret,omitempty"`
	// Ports exposed by the service.
	// +optional
	Ports []corev1.ServicePort `json:"ports,omitempty"`
	// +optional
	Probe *corev1.Probe `json:"probe,omitempty"`
}

// WorkloadStatus refers to objects.
type WorkloadStatus struct {
	// Pods created.
	// +optional
	Pods []corev1.ObjectReference `json:"pods,omitempty"`
}

// Workload is the Schema for the workloads API.
// +kubebuilder:object:root=true
// +kubebuilder:subresource:status
type Workload struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec   WorkloadSpec   `json:"spec,omitempty"`
	Status WorkloadStatus `json:"status,omitempty"`
}
