use k8s_openapi::api::apps::v1 as appsv1;
use k8s_openapi::api::autoscaling::v2 as autoscalingv2;
use k8s_openapi::api::batch::v1 as batchv1;
use k8s_openapi::api::core::v1 as corev1;
use k8s_openapi::api::networking::v1 as networkingv1;
use k8s_openapi::api::rbac::v1 as rbacv1;
use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;
use rkb_runtime::{Kind, TypeMeta};
use serde::{Deserialize, Serialize};

/// FleetSpec embeds types of several API groups.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct FleetSpec {
    /// Strategy for rolling out members.
    /// +optional
    #[serde(default)]
    pub strategy: appsv1::DeploymentStrategy,
    /// JobTemplate for batch members.
    /// +optional
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub job_template: Option<batchv1::JobTemplateSpec>,
    /// PodSpec used directly.
    /// +optional
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pod_spec: Option<corev1::PodSpec>,
    /// Labels and annotations stamped on members.
    /// +optional
    #[serde(default)]
    pub member_metadata: ObjectMeta,
    /// Rules route traffic.
    /// +optional
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub rules: Vec<networkingv1::IngressRule>,
    /// Metrics drive autoscaling.
    /// +optional
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub metrics: Vec<autoscalingv2::MetricSpec>,
    /// Permissions granted to members.
    /// +optional
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub permissions: Vec<rbacv1::PolicyRule>,
    /// Claim for storage.
    /// +optional
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub claim: Option<corev1::PersistentVolumeClaimSpec>,
    /// +optional
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub security_context: Option<corev1::PodSecurityContext>,
}

/// FleetStatus reports member deployments.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct FleetStatus {
    /// Deployment status of the main member.
    /// +optional
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub deployment: Option<appsv1::DeploymentStatus>,
    /// LastJob status.
    /// +optional
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub last_job: Option<batchv1::JobStatus>,
}

/// Fleet is the Schema for the fleets API.
/// +kubebuilder:object:root=true
/// +kubebuilder:subresource:status
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, Kind)]
pub struct Fleet {
    #[serde(flatten)]
    pub type_meta: TypeMeta,
    #[serde(default)]
    pub metadata: ObjectMeta,
    #[serde(default)]
    pub spec: FleetSpec,
    #[serde(default)]
    pub status: FleetStatus,
}
