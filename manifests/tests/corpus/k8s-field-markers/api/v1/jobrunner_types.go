package v1

import (
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
)

// JobRunnerSpec puts field markers on k8s-typed fields.
type JobRunnerSpec struct {
	// Template is kept schemaless to keep the CRD small.
	// +kubebuilder:validation:Schemaless
	// +kubebuilder:pruning:PreserveUnknownFields
	// +kubebuilder:validation:Type=object
	// +optional
	Template corev1.PodTemplateSpec `json:"template,omitempty"`
	// Containers are bounded and keyed by name.
	// +kubebuilder:validation:MinItems=1
	// +kubebuilder:validation:MaxItems=4
	// +listType=map
	// +listMapKey=name
	Containers []corev1.Container `json:"containers"`
	// Memory defaults to one gibibyte.
	// +kubebuilder:default="1Gi"
	// +optional
	Memory *resource.Quantity `json:"memory,omitempty"`
	// MaxSurge defaults to a percentage.
	// +kubebuilder:default="25%"
	// +optional
	MaxSurge *intstr.IntOrString `json:"maxSurge,omitempty"`
	// MaxUnavailable defaults to a number.
	// +kubebuilder:default=1
	// +optional
	MaxUnavailable *intstr.IntOrString `json:"maxUnavailable,omitempty"`
	// Selector is required and must not be empty.
	// +kubebuilder:validation:XValidation:rule="has(self.matchLabels) || has(self.matchExpressions)",message="selector must not be empty"
	Selector metav1.LabelSelector `json:"selector"`
	// Deadline is a timestamp kept as a date.
	// +kubebuilder:validation:Format=date
	// +optional
	Deadline *metav1.Time `json:"deadline,omitempty"`
	// Secret is a reference with a default name.
	// +kubebuilder:default={name: "runner-secret"}
	// +optional
	Secret *corev1.LocalObjectReference `json:"secret,omitempty"`
	// Tolerations may be null.
	// +nullable
	// +optional
	Tolerations []corev1.Toleration `json:"tolerations,omitempty"`
}

// JobRunnerStatus reports the pod status.
type JobRunnerStatus struct {
	// PodStatus of the runner pod.
	// +optional
	PodStatus *corev1.PodStatus `json:"podStatus,omitempty"`
	// Conditions have no list markers here.
	// +optional
	Conditions []metav1.Condition `json:"conditions,omitempty"`
}

// JobRunner shows conditions in columns.
// +kubebuilder:object:root=true
// +kubebuilder:subresource:status
// +kubebuilder:printcolumn:name="Ready",type=string,JSONPath=`.status.conditions[?(@.type=="Ready")].status`
// +kubebuilder:printcolumn:name="Reason",type=string,JSONPath=`.status.conditions[?(@.type=="Ready")].reason`,priority=1
// +kubebuilder:printcolumn:name="Phase",type=string,JSONPath=".status.podStatus.phase",description="Phase of the runner pod"
// +kubebuilder:printcolumn:name="Age",type=date,JSONPath=`.metadata.creationTimestamp`
type JobRunner struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec   JobRunnerSpec   `json:"spec,omitempty"`
	Status JobRunnerStatus `json:"status,omitempty"`
}
