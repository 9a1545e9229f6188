use rkb_runtime::k8s_openapi::apimachinery::pkg::apis::meta::v1::{ObjectMeta, Time};
use rkb_runtime::{DeepCopy, Kind, TypeMeta};
use serde::{Deserialize, Serialize};

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, DeepCopy)]
#[serde(rename_all = "camelCase")]
pub struct SiteSpec {
    /// Region the site is in.
    pub region: String,

    /// Zones of the region the site spans.
    /// +optional
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub zones: Vec<String>,
}

/// SiteStatus has no fields yet.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, DeepCopy)]
pub struct SiteStatus {}

/// Site is a location machines run in. It carries no marker at all: controller-gen finds it because it embeds
/// TypeMeta and ObjectMeta.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, Kind)]
pub struct Site {
    /// TypeMeta comments are not part of the schema.
    #[serde(flatten)]
    pub type_meta: TypeMeta,
    /// Standard object's metadata.
    /// +optional
    #[serde(default)]
    pub metadata: ObjectMeta,

    /// Spec is the desired state of the site.
    #[serde(default)]
    pub spec: SiteSpec,
    /// Status is the observed state of the site.
    #[serde(default)]
    pub status: SiteStatus,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, Kind)]
pub struct Reservation {
    #[serde(flatten)]
    pub type_meta: TypeMeta,
    pub metadata: ObjectMeta,

    /// Holder is the machine holding the reservation.
    pub holder: String,

    /// Until is when the reservation ends.
    /// +optional
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub until: Option<Time>,
}
