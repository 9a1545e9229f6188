use k8s_openapi::api::core::v1::ContainerPort;
use k8s_openapi::api::discovery::v1::EndpointPort;
use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;
use rkb_runtime::{Kind, TypeMeta};
use serde::{Deserialize, Serialize};

/// SpliceSpec embeds two Kubernetes types whose fields share names (name, protocol): their shared
/// sub-schemas meet in one merge.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SpliceSpec {
    /// Size in gigabytes.
    pub size: i32,
    #[serde(flatten)]
    pub container_port: ContainerPort,
    #[serde(flatten)]
    pub endpoint_port: EndpointPort,
}

/// Splice is the Schema for the splices API.
/// +kubebuilder:object:root=true
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, Kind)]
pub struct Splice {
    #[serde(flatten)]
    pub type_meta: TypeMeta,
    #[serde(default)]
    pub metadata: ObjectMeta,
    #[serde(default)]
    pub spec: SpliceSpec,
}
