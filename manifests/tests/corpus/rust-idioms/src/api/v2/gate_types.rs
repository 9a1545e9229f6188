use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;
use rkb_runtime::{Kind, TypeMeta};
use serde::{Deserialize, Serialize};

use crate::api::v1;

/// GateSpec in v2 reuses v1's types.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct GateSpec {
    /// Rules reused from v1.
    pub rules: Vec<v1::Rule>,
    /// Primary name, a v1 type.
    pub primary: crate::api::v1::Name,
}

/// Gate is the Schema for the gates API (v2).
/// +kubebuilder:object:root=true
/// +kubebuilder:storageversion
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, Kind)]
pub struct Gate {
    #[serde(flatten)]
    pub type_meta: TypeMeta,
    #[serde(default)]
    pub metadata: ObjectMeta,
    #[serde(default)]
    pub spec: GateSpec,
}
