use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;
use rkb_runtime::{Kind, TypeMeta};
use serde::{Deserialize, Serialize};

/// Common fields are inlined into several structs.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Common {
    /// Owner of the object.
    pub owner: String,
    /// Team of the owner.
    /// +optional
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub team: Option<String>,
}

/// Leaf is the innermost struct.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Leaf {
    /// Value of the leaf.
    pub value: String,
}

/// Branch nests a leaf.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Branch {
    /// Leaf of the branch.
    pub leaf: Leaf,
    /// Spare leaf, boxed.
    /// +optional
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub spare: Option<Box<Leaf>>,
    /// Leaves of the branch.
    /// +optional
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub leaves: Vec<Leaf>,
}

/// Name is an alias of string.
pub type Name = String;

/// Names is an alias of a list.
pub type Names = Vec<Name>;

/// TreeSpec uses local structs, aliases, inlining and skipped fields.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TreeSpec {
    #[serde(flatten)]
    pub common: Common,
    /// Trunk of the tree.
    pub trunk: Box<Branch>,
    /// Crown is optional.
    /// +optional
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub crown: Option<Box<Branch>>,
    /// Species name.
    pub species: Name,
    /// Aliases of the tree.
    /// +optional
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub aliases: Names,
    /// Internal state is not part of the API.
    #[serde(skip)]
    pub internal: String,
    /// Undocumented leaf.
    /// +optional
    #[serde(default)]
    pub undocumented: Leaf,
}

/// TreeStatus has a field with no documentation at all.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TreeStatus {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub height: Option<i32>,
}

/// Tree is the Schema for the trees API.
/// +kubebuilder:object:root=true
/// +kubebuilder:subresource:status
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, Kind)]
pub struct Tree {
    #[serde(flatten)]
    pub type_meta: TypeMeta,
    #[serde(default)]
    pub metadata: ObjectMeta,
    /// Spec has a doc comment of its own.
    #[serde(default)]
    pub spec: TreeSpec,
    #[serde(default)]
    pub status: TreeStatus,
}
