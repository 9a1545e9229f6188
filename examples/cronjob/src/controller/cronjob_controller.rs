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

//! Reconciles CronJobs: starts a Job at each scheduled run, keeps the status current and deletes finished Jobs
//! beyond the history limits (kubebuilder's tutorial controller, in Rust).
//!
//! Each reconcile of a CronJob:
//! 1. lists its Jobs (those whose controller reference is the CronJob) and sorts them, oldest run first, into
//!    active, succeeded and failed by their `Complete` and `Failed` conditions;
//! 2. deletes the oldest finished Jobs beyond `successfulJobsHistoryLimit` and `failedJobsHistoryLimit`;
//! 3. unless suspended, starts the latest run that is due and has not started: skipped when it is later than
//!    `startingDeadlineSeconds` (Degraded, `MissedSchedule`) or, with `Forbid`, while a Job runs; with `Replace`
//!    the running Jobs are deleted first;
//! 4. writes the status (the active Jobs, the last run started, Available/Progressing/Degraded) when it changed,
//!    and asks to be reconciled again at the next run.
//!
//! Guarantees: a run starts at most once, as its Job is named `<cronjob>-<unix seconds of the run>` and a second
//! create of that name is refused by the API server (and ignored here). Time comes from a [`Clock`], so tests can
//! move it. Where this differs from kubebuilder's tutorial: after many missed runs (the operator was down) the
//! latest one starts, as Kubernetes' own CronJob controller does, where the tutorial gives up beyond 100;
//! `lastScheduleTime` never moves back, even when the history limits have deleted every Job (the tutorial then
//! forgets it and starts the last run again); Progressing and Degraded turn False again when nothing runs or
//! fails. Caveat: Jobs are listed from the API server on each reconcile (the tutorial reads an indexed cache).

use std::sync::Arc;
use std::time::Duration;

use jiff::Timestamp;
use rkb_runtime::apply::{apply_status, controller_of, controller_owner_ref, delete_if_exists};
use rkb_runtime::conditions::{new_condition, set_condition};
use rkb_runtime::k8s_openapi::api::batch::v1::Job;
use rkb_runtime::k8s_openapi::api::core::v1::ObjectReference;
use rkb_runtime::k8s_openapi::apimachinery::pkg::apis::meta::v1::{ObjectMeta, Time};
use rkb_runtime::kube::api::{ListParams, PostParams};
use rkb_runtime::{Action, Api, BoxError, Context, Controller, Error, ResourceExt};

use crate::api::v1::{ConcurrencyPolicy, CronJob, CronJobStatus};
use crate::schedule::Schedule;

/// The annotation on each Job with the scheduled time of its run (RFC 3339).
pub const SCHEDULED_AT: &str = "batch.tutorial.kubebuilder.io/scheduled-at";

/// Where the controller reads the time: the system clock when deployed, a clock the test moves in tests.
pub trait Clock: Send + Sync + 'static {
    fn now(&self) -> Timestamp;
}

/// The system clock.
pub struct SystemClock;

impl Clock for SystemClock {
    fn now(&self) -> Timestamp {
        Timestamp::now()
    }
}

/// Runs the CronJob controller until the manager stops.
///
/// Its RBAC is the verbs it uses (tests/least_privilege.rs compares them with the API server's audit log): it
/// watches CronJobs and applies their status, watches, creates and deletes Jobs, and records no events. The
/// finalizers grant lets the Jobs' controller references set blockOwnerDeletion.
///
/// +kubebuilder:rbac:groups=batch.tutorial.kubebuilder.io,resources=cronjobs,verbs=list;watch
/// +kubebuilder:rbac:groups=batch.tutorial.kubebuilder.io,resources=cronjobs/status,verbs=patch
/// +kubebuilder:rbac:groups=batch.tutorial.kubebuilder.io,resources=cronjobs/finalizers,verbs=update
/// +kubebuilder:rbac:groups=batch,resources=jobs,verbs=list;watch;create;delete
pub async fn controller(ctx: Context) -> Result<(), Error> {
    controller_with_clock(ctx, Arc::new(SystemClock)).await
}

/// The controller reading the time from `clock`.
pub async fn controller_with_clock(ctx: Context, clock: Arc<dyn Clock>) -> Result<(), Error> {
    Controller::for_kind::<CronJob>(&ctx)
        .owns::<Job>()
        .run(move |cronjob, ctx| reconcile(cronjob, ctx, clock.clone()))
        .await
}

