use std::collections::BTreeMap;

use k8s_openapi::api::core::v1::ResourceRequirements;
use k8s_openapi::apimachinery::pkg::apis::meta::v1::{Condition, ObjectMeta, Time};
use rkb_runtime::{Kind, TypeMeta};
use serde::{Deserialize, Serialize};

/// MicroServiceDeploySpec defines the desired state of MicroServiceDeploy
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct MicroServiceDeploySpec {
    /// MsName is the short name of the micro service.
    pub ms_name: String,
    /// FullName is the fully qualified name of the micro service.
    pub full_name: String,
    /// Version of the micro service to deploy.
    pub version: String,
    /// Path the service is exposed under.
    pub path: String,
    /// Image is the container image.
    pub image: String,
    /// Replicas is the desired number of pods.
    /// +kubebuilder:validation:Minimum=0
    /// +kubebuilder:default=1
    /// +optional
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub replicas: Option<i32>,
    /// Autoscaling enables the horizontal pod autoscaler.
    /// +optional
    #[serde(default)]
    pub autoscaling: bool,
    /// NeedAuth puts the service behind the auth gateway.
    /// +optional
    #[serde(default)]
    pub need_auth: bool,
    /// Config is passed to the service as environment variables.
    /// +optional
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub config: BTreeMap<String, String>,
    /// CreationTimestamp records when the deployment was requested.
    /// +optional
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub creation_timestamp: Option<Time>,
    /// ResourceRequirements of the service container.
    /// +optional
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub resource_requirements: Option<ResourceRequirements>,
    /// Idle scales the service to zero while true.
    /// +optional
    #[serde(default)]
    pub idle: bool,
}

/// MicroServiceDeployStatus defines the observed state of MicroServiceDeploy
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct MicroServiceDeployStatus {
    /// Conditions of the deployment.
    /// +listType=map
    /// +listMapKey=type
    /// +optional
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub conditions: Vec<Condition>,
}

/// MicroServiceDeploy is the Schema for the microservicedeploys API
/// +kubebuilder:object:root=true
/// +kubebuilder:subresource:status
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, Kind)]
pub struct MicroServiceDeploy {
    #[serde(flatten)]
    pub type_meta: TypeMeta,
    #[serde(default)]
    pub metadata: ObjectMeta,
    #[serde(default)]
    pub spec: MicroServiceDeploySpec,
    #[serde(default)]
    pub status: MicroServiceDeployStatus,
}
