use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;
use rkb_runtime::{DeepCopy, Kind, TypeMeta};
use serde::{Deserialize, Serialize};

/// GadgetSpec defines the desired state of Gadget.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, DeepCopy)]
#[serde(rename_all = "camelCase")]
pub struct GadgetSpec {
    /// Size of the gadget.
    pub size: i32,
}

/// Gadget is a namespaced kind without a status subresource: its client has no status verbs.
/// +genclient
/// +genclient:noStatus
/// +kubebuilder:object:root=true
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, Kind)]
pub struct Gadget {
    #[serde(flatten)]
    pub type_meta: TypeMeta,
    #[serde(default)]
    pub metadata: ObjectMeta,
    pub spec: GadgetSpec,
}