/// One pass of the steps in the module docs for `cronjob`.
pub async fn reconcile(
    cronjob: Arc<CronJob>,
    ctx: Context,
    clock: Arc<dyn Clock>,
) -> Result<Action, BoxError> {
    let namespace = cronjob.namespace().unwrap_or_default();
    let jobs: Api<Job> = ctx.api_in(&namespace);
    let children = Children::of(&cronjob, jobs.list(&ListParams::default()).await?.items);
    children.trim_history(&jobs, &cronjob).await?;
    let mut status = children.status(&cronjob);
    let outcome = start_due_run(&cronjob, &jobs, &children, clock.now(), &mut status).await;
    if cronjob.status.as_ref() != Some(&status) {
        let update = CronJob {
            metadata: ObjectMeta {
                name: cronjob.metadata.name.clone(),
                namespace: cronjob.metadata.namespace.clone(),
                ..ObjectMeta::default()
            },
            status: Some(status),
            ..CronJob::default()
        };
        apply_status(&ctx.api_in(&namespace), &update, ctx.field_manager()).await?;
    }
    outcome
}

/// The Jobs of one CronJob by state, each oldest run first.
#[derive(Default)]
struct Children {
    active: Vec<Job>,
    succeeded: Vec<Job>,
    failed: Vec<Job>,
}

impl Children {
    /// The Jobs of `jobs` that `cronjob` controls.
    fn of(cronjob: &CronJob, mut jobs: Vec<Job>) -> Self {
        jobs.retain(|job| controller_of(job).map(|r| &r.uid) == cronjob.metadata.uid.as_ref());
        jobs.sort_by_key(|job| (run_time(job), job.name_any()));
        let mut children = Children::default();
        for job in jobs {
            match finished_as(&job) {
                Some("Complete") => children.succeeded.push(job),
                Some(_) => children.failed.push(job),
                None => children.active.push(job),
            }
        }
        children
    }

    /// Deletes the oldest finished Jobs beyond the history limits (none when a limit is unset).
    async fn trim_history(&self, jobs: &Api<Job>, cronjob: &CronJob) -> Result<(), Error> {
        let spec = &cronjob.spec;
        for (finished, limit) in [
            (&self.succeeded, spec.successful_jobs_history_limit),
            (&self.failed, spec.failed_jobs_history_limit),
        ] {
            let Some(limit) = limit else { continue };
            let excess = finished
                .len()
                .saturating_sub(usize::try_from(limit).unwrap_or(0));
            for job in &finished[..excess] {
                delete_if_exists(jobs, &job.name_any()).await?;
                tracing::info!(
                    job = job.name_any(),
                    "deleted a finished job beyond the history limit"
                );
            }
        }
        Ok(())
    }

    /// The status these Jobs show, starting from what `cronjob` had.
    fn status(&self, cronjob: &CronJob) -> CronJobStatus {
        let mut status = cronjob.status.clone().unwrap_or_default();
        let latest_run = [&self.active, &self.succeeded, &self.failed]
            .into_iter()
            .flatten()
            .filter_map(run_time)
            .max();
        status.last_schedule_time = status
            .last_schedule_time
            .map(|t| t.0)
            .max(latest_run)
            .map(Time);
        // The schema allows 10 references: the newest runs are the interesting ones.
        let newest_active = self.active.iter().rev().take(10).rev();
        status.active = newest_active.map(reference_to).collect();
        let generation = cronjob.metadata.generation;
        let mut set = |type_: &str, status_: bool, reason: &str, message: String| {
            let value = if status_ { "True" } else { "False" };
            let condition = new_condition(type_, value, reason, message, generation);
            set_condition(&mut status.conditions, condition);
        };
        let (active, failed) = (self.active.len(), self.failed.len());
        set(
            PROGRESSING,
            active > 0,
            if active > 0 {
                "JobsActive"
            } else {
                "NoJobsActive"
            },
            format!("{active} job(s) are currently active"),
        );
        set(
            DEGRADED,
            failed > 0,
            if failed > 0 {
                "JobsFailed"
            } else {
                "NoJobsFailed"
            },
            format!("{failed} job(s) have failed"),
        );
        if cronjob.spec.suspend == Some(true) {
            set(AVAILABLE, false, "Suspended", "CronJob is suspended".into());
        } else if failed > 0 {
            set(
                AVAILABLE,
                false,
                "JobsFailed",
                format!("{failed} job(s) have failed"),
            );
        } else {
            set(
                AVAILABLE,
                true,
                "Scheduling",
                "CronJob starts its runs on schedule".into(),
            );
        }
        status
    }
}

const AVAILABLE: &str = "Available";
const PROGRESSING: &str = "Progressing";
const DEGRADED: &str = "Degraded";

