use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;
use rkb_runtime::{Kind, TypeMeta};
use serde::{Deserialize, Serialize};

/// WorkerSpec is the desired state.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct WorkerSpec {
    /// Replicas wanted.
    /// +optional
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub replicas: Option<i32>,
}

/// WorkerStatus is the observed state.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct WorkerStatus {
    /// Replicas running.
    pub replicas: i32,
    /// Selector for the pods, in string form.
    /// +optional
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub selector: Option<String>,
}

/// Worker scales like a Deployment.
/// +kubebuilder:object:root=true
/// +kubebuilder:subresource:status
/// +kubebuilder:subresource:scale:specpath=.spec.replicas,statuspath=.status.replicas,selectorpath=.status.selector
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, Kind)]
pub struct Worker {
    #[serde(flatten)]
    pub type_meta: TypeMeta,
    #[serde(default)]
    pub metadata: ObjectMeta,
    #[serde(default)]
    pub spec: WorkerSpec,
    #[serde(default)]
    pub status: WorkerStatus,
}

/// Runner has a scale subresource without a selector and no status subresource.
/// +kubebuilder:object:root=true
/// +kubebuilder:subresource:scale:specpath=.spec.replicas,statuspath=.status.replicas
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, Kind)]
pub struct Runner {
    #[serde(flatten)]
    pub type_meta: TypeMeta,
    #[serde(default)]
    pub metadata: ObjectMeta,
    #[serde(default)]
    pub spec: WorkerSpec,
    #[serde(default)]
    pub status: WorkerStatus,
}
