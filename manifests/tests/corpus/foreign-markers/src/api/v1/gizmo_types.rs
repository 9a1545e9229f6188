use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;
use rkb_runtime::{Kind, TypeMeta};
use serde::{Deserialize, Serialize};

/// GizmoSpec is a union of sources.
/// +union
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct GizmoSpec {
    /// Kind of source set.
    /// +unionDiscriminator
    /// +k8s:conversion-gen=false
    pub kind: String,
    /// URL source.
    /// +optional
    /// +k8s:optional
    /// +featureGate=GizmoURL
    pub url: Option<String>,
    /// Inline source.
    /// +optional
    /// +protobuf.nullable=true
    pub inline: Option<String>,
}

/// Gizmo is the Schema for the gizmos API.
/// +genclient
/// +genclient:nonNamespaced
/// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object
/// +k8s:prerelease-lifecycle-gen:introduced=1.30
/// +k8s:openapi-gen=true
/// +protobuf=true
/// +kubebuilder:object:root=true
/// +kubebuilder:resource:scope=Cluster
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, Kind)]
pub struct Gizmo {
    #[serde(flatten)]
    pub type_meta: TypeMeta,
    #[serde(default)]
    pub metadata: ObjectMeta,
    pub spec: GizmoSpec,
}
