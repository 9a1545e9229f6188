use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;
use rkb_runtime::{Kind, TypeMeta};
use serde::{Deserialize, Serialize};

/// HarborSpec defines the desired state of Harbor.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct HarborSpec {
    /// Capacity of the harbor in v1.
    pub capacity: i32,
}

/// HarborStatus defines the observed state of Harbor.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct HarborStatus {
    /// Docked counts what is inside.
    /// +optional
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub docked: Option<i32>,
}

/// Harbor is the Schema for the harbors API.
/// +kubebuilder:object:root=true
/// +kubebuilder:subresource:status
/// +kubebuilder:storageversion
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, Kind)]
pub struct Harbor {
    #[serde(flatten)]
    pub type_meta: TypeMeta,
    #[serde(default)]
    pub metadata: ObjectMeta,
    #[serde(default)]
    pub spec: HarborSpec,
    #[serde(default)]
    pub status: HarborStatus,
}
