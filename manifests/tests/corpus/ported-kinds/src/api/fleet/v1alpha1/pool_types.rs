use rkb_runtime::k8s_openapi::apimachinery::pkg::apis::meta::v1::{
    LabelSelector, ListMeta, ObjectMeta,
};
use rkb_runtime::{DeepCopy, Kind, TypeMeta};
use serde::{Deserialize, Serialize};

/// PoolSpec is the desired state of a Pool.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, DeepCopy)]
#[serde(rename_all = "camelCase")]
pub struct PoolSpec {
    /// Size is the number of machines the pool keeps.
    /// +kubebuilder:validation:Minimum=0
    pub size: i32,

    /// Selector picks the machines of the pool.
    pub selector: LabelSelector,

    /// Paused stops the pool from adding or removing machines.
    /// +optional
    #[serde(default)]
    pub paused: bool,
}

/// PoolStatus is the observed state of a Pool.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, DeepCopy)]
#[serde(rename_all = "camelCase")]
pub struct PoolStatus {
    /// Replicas is the number of machines in the pool.
    /// +optional
    #[serde(default)]
    pub replicas: i32,

    /// Selector is the label selector of the machines as a string, for the scale subresource.
    /// +optional
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub selector: String,
}

/// +kubebuilder:object:root=true
/// +kubebuilder:subresource:status
/// +kubebuilder:subresource:scale:specpath=.spec.size,statuspath=.status.replicas,selectorpath=.status.selector
/// +kubebuilder:resource:categories=fleet,shortName=mp
/// +kubebuilder:printcolumn:name="Size",type=integer,JSONPath=".spec.size"
/// +kubebuilder:printcolumn:name="Age",type=date,JSONPath=".metadata.creationTimestamp"
///
/// Pool is a set of interchangeable machines.
/// Its kind-level markers sit in their own comment block above the doc, as kubebuilder scaffolds them.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, Kind)]
pub struct Pool {
    #[serde(flatten)]
    pub type_meta: TypeMeta,
    #[serde(default)]
    pub metadata: ObjectMeta,

    #[serde(default)]
    pub spec: PoolSpec,
    #[serde(default)]
    pub status: PoolStatus,
}

/// +kubebuilder:object:root=true
///
/// PoolList contains a list of Pool.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, DeepCopy)]
pub struct PoolList {
    #[serde(flatten)]
    pub type_meta: TypeMeta,
    #[serde(default)]
    pub metadata: ListMeta,
    pub items: Vec<Pool>,
}