/// Starts the run that is due, if any (step 3 of the module docs), recording in `status` what happened; the
/// action reconciles again at the next run.
async fn start_due_run(
    cronjob: &CronJob,
    jobs: &Api<Job>,
    children: &Children,
    now: Timestamp,
    status: &mut CronJobStatus,
) -> Result<Action, BoxError> {
    let generation = cronjob.metadata.generation;
    let mut set_true = |type_: &str, reason: &str, message: String| {
        let condition = new_condition(type_, "True", reason, message, generation);
        set_condition(&mut status.conditions, condition);
    };
    let schedule = match Schedule::parse(&cronjob.spec.schedule) {
        Ok(schedule) => schedule,
        Err(e) => {
            set_true(DEGRADED, "InvalidSchedule", e.to_string());
            return Ok(Action::await_change());
        }
    };
    if cronjob.spec.suspend == Some(true) {
        return Ok(Action::await_change());
    }
    let next = schedule
        .next_after(now)
        .map_or_else(Action::await_change, |next| {
            let millis = (next.as_millisecond() - now.as_millisecond()).max(1);
            Action::requeue(Duration::from_millis(millis.unsigned_abs()))
        });
    let started_after = status.last_schedule_time.as_ref().map(|t| t.0).or(cronjob
        .metadata
        .creation_timestamp
        .as_ref()
        .map(|t| t.0));
    let Some(run) = schedule
        .latest_at_or_before(now)
        .filter(|run| Some(*run) > started_after)
    else {
        return Ok(next);
    };
    if let Some(deadline) = cronjob.spec.starting_deadline_seconds
        && run.as_second().saturating_add(deadline) < now.as_second()
    {
        set_true(
            DEGRADED,
            "MissedSchedule",
            format!("missed the run at {run}: more than {deadline}s ago"),
        );
        return Ok(next);
    }
    match cronjob.spec.concurrency_policy.unwrap_or_default() {
        ConcurrencyPolicy::Forbid if !children.active.is_empty() => {
            tracing::info!(%run, "a job is still active: the run is skipped (concurrencyPolicy Forbid)");
            return Ok(next);
        }
        ConcurrencyPolicy::Replace => {
            for job in &children.active {
                delete_if_exists(jobs, &job.name_any()).await?;
            }
        }
        _ => {}
    }
    let job = job_for(cronjob, run)?;
    match jobs.create(&PostParams::default(), &job).await {
        Ok(_) => tracing::info!(job = job.name_any(), %run, "started a job"),
        // Created by an earlier pass whose status write did not land.
        Err(rkb_runtime::kube::Error::Api(e)) if e.code == 409 => {}
        Err(e) => {
            set_true(
                DEGRADED,
                "JobCreationFailed",
                format!("failed to create job {}: {e}", job.name_any()),
            );
            return Err(e.into());
        }
    }
    set_true(
        PROGRESSING,
        "JobCreated",
        format!("Created job {}", job.name_any()),
    );
    status.last_schedule_time = Some(Time(run));
    Ok(next)
}

/// The Job of the run at `run`: the template's spec, labels and annotations, the run time annotated, and
/// `cronjob` as its controller.
fn job_for(cronjob: &CronJob, run: Timestamp) -> Result<Job, Error> {
    let template = &cronjob.spec.job_template;
    let template_meta = template.metadata.clone().unwrap_or_default();
    let mut annotations = template_meta.annotations.unwrap_or_default();
    annotations.insert(SCHEDULED_AT.to_string(), run.to_string());
    Ok(Job {
        metadata: ObjectMeta {
            name: Some(format!("{}-{}", cronjob.name_any(), run.as_second())),
            namespace: cronjob.namespace(),
            labels: template_meta.labels,
            annotations: Some(annotations),
            owner_references: Some(vec![controller_owner_ref(cronjob)?]),
            ..ObjectMeta::default()
        },
        spec: template.spec.clone(),
        status: None,
    })
}

/// `Complete` or `Failed` once the Job has finished.
fn finished_as(job: &Job) -> Option<&str> {
    let conditions = job.status.as_ref()?.conditions.as_deref()?;
    conditions
        .iter()
        .find(|c| (c.type_ == "Complete" || c.type_ == "Failed") && c.status == "True")
        .map(|c| c.type_.as_str())
}

/// The scheduled time of the Job's run, from its annotation.
fn run_time(job: &Job) -> Option<Timestamp> {
    job.annotations().get(SCHEDULED_AT)?.parse().ok()
}

/// What `status.active` lists for a Job (without its resourceVersion, which changes with every Job update).
fn reference_to(job: &Job) -> ObjectReference {
    ObjectReference {
        api_version: Some("batch/v1".into()),
        kind: Some("Job".into()),
        name: job.metadata.name.clone(),
        namespace: job.metadata.namespace.clone(),
        uid: job.metadata.uid.clone(),
        ..ObjectReference::default()
    }
}
