use std::collections::BTreeMap;

use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;
use k8s_openapi::apimachinery::pkg::runtime::RawExtension;
use rkb_runtime::{Kind, TypeMeta};
use serde::{Deserialize, Serialize};

/// Cipher is an enum from its constants.
/// +k8s:enum
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Cipher {
    /// CipherAES is AES.
    #[serde(rename = "aes")]
    Aes,
    /// CipherChaCha is ChaCha20.
    #[serde(rename = "chacha20")]
    ChaCha,
}

/// Source names where secrets come from; at least one must be set.
/// +kubebuilder:validation:AtLeastOneOf=file;env
/// +kubebuilder:externalDocs:url="https://example.com/sources",description="How sources work"
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Source {
    /// +optional
    pub file: Option<String>,
    /// +optional
    pub env: Option<String>,
}

/// VaultSpec uses the less common markers.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct VaultSpec {
    /// Cipher used.
    /// +optional
    pub cipher: Option<Cipher>,
    /// Name may not change once set.
    /// +k8s:immutable
    pub name: String,
    /// Source of secrets.
    /// +kubebuilder:externalDocs:url="https://example.com/vault"
    /// +optional
    pub source: Option<Source>,
    /// Grid has bounds on inner lists.
    /// +kubebuilder:validation:items:MinItems=1
    /// +kubebuilder:validation:items:MaxItems=3
    /// +kubebuilder:validation:items:UniqueItems=false
    /// +optional
    #[serde(default)]
    pub grid: Vec<Vec<String>>,
    /// Maps has bounds on each map.
    /// +kubebuilder:validation:items:MinProperties=1
    /// +kubebuilder:validation:items:MaxProperties=2
    /// +optional
    #[serde(default)]
    pub maps: Vec<BTreeMap<String, String>>,
    /// Ports are ints or strings.
    /// +kubebuilder:validation:items:XIntOrString
    /// +kubebuilder:validation:items:Type=""
    /// +optional
    #[serde(default)]
    pub ports: Vec<String>,
    /// Objects keep unknown fields and embed resources.
    /// +kubebuilder:validation:items:XPreserveUnknownFields
    /// +kubebuilder:validation:items:XEmbeddedResource
    /// +optional
    #[serde(default)]
    pub objects: Vec<RawExtension>,
    /// Limits exclude their bounds.
    /// +kubebuilder:validation:items:Minimum=0
    /// +kubebuilder:validation:items:ExclusiveMinimum=true
    /// +kubebuilder:validation:items:Maximum=10
    /// +kubebuilder:validation:items:ExclusiveMaximum=true
    /// +optional
    #[serde(default)]
    pub limits: Vec<i32>,
    /// Extra keeps unknown fields through the validation spelling.
    /// +kubebuilder:validation:XPreserveUnknownFields
    /// +kubebuilder:validation:XEmbeddedResource
    /// +optional
    pub extra: Option<RawExtension>,
}

/// Vault is the Schema for the vaults API.
/// +kubebuilder:object:root=true
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, Kind)]
pub struct Vault {
    #[serde(flatten)]
    pub type_meta: TypeMeta,
    #[serde(default)]
    pub metadata: ObjectMeta,
    #[serde(default)]
    pub spec: VaultSpec,
}
