use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;
use rkb_runtime::{Kind, TypeMeta};
use serde::{Deserialize, Serialize};

/// AppServiceSpec defines the desired state of AppService
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct AppServiceSpec {
    /// Replicas is the number of pods to run.
    pub replicas: i32,
}

/// AppServiceStatus defines the observed state of AppService
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct AppServiceStatus {
    /// AvailableReplicas is the number of ready pods.
    pub available_replicas: i32,
}

/// AppService is the Schema for the appservices API
/// +kubebuilder:object:root=true
/// +kubebuilder:subresource:status
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, Kind)]
pub struct AppService {
    #[serde(flatten)]
    pub type_meta: TypeMeta,
    #[serde(default)]
    pub metadata: ObjectMeta,
    #[serde(default)]
    pub spec: AppServiceSpec,
    #[serde(default)]
    pub status: AppServiceStatus,
}
