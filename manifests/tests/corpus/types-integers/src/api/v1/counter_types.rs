use std::collections::BTreeMap;

use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;
use rkb_runtime::{Kind, TypeMeta};
use serde::{Deserialize, Serialize};

/// CounterSpec maps every integer width.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CounterSpec {
    /// I8 is a signed byte.
    /// +optional
    pub i8: Option<i8>,
    /// I16 is a signed short.
    /// +optional
    pub i16: Option<i16>,
    /// U8 is an unsigned byte.
    /// +optional
    pub u8: Option<u8>,
    /// U16 is an unsigned short.
    /// +optional
    pub u16: Option<u16>,
    /// U32 is an unsigned int.
    /// +optional
    pub u32: Option<u32>,
    /// U64 is an unsigned long.
    /// +optional
    pub u64: Option<u64>,
    /// Counts are unsigned.
    /// +optional
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub counts: Vec<u32>,
    /// Totals map to unsigned longs.
    /// +optional
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub totals: BTreeMap<String, u64>,
}

/// Counter is the Schema for the counters API.
/// +kubebuilder:object:root=true
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, Kind)]
pub struct Counter {
    #[serde(flatten)]
    pub type_meta: TypeMeta,
    #[serde(default)]
    pub metadata: ObjectMeta,
    #[serde(default)]
    pub spec: CounterSpec,
}
