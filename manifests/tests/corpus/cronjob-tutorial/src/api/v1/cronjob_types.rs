use k8s_openapi::api::batch::v1::JobTemplateSpec;
use k8s_openapi::api::core::v1::ObjectReference;
use k8s_openapi::apimachinery::pkg::apis::meta::v1::{Condition, ObjectMeta, Time};
use rkb_runtime::{Kind, TypeMeta};
use serde::{Deserialize, Serialize};

/// CronJobSpec defines the desired state of CronJob
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CronJobSpec {
    /// schedule in Cron format, see https://en.wikipedia.org/wiki/Cron.
    /// +kubebuilder:validation:MinLength=0
    /// +required
    pub schedule: String,

    /// startingDeadlineSeconds defines in seconds for starting the job if it misses scheduled
    /// time for any reason.  Missed jobs executions will be counted as failed ones.
    /// +optional
    /// +kubebuilder:validation:Minimum=0
    pub starting_deadline_seconds: Option<i64>,

    /// concurrencyPolicy specifies how to treat concurrent executions of a Job.
    /// Valid values are:
    /// - "Allow" (default): allows CronJobs to run concurrently;
    /// - "Forbid": forbids concurrent runs, skipping next run if previous run hasn't finished yet;
    /// - "Replace": cancels currently running job and replaces it with a new one
    /// +optional
    /// +kubebuilder:default:=Allow
    pub concurrency_policy: Option<ConcurrencyPolicy>,

    /// suspend tells the controller to suspend subsequent executions, it does
    /// not apply to already started executions.  Defaults to false.
    /// +optional
    pub suspend: Option<bool>,

    /// jobTemplate defines the job that will be created when executing a CronJob.
    /// +required
    pub job_template: JobTemplateSpec,

    /// successfulJobsHistoryLimit defines the number of successful finished jobs to retain.
    /// This is a pointer to distinguish between explicit zero and not specified.
    /// +optional
    /// +kubebuilder:validation:Minimum=0
    pub successful_jobs_history_limit: Option<i32>,

    /// failedJobsHistoryLimit defines the number of failed finished jobs to retain.
    /// This is a pointer to distinguish between explicit zero and not specified.
    /// +optional
    /// +kubebuilder:validation:Minimum=0
    pub failed_jobs_history_limit: Option<i32>,
}

/// ConcurrencyPolicy describes how the job will be handled.
/// Only one of the following concurrent policies may be specified.
/// If none of the following policies is specified, the default one
/// is AllowConcurrent.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub enum ConcurrencyPolicy {
    /// AllowConcurrent allows CronJobs to run concurrently.
    #[default]
    Allow,
    /// ForbidConcurrent forbids concurrent runs.
    Forbid,
    /// ReplaceConcurrent cancels currently running job and replaces it with a new one.
    Replace,
}

/// CronJobStatus defines the observed state of CronJob.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CronJobStatus {
    /// active defines a list of pointers to currently running jobs.
    /// +optional
    /// +listType=atomic
    /// +kubebuilder:validation:MinItems=1
    /// +kubebuilder:validation:MaxItems=10
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub active: Vec<ObjectReference>,

    /// lastScheduleTime defines when was the last time the job was successfully scheduled.
    /// +optional
    pub last_schedule_time: Option<Time>,

    /// conditions represent the current state of the CronJob resource.
    /// +listType=map
    /// +listMapKey=type
    /// +optional
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub conditions: Vec<Condition>,
}

/// CronJob is the Schema for the cronjobs API
/// +kubebuilder:object:root=true
/// +kubebuilder:subresource:status
/// +versionName=v1
/// +kubebuilder:storageversion
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, Kind)]
pub struct CronJob {
    /// metadata is a standard object metadata
    /// +optional
    #[serde(flatten)]
    pub type_meta: TypeMeta,
    /// +optional
    #[serde(default)]
    pub metadata: ObjectMeta,
    /// spec defines the desired state of CronJob
    /// +required
    pub spec: CronJobSpec,
    /// status defines the observed state of CronJob
    /// +optional
    #[serde(default)]
    pub status: Option<CronJobStatus>,
}
