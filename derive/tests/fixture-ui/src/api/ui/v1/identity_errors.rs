// Tags that contradict the CRD: errors on the marker line, found only by reading the project.
use rkb_runtime::k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;
use rkb_runtime::{DeepCopy, Kind, TypeMeta};
use serde::{Deserialize, Serialize};

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, DeepCopy)]
pub struct Spec {
    pub size: i32,
}

/// The default verbs include updateStatus and applyStatus, but there is no status subresource.
/// +genclient
/// +kubebuilder:object:root=true
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, Kind)]
pub struct NoStatusSubresource {
    #[serde(flatten)]
    pub type_meta: TypeMeta,
    #[serde(default)]
    pub metadata: ObjectMeta,
    pub spec: Spec,
}

/// onlyVerbs asks for updateStatus; the CRD has no status subresource.
/// +genclient
/// +genclient:onlyVerbs=get,updateStatus
/// +kubebuilder:object:root=true
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, Kind)]
pub struct OnlyStatusVerb {
    #[serde(flatten)]
    pub type_meta: TypeMeta,
    #[serde(default)]
    pub metadata: ObjectMeta,
    pub spec: Spec,
}

/// A cluster-scoped client for a kind whose CRD is Namespaced (no resource:scope=Cluster).
/// +genclient
/// +genclient:nonNamespaced
/// +genclient:noStatus
/// +kubebuilder:object:root=true
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, Kind)]
pub struct NotCluster {
    #[serde(flatten)]
    pub type_meta: TypeMeta,
    #[serde(default)]
    pub metadata: ObjectMeta,
    pub spec: Spec,
}

fn main() {}
