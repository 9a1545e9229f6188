use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;
use rkb_runtime::{Kind, TypeMeta};
use serde::{Deserialize, Serialize};

/// FrigateSpec defines the desired state of Frigate.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct FrigateSpec {
    /// Capacity of the frigate in v1beta1.
    pub capacity: i32,
}

/// FrigateStatus defines the observed state of Frigate.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct FrigateStatus {
    /// Docked counts what is inside.
    /// +optional
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub docked: Option<i32>,
}

/// Frigate is the Schema for the frigates API.
/// +kubebuilder:object:root=true
/// +kubebuilder:subresource:status
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, Kind)]
pub struct Frigate {
    #[serde(flatten)]
    pub type_meta: TypeMeta,
    #[serde(default)]
    pub metadata: ObjectMeta,
    #[serde(default)]
    pub spec: FrigateSpec,
    #[serde(default)]
    pub status: FrigateStatus,
}
