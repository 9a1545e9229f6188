package v1alpha1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Condition type: the provisioner's last `up` succeeded for the current spec (seed: `ClusterConditionProvisioned`).
const ConditionProvisioned = "Provisioned"

// Condition type: the cluster can serve its API (seed: `ClusterConditionReady`). Without a health check of the
// provisioned cluster it follows the outcome of the provisioner: true after a successful `up`, false while
// provisioning failed or while the cluster is being removed.
const ConditionReady = "Ready"

// ClusterSpec defines the desired state of Cluster.
type ClusterSpec struct {
	// configPath is the path, on the operator's host, of the provisioner's cluster configuration
	// (for rke, a cluster.yml). The provisioner runs `up <configPath>`; on deletion it runs `remove` with
	// status.appliedConfig (what was provisioned), or with configPath when nothing was.
	// +kubebuilder:validation:MinLength=1
	// +required
	ConfigPath string `json:"configPath"`
}

// ClusterStatus defines the observed state of Cluster.
type ClusterStatus struct {
	// appliedConfig is the configPath of the last successful `up`. A spec whose configPath differs from it is
	// provisioned again.
	// +optional
	AppliedConfig string `json:"appliedConfig,omitempty"`

	// conditions: Provisioned and Ready.
	// +listType=map
	// +listMapKey=type
	// +optional
	Conditions []metav1.Condition `json:"conditions,omitempty"`
}

// Cluster is the Schema for the clusters API: a cluster provisioned from spec.configPath.
// +genclient
// +genclient:noStatus
// +genclient:nonNamespaced
// +kubebuilder:object:root=true
// +kubebuilder:resource:scope=Cluster
// +kubebuilder:printcolumn:name="Config",type=string,JSONPath=`.spec.configPath`
// +kubebuilder:printcolumn:name="Provisioned",type=string,JSONPath=`.status.conditions[?(@.type=="Provisioned")].status`
// +kubebuilder:printcolumn:name="Ready",type=string,JSONPath=`.status.conditions[?(@.type=="Ready")].status`
// +kubebuilder:printcolumn:name="Age",type=date,JSONPath=`.metadata.creationTimestamp`
type Cluster struct {
	metav1.TypeMeta `json:",inline"`

	// metadata is a standard object metadata
	// +optional
	metav1.ObjectMeta `json:"metadata,omitempty,omitzero"`

	// spec defines the desired state of Cluster
	// +required
	Spec ClusterSpec `json:"spec"`

	// status defines the observed state of Cluster
	// +optional
	Status ClusterStatus `json:"status,omitempty,omitzero"`
}
