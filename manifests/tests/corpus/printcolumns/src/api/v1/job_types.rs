use k8s_openapi::apimachinery::pkg::apis::meta::v1::{ObjectMeta, Time};
use rkb_runtime::{Kind, TypeMeta};
use serde::{Deserialize, Serialize};

/// BackupJobSpec is the desired state.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct BackupJobSpec {
    /// Schedule in cron format.
    pub schedule: String,
    /// Target bucket.
    pub target: String,
}

/// BackupJobStatus is the observed state.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct BackupJobStatus {
    /// Phase of the job.
    /// +optional
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub phase: Option<String>,
    /// Succeeded runs.
    /// +optional
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub succeeded: Option<i32>,
    /// LastRun time.
    /// +optional
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub last_run: Option<Time>,
}

/// BackupJob shows extra columns in kubectl get.
/// +kubebuilder:object:root=true
/// +kubebuilder:subresource:status
/// +kubebuilder:printcolumn:name="Schedule",type=string,JSONPath=`.spec.schedule`
/// +kubebuilder:printcolumn:name="Target",type=string,JSONPath=`.spec.target`,description="Bucket written to",priority=1
/// +kubebuilder:printcolumn:name="Phase",type=string,JSONPath=`.status.phase`
/// +kubebuilder:printcolumn:name="Succeeded",type=integer,JSONPath=`.status.succeeded`,format=int32
/// +kubebuilder:printcolumn:name="Last Run",type=date,JSONPath=`.status.lastRun`
/// +kubebuilder:printcolumn:name="Age",type="date",JSONPath=".metadata.creationTimestamp"
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, Kind)]
pub struct BackupJob {
    #[serde(flatten)]
    pub type_meta: TypeMeta,
    #[serde(default)]
    pub metadata: ObjectMeta,
    #[serde(default)]
    pub spec: BackupJobSpec,
    #[serde(default)]
    pub status: BackupJobStatus,
}
