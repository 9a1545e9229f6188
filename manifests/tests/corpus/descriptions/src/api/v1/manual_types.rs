use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;
use rkb_runtime::{Kind, TypeMeta};
use serde::{Deserialize, Serialize};

/// ManualSpec documents its fields in many styles.
///
/// It has a second paragraph.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ManualSpec {
    /// Chapters has a multi-line description
    /// that wraps over lines,
    ///
    /// with a blank line between paragraphs.
    ///
    ///
    /// Two blank lines collapse into one.
    pub chapters: i32,
    /// Index lists:
    ///   - indented bullet one
    ///   - indented bullet two
    ///
    /// and "quotes", 'apostrophes', colons: here, #hashes and trailing spaces.   
    /// +optional
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub index: Vec<String>,
    /// Example shows a code block that keeps a TODO line:
    /// ```yaml
    /// key: value
    /// TODO inside code stays
    /// ```
    /// TODO outside code is dropped
    /// After the code block.
    /// +optional
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub example: Option<String>,
    /// Cut keeps text before the separator.
    /// ---
    /// Everything after three dashes is dropped.
    /// +optional
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cut: Option<String>,
    ///Tight has no space after the slashes.
    /// +optional
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tight: Option<String>,
    /// Unicode: naïve café — “smart quotes” → arrows.
    /// +optional
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub unicode: Option<String>,
    /// Long line: Lorem ipsum dolor sit amet, consectetur adipiscing elit, sed do eiusmod tempor incididunt ut labore et dolore magna aliqua. Ut enim ad minim veniam.
    /// +optional
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub long: Option<String>,
    /// +kubebuilder:validation:MinLength=1
    /// Markers may come first; the doc still reads as the description.
    /// +optional
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub marker_first: Option<String>,
}

/// Manual is the Schema for the manuals API.
///
/// TODO: a type-level TODO is dropped.
/// It documents the docs.
/// +kubebuilder:object:root=true
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, Kind)]
pub struct Manual {
    #[serde(flatten)]
    pub type_meta: TypeMeta,
    #[serde(default)]
    pub metadata: ObjectMeta,
    #[serde(default)]
    pub spec: ManualSpec,
}
