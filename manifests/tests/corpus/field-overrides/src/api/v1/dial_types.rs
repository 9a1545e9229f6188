use std::collections::BTreeMap;

use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;
use rkb_runtime::{Kind, TypeMeta};
use serde::{Deserialize, Serialize};

/// Choice allows at most one of its fields and exactly one of two others.
/// +kubebuilder:validation:AtMostOneOf=alpha;beta
/// +kubebuilder:validation:ExactlyOneOf=gamma;delta
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Choice {
    /// +optional
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub alpha: Option<String>,
    /// +optional
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub beta: Option<String>,
    /// +optional
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub gamma: Option<i32>,
    /// +optional
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub delta: Option<i32>,
}

/// DialSpec overrides generated types and formats.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct DialSpec {
    /// Reading is stored as a string but typed as a number by marker.
    /// +kubebuilder:validation:Type=number
    /// +optional
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reading: Option<String>,
    /// Address is an IPv4 address.
    /// +kubebuilder:validation:Format=ipv4
    /// +optional
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub address: Option<String>,
    /// Since is a date string.
    /// +kubebuilder:validation:Format=date
    /// +optional
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub since: Option<String>,
    /// Uid is a UUID.
    /// +kubebuilder:validation:Format=uuid
    /// +optional
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub uid: Option<String>,
    /// Either is an int or a string.
    /// +kubebuilder:validation:XIntOrString
    /// +kubebuilder:validation:Type=""
    /// +optional
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub either: Option<String>,
    /// Meta is bounded in size.
    /// +kubebuilder:validation:MinProperties=1
    /// +kubebuilder:validation:MaxProperties=4
    /// +optional
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub meta: BTreeMap<String, String>,
    /// Choice picks one.
    /// +optional
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub choice: Option<Choice>,
    /// Version must not decrease.
    /// +kubebuilder:validation:XValidation:rule="!oldSelf.hasValue() || self >= oldSelf.value()",message="version may not decrease",optionalOldSelf=true
    /// +kubebuilder:validation:XValidation:rule="self < 1000",messageExpression="self >= 5000 ? 'version is far too large' : 'version is too large'"
    /// +optional
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub version: Option<i64>,
}

/// Dial is the Schema for the dials API.
/// +kubebuilder:object:root=true
/// +kubebuilder:validation:XValidation:rule="self.metadata.name.startsWith('dial-')",message="name must start with dial-"
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, Kind)]
pub struct Dial {
    #[serde(flatten)]
    pub type_meta: TypeMeta,
    #[serde(default)]
    pub metadata: ObjectMeta,
    #[serde(default)]
    pub spec: DialSpec,
}
