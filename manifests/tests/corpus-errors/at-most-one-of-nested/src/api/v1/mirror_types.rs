use k8s_openapi::apimachinery::pkg::apis::meta::v1::{ListMeta, ObjectMeta};
use rkb_runtime::{Kind, TypeMeta};
use serde::{Deserialize, Serialize};

/// +kubebuilder:object:root=true
/// +kubebuilder:subresource:status
/// +kubebuilder:resource:singular=mirror

/// MirrorSpec says what a Mirror copies. The marker names the source fields through their parent:
/// controller-gen refuses a OneOf marker over nested fields.
/// +kubebuilder:validation:AtMostOneOf=source.git;source.oci
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct MirrorSpec {
    /// Source to copy from.
    /// +optional
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub source: Option<MirrorSource>,
}

/// MirrorSource is where a Mirror copies from.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct MirrorSource {
    /// Git is the URL of a Git repository.
    /// +optional
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub git: Option<String>,

    /// OCI is the reference of an OCI artifact.
    /// +optional
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub oci: Option<String>,
}

/// Mirror copies artifacts from a source. It has no root marker (the group above sits on MirrorSpec): it is a
/// kind because it embeds TypeMeta and ObjectMeta.
#[derive(Clone, Debug, Default, Serialize, Deserialize, Kind)]
pub struct Mirror {
    #[serde(flatten)]
    pub type_meta: TypeMeta,
    #[serde(default)]
    pub metadata: ObjectMeta,

    pub spec: MirrorSpec,
}

/// +kubebuilder:object:root=true

/// MirrorList contains a list of Mirror.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct MirrorList {
    #[serde(flatten)]
    pub type_meta: TypeMeta,
    #[serde(default)]
    pub metadata: ListMeta,
    pub items: Vec<Mirror>,
}
