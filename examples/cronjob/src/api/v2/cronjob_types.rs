// Copyright 2026 The rkb authors.
//
// Licensed under the Apache License, Version 2.0 (the "License");
// you may not use this file except in compliance with the License.
// You may obtain a copy of the License at
//
//     http://www.apache.org/licenses/LICENSE-2.0
//
// Unless required by applicable law or agreed to in writing, software
// distributed under the License is distributed on an "AS IS" BASIS,
// WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
// See the License for the specific language governing permissions and
// limitations under the License.

//! CronJob v2: v1 with the schedule split into its cron fields (kubebuilder's multi-version tutorial). The API
//! server stores v1; src/api/v2/cronjob_conversion.rs converts between them.

use rkb_runtime::k8s_openapi::api::batch::v1::JobTemplateSpec;
use rkb_runtime::k8s_openapi::api::core::v1::ObjectReference;
use rkb_runtime::k8s_openapi::apimachinery::pkg::apis::meta::v1::{Condition, ObjectMeta, Time};
use rkb_runtime::{DeepCopy, Kind, TypeMeta};
use serde::{Deserialize, Serialize};

/// CronJobSpec is what a CronJob asks for: which Job to run, when, and how many finished ones to keep.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, DeepCopy)]
#[serde(rename_all = "camelCase")]
pub struct CronJobSpec {
    /// schedule is when to run, one field per part of a cron expression; a field left out means every value.
    /// +required
    pub schedule: CronSchedule,

    /// startingDeadlineSeconds is how late, in seconds, a run may still start after its scheduled time. A run
    /// missed by more is skipped and reported in the Degraded condition.
    /// +optional
    /// +kubebuilder:validation:Minimum=0
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub starting_deadline_seconds: Option<i64>,

    /// concurrencyPolicy says what happens when a run is due while an earlier Job is still running:
    /// Allow (the default) runs both, Forbid skips the new run, Replace deletes the running Job first.
    /// +optional
    /// +kubebuilder:default:=Allow
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub concurrency_policy: Option<ConcurrencyPolicy>,

    /// suspend stops future runs while true; Jobs already started keep running. Defaults to false.
    /// +optional
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub suspend: Option<bool>,

    /// jobTemplate is the Job each run creates.
    /// +required
    pub job_template: JobTemplateSpec,

    /// successfulJobsHistoryLimit is how many succeeded Jobs to keep (older ones are deleted). Unset and 0
    /// differ: unset keeps them all until the defaulting webhook sets 3.
    /// +optional
    /// +kubebuilder:validation:Minimum=0
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub successful_jobs_history_limit: Option<i32>,

    /// failedJobsHistoryLimit is how many failed Jobs to keep (older ones are deleted). Unset and 0 differ:
    /// unset keeps them all until the defaulting webhook sets 1.
    /// +optional
    /// +kubebuilder:validation:Minimum=0
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub failed_jobs_history_limit: Option<i32>,
}

/// CronSchedule is a cron expression spelled out field by field.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, DeepCopy)]
#[serde(rename_all = "camelCase")]
pub struct CronSchedule {
    /// minute of the hour (0-59).
    /// +optional
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub minute: Option<CronField>,
    /// hour of the day (0-23).
    /// +optional
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub hour: Option<CronField>,
    /// dayOfMonth, 1-31.
    /// +optional
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub day_of_month: Option<CronField>,
    /// month, 1-12 or JAN-DEC.
    /// +optional
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub month: Option<CronField>,
    /// dayOfWeek, 0-6 (Sunday is 0) or SUN-SAT.
    /// +optional
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub day_of_week: Option<CronField>,
}

/// CronField is one field of a cron expression: a value, a range (1-5), a list (1,15), a step (*/10) or *.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize, DeepCopy)]
#[serde(transparent)]
pub struct CronField(pub String);

/// ConcurrencyPolicy is what to do with a run that is due while an earlier Job of the same CronJob still runs.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize, DeepCopy)]
pub enum ConcurrencyPolicy {
    /// Allow runs Jobs side by side.
    #[default]
    Allow,
    /// Forbid skips the run while an earlier Job is active.
    Forbid,
    /// Replace deletes the active Jobs, then starts the new one.
    Replace,
}

/// CronJobStatus is what the controller observed: the running Jobs and the last scheduled run.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, DeepCopy)]
#[serde(rename_all = "camelCase")]
pub struct CronJobStatus {
    /// active references the Jobs of this CronJob that are still running.
    /// +optional
    /// +listType=atomic
    /// +kubebuilder:validation:MinItems=1
    /// +kubebuilder:validation:MaxItems=10
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub active: Vec<ObjectReference>,

    /// lastScheduleTime is the scheduled time of the most recent Job this CronJob created.
    /// +optional
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub last_schedule_time: Option<Time>,

    /// conditions are Available, Progressing and Degraded, each True, False or Unknown with a reason.
    /// +listType=map
    /// +listMapKey=type
    /// +optional
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub conditions: Vec<Condition>,
}

/// CronJob runs a Job on a cron schedule (v2, served and converted to v1 for storage).
/// +kubebuilder:object:root=true
/// +kubebuilder:subresource:status
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, Kind)]
pub struct CronJob {
    #[serde(flatten)]
    pub type_meta: TypeMeta,

    /// metadata is a standard object metadata
    /// +optional
    #[serde(default)]
    pub metadata: ObjectMeta,

    /// spec defines the desired state of CronJob
    /// +required
    pub spec: CronJobSpec,

    /// status defines the observed state of CronJob
    /// +optional
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status: Option<CronJobStatus>,
}
