use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;
use rkb_runtime::{Kind, TypeMeta};
use serde::{Deserialize, Serialize};

/// NoteSpec has docs with lines that look like markers.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct NoteSpec {
    /// Votes counts votes:
    /// +1 lines are read as markers and dropped,
    /// as are +kubebuilder lines.
    /// (parenthesised +1 stays).
    /// +optional
    pub votes: Option<i32>,
    /// Text of the note.
    /// +kubebuilder:validation:MaxLength=280
    pub text: String,
}

/// Note is the Schema for the notes API.
/// +kubebuilder:object:root=true
/// +kubebuilder:resource:scope=Cluster,shortName=nt
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, Kind)]
pub struct Note {
    #[serde(flatten)]
    pub type_meta: TypeMeta,
    #[serde(default)]
    pub metadata: ObjectMeta,
    pub spec: NoteSpec,
}
