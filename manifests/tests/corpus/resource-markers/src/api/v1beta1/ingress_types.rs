use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;
use rkb_runtime::{Kind, TypeMeta};
use serde::{Deserialize, Serialize};

/// Ingress has an irregular plural.
/// +kubebuilder:object:root=true
/// +kubebuilder:resource:scope=Namespaced
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, Kind)]
pub struct Ingress {
    #[serde(flatten)]
    pub type_meta: TypeMeta,
    #[serde(default)]
    pub metadata: ObjectMeta,
    /// Host served.
    /// +optional
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub host: Option<String>,
}
