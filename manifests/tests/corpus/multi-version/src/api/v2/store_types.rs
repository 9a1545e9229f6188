use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;
use rkb_runtime::{Kind, TypeMeta};
use serde::{Deserialize, Serialize};

/// StoreSpec in v2 splits size into tiers.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct StoreSpec {
    /// Hot storage in gigabytes.
    pub hot: i32,
    /// Cold storage in gigabytes.
    /// +optional
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cold: Option<i32>,
}

/// StoreStatus reports usage.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct StoreStatus {
    /// Used gigabytes.
    /// +optional
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub used: Option<i32>,
}

/// Store is the Schema for the stores API (v2, the storage version).
/// +kubebuilder:object:root=true
/// +kubebuilder:storageversion
/// +kubebuilder:subresource:status
/// +kubebuilder:resource:shortName=st
/// +kubebuilder:printcolumn:name="Hot",type=integer,JSONPath=`.spec.hot`
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, Kind)]
pub struct Store {
    #[serde(flatten)]
    pub type_meta: TypeMeta,
    #[serde(default)]
    pub metadata: ObjectMeta,
    #[serde(default)]
    pub spec: StoreSpec,
    #[serde(default)]
    pub status: StoreStatus,
}
