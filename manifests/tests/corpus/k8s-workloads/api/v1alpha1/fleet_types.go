package v1alpha1

import (
	appsv1 "k8s.io/api/apps/v1"
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// FleetSpec embeds types of several API groups.
type FleetSpec struct {
	// Strategy for rolling out members.
	// +optional
	Strategy appsv1.DeploymentStrategy `json:"strategy,omitempty"`
	// JobTemplate for batch members.
	// +optional
	JobTemplate *batchv1.JobTemplateSpec `json:"jobTemplate,omitempty"`
	// PodSpec used directly.
	// +optional
	PodSpec *corev1.PodSpec `json:"podSpec,omitempty"`
	// Labels and annotations stamped on members.
	// +optional
	MemberMetadata metav1.ObjectMeta `json:"memberMetadata,omitempty"`
	// Rules route traffic.
	// +optional
	Rules []networkingv1.IngressRule `json:"rules,omitempty"`
	// Metrics drive autoscaling.
	// +optional
	Metrics []autoscalingv2.MetricSpec `json:"metrics,omitempty"`
	// Permissions granted to members.
	// +optional
	Permissions []rbacv1.PolicyRule `json:"permissions,omitempty"`
	// Claim for storage.
	// +optional
	Claim *corev1.PersistentVolumeClaimSpec `json:"claim,omitempty"`
	// +optional
	SecurityContext *corev1.PodSecurityContext `json:"securityContext,omitempty"`
}

// FleetStatus reports member deployments.
type FleetStatus struct {
	// Deployment status of the main member.
	// +optional
	Deployment *appsv1.DeploymentStatus `json:"deployment,omitempty"`
	// LastJob status.
	// +optional
	LastJob *batchv1.JobStatus `json:"lastJob,omitempty"`
}

// Fleet is the Schema for the fleets API.
// +kubebuilder:object:root=true
// +kubebuilder:subresource:status
type Fleet struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec   FleetSpec   `json:"spec,omitempty"`
	Status FleetStatus `json:"status,omitempty"`
}

// FleetList contains a list of Fleet; rkb does not need it and controller-gen ignores it.
// +kubebuilder:object:root=true
type FleetList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []Fleet `json:"items"`
}
