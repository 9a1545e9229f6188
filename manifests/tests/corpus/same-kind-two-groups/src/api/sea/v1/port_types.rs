use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;
use rkb_runtime::{Kind, TypeMeta};
use serde::{Deserialize, Serialize};

/// PortSpec is the sea port's spec.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PortSpec {
    /// Berths of the harbour.
    /// +optional
    #[serde(default)]
    pub berths: Vec<String>,
}

/// Port of the sea group.
/// +kubebuilder:object:root=true
/// +kubebuilder:resource:scope=Namespaced
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, Kind)]
pub struct Port {
    #[serde(flatten)]
    pub type_meta: TypeMeta,
    #[serde(default)]
    pub metadata: ObjectMeta,
    pub spec: PortSpec,
}
