use k8s_openapi::api::core::v1 as corev1;
use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;
use rkb_runtime::{Kind, TypeMeta};
use serde::{Deserialize, Serialize};

use crate::api::shared::{self, Container};

/// PipelineSpec uses types from another package of the project.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PipelineSpec {
    /// Steps run in order.
    pub steps: Vec<Container>,
    /// Retry policy.
    /// +optional
    pub retry: Option<shared::Retry>,
    /// Sidecar is the Kubernetes container type.
    /// +optional
    pub sidecar: Option<corev1::Container>,
}

/// Pipeline is the Schema for the pipelines API.
/// +kubebuilder:object:root=true
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, Kind)]
pub struct Pipeline {
    #[serde(flatten)]
    pub type_meta: TypeMeta,
    #[serde(default)]
    pub metadata: ObjectMeta,
    #[serde(default)]
    pub spec: PipelineSpec,
}
