use k8s_openapi::apimachinery::pkg::apis::meta::v1 as metav1;
use rkb_runtime::{Kind, TypeMeta};
use serde::{Deserialize, Serialize};

/// ClusterSpec defines the desired state of Cluster.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ClusterSpec {
    /// ConfigPath is the path of the RKE cluster configuration file.
    pub config_path: String,
}

/// ClusterStatus defines the observed state of Cluster.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ClusterStatus {
    /// AppliedConfig is the configuration that was last applied.
    /// +optional
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub applied_config: Option<String>,
    /// Conditions of the cluster.
    /// +optional
    /// +patchMergeKey=type
    /// +patchStrategy=merge
    /// +listType=map
    /// +listMapKey=type
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub conditions: Option<Vec<metav1::Condition>>,
}

/// Cluster is the Schema for the clusters API.
/// +kubebuilder:object:root=true
/// +kubebuilder:subresource:status
/// +kubebuilder:resource:scope=Cluster
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, Kind)]
pub struct Cluster {
    #[serde(flatten)]
    pub type_meta: TypeMeta,
    #[serde(default)]
    pub metadata: metav1::ObjectMeta,
    #[serde(default)]
    pub spec: ClusterSpec,
    #[serde(default)]
    pub status: Option<ClusterStatus>,
}
