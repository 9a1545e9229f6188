use std::collections::BTreeMap;

use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;
use rkb_runtime::{Kind, TypeMeta};
use serde::{Deserialize, Serialize};

/// PresetSpec exercises default values of every shape.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PresetSpec {
    /// Mode defaults to a string.
    /// +kubebuilder:default=fast
    /// +optional
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mode: Option<String>,
    /// Quoted defaults to a quoted string with spaces.
    /// +kubebuilder:default="hello world"
    /// +optional
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub quoted: Option<String>,
    /// Retries defaults to an integer.
    /// +kubebuilder:default=3
    /// +optional
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub retries: Option<i32>,
    /// Enabled defaults to true.
    /// +kubebuilder:default=true
    /// +optional
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub enabled: Option<bool>,
    /// Ratio defaults to a float.
    /// +kubebuilder:default=0.25
    /// +optional
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ratio: Option<f64>,
    /// Names default to a list.
    /// +kubebuilder:default={"a","b"}
    /// +optional
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub names: Vec<String>,
    /// Limits default to a map.
    /// +kubebuilder:default={cpu: "1", memory: "1Gi"}
    /// +optional
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub limits: BTreeMap<String, String>,
    /// Backoff defaults to an object.
    /// +kubebuilder:default={initial: 1, factor: 2}
    /// +optional
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub backoff: Option<Backoff>,
    /// Empty defaults to an empty object.
    /// +kubebuilder:default={}
    /// +optional
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub empty: Option<Backoff>,
    /// Level uses the Kubernetes-style default marker.
    /// +default="info"
    /// +optional
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub level: Option<String>,
    /// Port has an example.
    /// +kubebuilder:example=8080
    /// +optional
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub port: Option<i32>,
    /// Pair has an object example.
    /// +kubebuilder:example={key: "k", value: "v"}
    /// +optional
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub pair: BTreeMap<String, String>,
}

/// Backoff configures retry timing.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Backoff {
    /// Initial delay in seconds.
    /// +optional
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub initial: Option<i32>,
    /// Factor multiplies the delay.
    /// +kubebuilder:default=2
    /// +optional
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub factor: Option<i32>,
}

/// Preset is the Schema for the presets API.
/// +kubebuilder:object:root=true
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, Kind)]
pub struct Preset {
    #[serde(flatten)]
    pub type_meta: TypeMeta,
    #[serde(default)]
    pub metadata: ObjectMeta,
    #[serde(default)]
    pub spec: PresetSpec,
}
