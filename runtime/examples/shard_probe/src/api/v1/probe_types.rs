use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;
use rkb_runtime::{DeepCopy, Kind, TypeMeta};
use serde::{Deserialize, Serialize};

/// ProbeSpec is what a Probe's reconcile copies into its child ConfigMap.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, DeepCopy)]
#[serde(rename_all = "camelCase")]
pub struct ProbeSpec {
    /// payload is copied into the child ConfigMap; changing it reconciles the Probe again.
    pub payload: String,
}

/// Probe is the shard probe's kind: one child ConfigMap per Probe.
/// +kubebuilder:object:root=true
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, Kind)]
pub struct Probe {
    #[serde(flatten)]
    pub type_meta: TypeMeta,
    /// +optional
    #[serde(default)]
    pub metadata: ObjectMeta,
    /// +required
    pub spec: ProbeSpec,
}
