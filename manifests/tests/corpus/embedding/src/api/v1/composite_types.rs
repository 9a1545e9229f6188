use std::collections::BTreeMap;

use k8s_openapi::ByteString;
use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;
use rkb_runtime::{Kind, TypeMeta};
use serde::{Deserialize, Serialize};

/// Identity is inlined; its type-level rule joins the parent's.
/// +kubebuilder:validation:XValidation:rule="self.id.size() > 0",message="id must not be empty"
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Identity {
    /// ID of the object.
    pub id: String,
    /// Revision of the object.
    /// +optional
    pub revision: Option<i64>,
}

/// Placement is inlined too.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Placement {
    /// Region to run in.
    pub region: String,
    /// Zones within the region.
    /// +listType=set
    /// +optional
    #[serde(default)]
    pub zones: Vec<String>,
}

/// Level of a setting.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Level {
    Low,
    High,
}

/// Limits is documented on the type.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Limits {
    /// Max value.
    pub max: i32,
}

/// CompositeSpec inlines two structs and keeps its own fields.
/// +kubebuilder:validation:XValidation:rule="self.region != 'forbidden'",message="region is forbidden"
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CompositeSpec {
    #[serde(flatten)]
    pub identity: Identity,
    #[serde(flatten)]
    pub placement: Placement,
    /// Levels map names to levels.
    /// +optional
    #[serde(default)]
    pub levels: BTreeMap<String, Level>,
    /// Data is raw bytes, base64 in JSON.
    /// +optional
    pub data: Option<ByteString>,
    /// Limits of the field, with the field's own doc.
    /// +optional
    pub limits: Option<Box<Limits>>,
    /// +optional
    pub soft_limits: Option<Limits>,
    /// Chain of limits.
    /// +optional
    #[serde(default)]
    pub chain: Vec<Option<Limits>>,
}

/// Composite is the Schema for the composites API.
/// +kubebuilder:object:root=true
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, Kind)]
pub struct Composite {
    #[serde(flatten)]
    pub type_meta: TypeMeta,
    #[serde(default)]
    pub metadata: ObjectMeta,
    #[serde(default)]
    pub spec: CompositeSpec,
}
