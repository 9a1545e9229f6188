use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;
use rkb_runtime::{Kind, TypeMeta};
use serde::{Deserialize, Serialize};

/// MemoSpec has docs with odd spacing.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct MemoSpec {
    ///
    /// Title has blank doc lines around it.
    ///
    ///    +kubebuilder:validation:MinLength=1
    pub title: String,
    ///	Body starts with a tab.
    ///	Second line too.
    /// +optional
    pub body: Option<String>,
    ///     Indented by five spaces.
    /// Then not indented.
    /// +optional
    pub indented: Option<String>,
    /// +optional
    ///
    /// Marker first, then a blank line, then the doc.
    pub after: Option<String>,
}

/// Memo is the Schema for the memos API.
/// +kubebuilder:object:root=true
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, Kind)]
pub struct Memo {
    #[serde(flatten)]
    pub type_meta: TypeMeta,
    #[serde(default)]
    pub metadata: ObjectMeta,
    #[serde(default)]
    pub spec: MemoSpec,
}
