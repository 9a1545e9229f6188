use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;
use rkb_runtime::{Kind, TypeMeta};
use serde::{Deserialize, Serialize};

/// Proxy has a plural that is not just an s.
/// +kubebuilder:object:root=true
/// +kubebuilder:resource:shortName=px,categories=networking
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, Kind)]
pub struct Proxy {
    #[serde(flatten)]
    pub type_meta: TypeMeta,
    #[serde(default)]
    pub metadata: ObjectMeta,
    /// Upstream address.
    /// +optional
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub upstream: Option<String>,
}
