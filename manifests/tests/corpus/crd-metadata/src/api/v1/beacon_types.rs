use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;
use rkb_runtime::{Kind, TypeMeta};
use serde::{Deserialize, Serialize};

/// BeaconSpec is the desired state.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct BeaconSpec {
    /// Color of the beacon.
    pub color: String,
    /// Channel the beacon uses.
    /// +optional
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub channel: Option<i32>,
}

/// Beacon carries CRD annotations and labels, and selectable fields.
/// +kubebuilder:object:root=true
/// +kubebuilder:metadata:annotations="api-approved.kubernetes.io=https://example.com/pull/1"
/// +kubebuilder:metadata:annotations="example.com/owner=team-a"
/// +kubebuilder:metadata:labels="app.kubernetes.io/part-of=corpus"
/// +kubebuilder:metadata:labels="tier=backend"
/// +kubebuilder:selectablefield:JSONPath=`.spec.color`
/// +kubebuilder:selectablefield:JSONPath=`.spec.channel`
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, Kind)]
pub struct Beacon {
    #[serde(flatten)]
    pub type_meta: TypeMeta,
    #[serde(default)]
    pub metadata: ObjectMeta,
    #[serde(default)]
    pub spec: BeaconSpec,
}
