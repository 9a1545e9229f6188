use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;
use rkb_runtime::{Kind, TypeMeta};
use serde::{Deserialize, Serialize};

/// LampSpec is the desired state.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct LampSpec {
    /// On switches the lamp.
    pub on: bool,
}

/// Lamp is the Schema for the lamps API: v1beta1 is deprecated with a warning.
/// +kubebuilder:object:root=true
/// +kubebuilder:deprecatedversion:warning="flags.corpus.rkb.io/v1beta1 Lamp is deprecated; use v1"
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, Kind)]
pub struct Lamp {
    #[serde(flatten)]
    pub type_meta: TypeMeta,
    #[serde(default)]
    pub metadata: ObjectMeta,
    #[serde(default)]
    pub spec: LampSpec,
}
