use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;
use rkb_runtime::{Kind, TypeMeta};
use serde::{Deserialize, Serialize};

/// FormSpec is in a package whose fields are optional by default.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct FormSpec {
    /// Title has no omitempty but the package default makes it optional.
    pub title: String,
    /// Body is required by the kubebuilder marker.
    /// +kubebuilder:validation:Required
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub body: String,
    /// Footer is required by the short marker.
    /// +required
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub footer: String,
    /// Author is required by the k8s marker.
    /// +k8s:required
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub author: String,
    /// Note is optional by the kubebuilder marker.
    /// +kubebuilder:validation:Optional
    pub note: String,
    /// Hint is optional by the k8s marker.
    /// +k8s:optional
    pub hint: String,
    /// Tags may be null.
    /// +nullable
    /// +optional
    pub tags: Option<Vec<String>>,
    /// Extra may be null.
    /// +nullable
    /// +optional
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub extra: Option<FormExtra>,
}

/// FormExtra is in the same package, so its fields are optional too.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct FormExtra {
    /// Key is optional by package default.
    pub key: String,
    /// Value is required.
    /// +required
    pub value: String,
}

/// Form is the Schema for the forms API.
/// +kubebuilder:object:root=true
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, Kind)]
pub struct Form {
    #[serde(flatten)]
    pub type_meta: TypeMeta,
    #[serde(default)]
    pub metadata: ObjectMeta,
    /// +required
    pub spec: FormSpec,
}
