use k8s_openapi::apimachinery::pkg::apis::meta::v1::{Condition, ObjectMeta};
use rkb_runtime::{DeepCopy, Kind, TypeMeta};
use serde::{Deserialize, Serialize};

/// ClusterSpec defines the desired state of Cluster.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, DeepCopy)]
#[serde(rename_all = "camelCase")]
pub struct ClusterSpec {
    /// ConfigPath is the path of the cluster configuration to provision from.
    pub config_path: String,
}

/// ClusterStatus defines the observed state of Cluster.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, DeepCopy)]
#[serde(rename_all = "camelCase")]
pub struct ClusterStatus {
    /// AppliedConfig is the configuration last provisioned.
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub applied_config: String,
    /// Conditions: Ready and Provisioned.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub conditions: Vec<Condition>,
}

/// Cluster is the Schema for the clusters API.
/// +genclient
/// +genclient:noStatus
/// +genclient:nonNamespaced
/// +kubebuilder:object:root=true
/// +kubebuilder:resource:scope=Cluster
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, Kind)]
pub struct Cluster {
    #[serde(flatten)]
    pub type_meta: TypeMeta,
    #[serde(default)]
    pub metadata: ObjectMeta,
    pub spec: ClusterSpec,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status: Option<ClusterStatus>,
}
