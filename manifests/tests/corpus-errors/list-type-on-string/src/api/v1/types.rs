use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;
use rkb_runtime::{Kind, TypeMeta};
use serde::{Deserialize, Serialize};

/// ThingSpec is the spec.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ThingSpec {
    /// Name is not a list.
    /// +listType=set
    pub name: String,
}

/// Thing is a kind.
/// +kubebuilder:object:root=true
#[derive(Clone, Debug, Default, Serialize, Deserialize, Kind)]
pub struct Thing {
    #[serde(flatten)]
    pub type_meta: TypeMeta,
    #[serde(default)]
    pub metadata: ObjectMeta,
    pub spec: ThingSpec,
}
