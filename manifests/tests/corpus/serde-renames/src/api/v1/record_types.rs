use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;
use rkb_runtime::{Kind, TypeMeta};
use serde::{Deserialize, Serialize};

/// Severity uses kebab-case values.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Severity {
    VeryLow,
    Low,
    VeryHigh,
}

/// Code uses screaming snake case values.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
pub enum Code {
    NotFound,
    AlreadyExists,
    #[serde(rename = "OK")]
    Ok,
}

/// SnakeBlock has snake_case JSON names.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub struct SnakeBlock {
    /// First field.
    pub first_field: String,
    /// Second field.
    /// +optional
    pub second_field: Option<i32>,
}

/// Empty has no fields at all.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Empty {}

/// RecordSpec mixes naming styles.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RecordSpec {
    /// Severity of the record.
    pub severity: Severity,
    /// Code of the record.
    /// +optional
    pub code: Option<Code>,
    /// Snake is a snake_case block.
    /// +optional
    pub snake: Option<SnakeBlock>,
    /// URL keeps its spelling through an explicit rename.
    /// +optional
    #[serde(rename = "URL")]
    pub url: Option<String>,
    /// Marker is empty.
    /// +optional
    pub marker: Option<Empty>,
    /** Doc comes from a block doc comment.
    +optional */
    pub doc: Option<String>,
    #[doc = "Attr comes from a doc attribute."]
    #[doc = "+optional"]
    pub attr: Option<String>,
}

/// +kubebuilder:object:root=true
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, Kind)]
pub struct Record {
    #[serde(flatten)]
    pub type_meta: TypeMeta,
    #[serde(default)]
    pub metadata: ObjectMeta,
    #[serde(default)]
    pub spec: Option<RecordSpec>,
}
