use k8s_openapi::api::core::v1 as corev1;
use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;
use rkb_runtime::{Kind, TypeMeta};
use serde::{Deserialize, Serialize};

/// WorkloadSpec embeds core/v1 types.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct WorkloadSpec {
    /// Template of the pods.
    pub template: corev1::PodTemplateSpec,
    /// Sidecar container added to every pod.
    /// +optional
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sidecar: Option<corev1::Container>,
    /// InitContainers run first.
    /// +optional
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub init_containers: Vec<corev1::Container>,
    /// Resources for the sidecar.
    /// +optional
    #[serde(default)]
    pub resources: corev1::ResourceRequirements,
    /// Env is added to every container.
    /// +optional
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub env: Vec<corev1::EnvVar>,
    /// Volumes are mounted into the sidecar.
    /// +optional
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub volumes: Vec<corev1::Volume>,
    /// Tolerations for the pods.
    /// +optional
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tolerations: Vec<k8s_openapi::api::core::v1::Toleration>,
    /// Affinity of the pods.
    /// +optional
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub affinity: Option<corev1::Affinity>,
    /// PullSecret for the images.
    /// +optional
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pull_secret: Option<corev1::LocalObjectReference>,
    /// Ports exposed by the service.
    /// +optional
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub ports: Vec<corev1::ServicePort>,
    /// +optional
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub probe: Option<corev1::Probe>,
}

/// WorkloadStatus refers to objects.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct WorkloadStatus {
    /// Pods created.
    /// +optional
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub pods: Vec<corev1::ObjectReference>,
}

/// Workload is the Schema for the workloads API.
/// +kubebuilder:object:root=true
/// +kubebuilder:subresource:status
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, Kind)]
pub struct Workload {
    #[serde(flatten)]
    pub type_meta: TypeMeta,
    #[serde(default)]
    pub metadata: ObjectMeta,
    #[serde(default)]
    pub spec: WorkloadSpec,
    #[serde(default)]
    pub status: WorkloadStatus,
}
