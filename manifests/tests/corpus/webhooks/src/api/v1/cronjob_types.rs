use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;
use rkb_runtime::{Kind, TypeMeta};
use serde::{Deserialize, Serialize};

/// CronJobSpec is what the webhooks default and validate.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct CronJobSpec {
    /// Schedule in cron format.
    pub schedule: String,
}

/// CronJob is the Schema for the cronjobs API.
/// +kubebuilder:object:root=true
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, Kind)]
pub struct CronJob {
    #[serde(flatten)]
    pub type_meta: TypeMeta,
    #[serde(default)]
    pub metadata: ObjectMeta,
    #[serde(default)]
    pub spec: CronJobSpec,
}
