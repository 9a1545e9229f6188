use rkb_runtime::k8s_openapi::apimachinery::pkg::apis::meta::v1::{
    Condition, ListMeta, ObjectMeta,
};
use rkb_runtime::{DeepCopy, Kind, TypeMeta};
use serde::{Deserialize, Serialize};

// The kind-level markers below sit on MachineSpec, not on Machine: controller-gen ignores them there, and
// still makes a CRD for Machine because it embeds TypeMeta and ObjectMeta (namespaced, no status subresource).

/// +kubebuilder:object:root=true
/// +kubebuilder:subresource:status
/// +kubebuilder:resource:scope=Cluster,shortName=mach

/// MachineSpec describes the host a Machine stands for.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, DeepCopy)]
#[serde(rename_all = "camelCase")]
pub struct MachineSpec {
    /// ProviderID identifies the host at its infrastructure provider.
    /// +kubebuilder:validation:MinLength=1
    #[serde(rename = "providerID")]
    pub provider_id: String,

    /// Roles the host takes in the fleet.
    /// +optional
    /// +listType=set
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub roles: Vec<String>,

    /// Template the host was created from, if any.
    /// +optional
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub template: Option<MachineTemplate>,
}

/// MachineTemplate is what a host is created from: the labels and annotations of its Machine, and its image.
/// It embeds ObjectMeta but not TypeMeta, so it is no kind.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, DeepCopy)]
#[serde(rename_all = "camelCase")]
pub struct MachineTemplate {
    /// Standard object's metadata.
    /// +optional
    #[serde(default)]
    pub metadata: ObjectMeta,

    /// Image the host boots.
    pub image: String,
}

/// MachineStatus is the observed state of a Machine.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, DeepCopy)]
#[serde(rename_all = "camelCase")]
pub struct MachineStatus {
    /// Ready is true once the host has joined the fleet.
    /// +optional
    #[serde(default)]
    pub ready: bool,

    /// Conditions of the host.
    /// +optional
    /// +listType=map
    /// +listMapKey=type
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub conditions: Vec<Condition>,
}

/// Machine is a host of the fleet.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, Kind)]
pub struct Machine {
    #[serde(flatten)]
    pub type_meta: TypeMeta,
    #[serde(default)]
    pub metadata: ObjectMeta,

    #[serde(default)]
    pub spec: MachineSpec,
    #[serde(default)]
    pub status: MachineStatus,
}

/// +kubebuilder:object:root=true

/// MachineList contains a list of Machine.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, DeepCopy)]
pub struct MachineList {
    #[serde(flatten)]
    pub type_meta: TypeMeta,
    #[serde(default)]
    pub metadata: ListMeta,
    pub items: Vec<Machine>,
}
