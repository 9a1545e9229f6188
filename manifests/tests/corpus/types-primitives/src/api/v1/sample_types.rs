use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;
use rkb_runtime::{Kind, TypeMeta};
use serde::{Deserialize, Serialize};

/// SampleSpec maps every primitive, required and optional.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SampleSpec {
    /// Text is a required string.
    pub text: String,
    /// Flag is a required bool.
    pub flag: bool,
    /// Small is a required int32.
    pub small: i32,
    /// Big is a required int64.
    pub big: i64,
    /// Real is a required float64.
    pub real: f64,
    /// MaybeText is optional through a pointer.
    /// +optional
    pub maybe_text: Option<String>,
    /// MaybeFlag is optional.
    /// +optional
    pub maybe_flag: Option<bool>,
    /// MaybeSmall is optional.
    /// +optional
    pub maybe_small: Option<i32>,
    /// MaybeBig is optional.
    /// +optional
    pub maybe_big: Option<i64>,
    /// MaybeReal is optional.
    /// +optional
    pub maybe_real: Option<f64>,
    /// Renamed has a JSON name unlike its Go name.
    /// +optional
    #[serde(rename = "renamed_field", default, skip_serializing_if = "String::is_empty")]
    pub renamed: String,
    /// Secret is never serialized.
    #[serde(skip)]
    pub secret: String,
    /// DefaultedNumber is optional by omitempty alone.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub defaulted_number: Option<i32>,
}

/// Sample is the Schema for the samples API.
/// +kubebuilder:object:root=true
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, Kind)]
pub struct Sample {
    #[serde(flatten)]
    pub type_meta: TypeMeta,
    #[serde(default)]
    pub metadata: ObjectMeta,
    pub spec: SampleSpec,
}
