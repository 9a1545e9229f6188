use std::collections::BTreeMap;

use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;
use k8s_openapi::apimachinery::pkg::runtime::RawExtension;
use rkb_runtime::{Kind, TypeMeta};
use serde::{Deserialize, Serialize};

/// Settings keeps unknown fields of an object.
/// +kubebuilder:pruning:PreserveUnknownFields
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Settings {
    /// Known is a declared field.
    /// +optional
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub known: Option<String>,
}

/// BlobSpec holds free-form JSON.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct BlobSpec {
    /// Payload is any JSON value.
    pub payload: serde_json::Value,
    /// Extra is optional free-form JSON.
    /// +optional
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub extra: Option<serde_json::Value>,
    /// Values is a list of JSON values.
    /// +optional
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub values: Vec<serde_json::Value>,
    /// ByKey maps to JSON values.
    /// +optional
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub by_key: BTreeMap<String, serde_json::Value>,
    /// Object is an embedded Kubernetes object.
    /// +kubebuilder:validation:EmbeddedResource
    /// +kubebuilder:pruning:PreserveUnknownFields
    /// +optional
    #[serde(default)]
    pub object: RawExtension,
    /// Raw is a raw extension.
    /// +optional
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub raw: Option<RawExtension>,
    /// Settings keep unknown fields.
    /// +optional
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub settings: Option<Settings>,
    /// Loose is a string map that keeps unknown fields.
    /// +kubebuilder:pruning:PreserveUnknownFields
    /// +optional
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub loose: BTreeMap<String, String>,
    /// Anything has no schema at all.
    /// +kubebuilder:validation:Schemaless
    /// +kubebuilder:pruning:PreserveUnknownFields
    /// +kubebuilder:validation:Type=object
    /// +optional
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub anything: Option<serde_json::Value>,
}

/// Blob is the Schema for the blobs API.
/// +kubebuilder:object:root=true
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, Kind)]
pub struct Blob {
    #[serde(flatten)]
    pub type_meta: TypeMeta,
    #[serde(default)]
    pub metadata: ObjectMeta,
    #[serde(default)]
    pub spec: BlobSpec,
}
