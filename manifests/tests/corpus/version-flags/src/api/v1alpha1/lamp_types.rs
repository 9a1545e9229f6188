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

/// Lamp is the Schema for the lamps API: v1alpha1 is skipped: it is not in the CRD.
/// +kubebuilder:object:root=true
/// +kubebuilder:skipversion
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, Kind)]
pub struct Lamp {
    #[serde(flatten)]
    pub type_meta: TypeMeta,
    #[serde(default)]
    pub metadata: ObjectMeta,
    #[serde(default)]
    pub spec: LampSpec,
}
