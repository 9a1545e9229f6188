use std::collections::BTreeMap;

use k8s_openapi::ByteString;
use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;
use rkb_runtime::{Kind, TypeMeta};
use serde::{Deserialize, Serialize};

/// Settings is a cluster-scoped ConfigMap-like kind without spec or status.
/// +kubebuilder:object:root=true
/// +kubebuilder:resource:scope=Cluster,shortName=set
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, Kind)]
#[serde(rename_all = "camelCase")]
pub struct Settings {
    #[serde(flatten)]
    pub type_meta: TypeMeta,
    #[serde(default)]
    pub metadata: ObjectMeta,
    /// Data holds the settings; required by the package default even with omitempty.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub data: BTreeMap<String, String>,
    /// BinaryData is optional by marker.
    /// +optional
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub binary_data: BTreeMap<String, ByteString>,
    /// Immutable is optional by marker.
    /// +kubebuilder:validation:Optional
    pub immutable: Option<bool>,
}
