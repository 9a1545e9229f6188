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

//! The CronJob controller against a real kube-apiserver and etcd (`make setup-envtest` builds them once; `make test`
//! runs this with KUBEBUILDER_ASSETS set). The controller reads a clock the tests move, so runs come due at once.
//! Nothing finishes Jobs here (no kube-controller-manager): the tests write the Jobs' status as the Job controller
//! would.

mod common;

use std::sync::{Arc, Mutex};

use jiff::{SignedDuration, Timestamp};
use rkb_runtime::envtest::{Environment, eventually};
use rkb_runtime::k8s_openapi::api::batch::v1::Job;
use rkb_runtime::kube::api::{ListParams, Patch, PatchParams, PostParams};
use rkb_runtime::metrics::{Metrics, sample};
use rkb_runtime::{Api, Manager, ResourceExt, RunningManager};
use serde_json::json;

use common::{TIMEOUT, TestClock, hello_job};

use cronjob::api::v1::{ConcurrencyPolicy, CronJob, CronJobSpec};
use cronjob::controller::cronjob_controller::{Clock, SCHEDULED_AT, controller_with_clock};

/// A control plane with the CRDs, the controller running on a [`TestClock`], and the APIs of namespace default.
struct Fixture {
    _env: Environment,
    running: RunningManager,
    metrics: Metrics,
    clock: Arc<TestClock>,
    cronjobs: Api<CronJob>,
    jobs: Api<Job>,
}

impl Fixture {
    async fn start() -> anyhow::Result<Self> {
        let env = Environment::builder()
            .crd_dir(concat!(env!("CARGO_MANIFEST_DIR"), "/config/crd/bases"))
            .start()
            .await?;
        let mgr = Manager::builder("cronjob-test")
            .client(env.client())
            .build()
            .await?;
        let clock = Arc::new(TestClock(Mutex::new(Timestamp::now())));
        let controller_clock: Arc<dyn Clock> = clock.clone();
        mgr.add(move |ctx| controller_with_clock(ctx, controller_clock));
        let metrics = mgr.metrics().clone();
        Ok(Fixture {
            cronjobs: Api::namespaced(env.client(), "default"),
            jobs: Api::namespaced(env.client(), "default"),
            running: mgr.spawn(),
            metrics,
            clock,
            _env: env,
        })
    }

    /// Creates a CronJob running every minute; returns its creation time. The clock is set back to the real time
    /// first, so no run of the new CronJob is due until the test moves the clock.
    async fn create(
        &self,
        name: &str,
        tweak: impl FnOnce(&mut CronJobSpec),
    ) -> anyhow::Result<Timestamp> {
        *self.clock.0.lock().unwrap() = Timestamp::now();
        let mut spec = CronJobSpec {
            schedule: "*/1 * * * *".into(),
            job_template: hello_job(),
            ..CronJobSpec::default()
        };
        tweak(&mut spec);
        let created = self
            .cronjobs
            .create(&PostParams::default(), &CronJob::new(name, spec))
            .await?;
        Ok(created
            .creation_timestamp()
            .expect("set by the API server")
            .0)
    }

    /// Sets the clock to `seconds` past the `minutes`-th minute boundary after `start`, and returns that boundary
    /// (the run that is then due).
    fn move_to_run(&self, start: Timestamp, minutes: i64, seconds: i64) -> Timestamp {
        let first = start.as_second() / 60 * 60 + 60;
        let run = Timestamp::from_second(first + 60 * (minutes - 1)).unwrap();
        *self.clock.0.lock().unwrap() = run + SignedDuration::from_secs(seconds);
        run
    }

    /// Reconciles that ended without an error (most ask to run again at the next run: `requeue_after`).
    fn reconciles(&self) -> f64 {
        let text = self.metrics.encode();
        ["success", "requeue", "requeue_after"]
            .iter()
            .filter_map(|result| {
                let labels = [("controller", "cronjob"), ("result", *result)];
                sample(&text, "controller_runtime_reconcile_total", &labels)
            })
            .sum()
    }

    /// Returns once a reconcile of `name` has run from start to end after this call began, so what it would do
    /// with the current clock is done: with one reconcile possibly in flight, that takes two.
    async fn settle(&self, name: &str) -> anyhow::Result<()> {
        for poke in 0..2 {
            let before = self.reconciles();
            let patch = json!({"metadata": {"annotations": {"test/poke": format!("{}-{poke}", Timestamp::now())}}});
            self.cronjobs
                .patch(name, &PatchParams::default(), &Patch::Merge(&patch))
                .await?;
            eventually("a reconcile after the poke", TIMEOUT, || async {
                Ok::<_, std::convert::Infallible>((self.reconciles() > before).then_some(()))
            })
            .await?;
        }
        Ok(())
    }

    /// The Job of `cronjob`'s run at `run`, once it exists.
    async fn job_of_run(&self, cronjob: &str, run: Timestamp) -> anyhow::Result<Job> {
        let name = format!("{cronjob}-{}", run.as_second());
        let what = format!("job {name} is created");
        Ok(eventually(&what, TIMEOUT, || async { self.jobs.get_opt(&name).await }).await?)
    }

    /// The names of the Jobs of `cronjob`, sorted.
    async fn job_names(&self, cronjob: &str) -> anyhow::Result<Vec<String>> {
        let mut names: Vec<String> = self
            .jobs
            .list(&ListParams::default())
            .await?
            .items
            .iter()
            .map(|j| j.name_any())
            .filter(|n| {
                n.strip_prefix(cronjob)
                    .is_some_and(|rest| rest.starts_with('-'))
            })
            .collect();
        names.sort();
        Ok(names)
    }

    /// Writes what the Job controller writes when a Job ends: `Complete` or `Failed`.
    async fn finish(&self, job: &str, how: &str) -> anyhow::Result<()> {
        let now = Timestamp::now().to_string();
        let (target, counts) = match how {
            "Complete" => (
                "SuccessCriteriaMet",
                json!({"succeeded": 1, "completionTime": now}),
            ),
            _ => ("FailureTarget", json!({"failed": 1})),
        };
        let condition =
            |type_: &str| json!({"type": type_, "status": "True", "lastTransitionTime": now});
        let mut status =
            json!({"startTime": now, "conditions": [condition(target), condition(how)]});
        status
            .as_object_mut()
            .unwrap()
            .extend(counts.as_object().unwrap().clone());
        let patch = json!({"status": status});
        self.jobs
            .patch_status(job, &PatchParams::default(), &Patch::Merge(&patch))
            .await?;
        Ok(())
    }

    /// Waits until `cronjob`'s status satisfies `check`.
    async fn status_until(
        &self,
        cronjob: &str,
        what: &str,
        check: impl Fn(&CronJob) -> bool,
    ) -> anyhow::Result<CronJob> {
        Ok(eventually(what, TIMEOUT, || async {
            let obj = self.cronjobs.get(cronjob).await?;
            Ok::<_, rkb_runtime::kube::Error>(check(&obj).then_some(obj))
        })
        .await?)
    }
}

fn condition(cronjob: &CronJob, type_: &str) -> Option<(String, String)> {
    let conditions = &cronjob.status.as_ref()?.conditions;
    let found = conditions.iter().find(|c| c.type_ == type_)?;
    Some((found.status.clone(), found.reason.clone()))
}

fn is(status: &str, reason: &str) -> Option<(String, String)> {
    Some((status.to_string(), reason.to_string()))
}

#[tokio::test]
async fn starts_each_due_run_once_and_keeps_the_history_limits() -> anyhow::Result<()> {
    let f = Fixture::start().await?;
    let created = f
        .create("hello", |spec| {
            spec.successful_jobs_history_limit = Some(1);
            spec.failed_jobs_history_limit = Some(1);
        })
        .await?;

    // The first run: a Job named for it, annotated with its time, controlled by the CronJob, listed as active.
    let run1 = f.move_to_run(created, 1, 5);
    f.settle("hello").await?;
    let job1 = f.job_of_run("hello", run1).await?;
    assert_eq!(
        job1.annotations().get(SCHEDULED_AT),
        Some(&run1.to_string())
    );
    let owner = &job1.owner_references()[0];
    assert_eq!(
        (owner.kind.as_str(), owner.controller),
        ("CronJob", Some(true))
    );
    let status = f
        .status_until("hello", "the first run is recorded", |c| {
            c.status.as_ref().is_some_and(|s| {
                s.last_schedule_time.as_ref().map(|t| t.0) == Some(run1) && s.active.len() == 1
            })
        })
        .await?;
    assert_eq!(status.status.unwrap().active[0].name, Some(job1.name_any()));

    // Finished, it leaves the active list.
    f.finish(&job1.name_any(), "Complete").await?;
    f.status_until("hello", "no job is active", |c| {
        c.status.as_ref().is_some_and(|s| s.active.is_empty())
            && condition(c, "Progressing") == is("False", "NoJobsActive")
    })
    .await?;

    // A second success: the first is beyond successfulJobsHistoryLimit 1 and deleted.
    let run2 = f.move_to_run(created, 2, 5);
    f.settle("hello").await?;
    let job2 = f.job_of_run("hello", run2).await?;
    f.finish(&job2.name_any(), "Complete").await?;
    eventually("the older success is deleted", TIMEOUT, || async {
        let names = f.job_names("hello").await?;
        Ok::<_, anyhow::Error>((names == [job2.name_any()]).then_some(()))
    })
    .await?;

    // A failure: Degraded and not Available.
    let run3 = f.move_to_run(created, 3, 5);
    f.settle("hello").await?;
    let job3 = f.job_of_run("hello", run3).await?;
    f.finish(&job3.name_any(), "Failed").await?;
    f.status_until("hello", "the failure shows", |c| {
        condition(c, "Degraded") == is("True", "JobsFailed")
            && condition(c, "Available") == is("False", "JobsFailed")
    })
    .await?;

    // Ten runs missed (the operator was down): only the latest starts. Each run started once.
    let run13 = f.move_to_run(created, 13, 5);
    f.settle("hello").await?;
    f.job_of_run("hello", run13).await?;
    f.settle("hello").await?;
    let names = f.job_names("hello").await?;
    let expected: Vec<String> = [run2, run3, run13]
        .iter()
        .map(|r| format!("hello-{}", r.as_second()))
        .collect();
    assert_eq!(names, expected);

    f.running.stop().await?;
    Ok(())
}

#[tokio::test]
async fn suspend_deadlines_and_concurrency_policies_hold_runs_back() -> anyhow::Result<()> {
    let f = Fixture::start().await?;
    // One CronJob per case, each created when its case starts (the clock is shared).
    // Forbid: the second run waits while the first Job runs, and starts when it has finished.
    let forbid = f
        .create("forbid", |s| {
            s.concurrency_policy = Some(ConcurrencyPolicy::Forbid)
        })
        .await?;
    let run1 = f.move_to_run(forbid, 1, 5);
    f.settle("forbid").await?;
    let first = f.job_of_run("forbid", run1).await?;
    let run2 = f.move_to_run(forbid, 2, 5);
    f.settle("forbid").await?;
    assert_eq!(f.job_names("forbid").await?, [first.name_any()]);
    f.finish(&first.name_any(), "Complete").await?;
    f.job_of_run("forbid", run2).await?;

    // Replace: the second run's Job replaces the first, still running.
    let replace = f
        .create("replace", |s| {
            s.concurrency_policy = Some(ConcurrencyPolicy::Replace)
        })
        .await?;
    let run1 = f.move_to_run(replace, 1, 5);
    f.settle("replace").await?;
    f.job_of_run("replace", run1).await?;
    let run2 = f.move_to_run(replace, 2, 5);
    f.settle("replace").await?;
    let second = f.job_of_run("replace", run2).await?;
    eventually("the first job is replaced", TIMEOUT, || async {
        Ok::<_, anyhow::Error>((f.job_names("replace").await? == [second.name_any()]).then_some(()))
    })
    .await?;

    // Suspended: no run, and it says so; resumed, the latest due run starts.
    let paused = f.create("paused", |s| s.suspend = Some(true)).await?;
    let run1 = f.move_to_run(paused, 1, 5);
    f.settle("paused").await?;
    assert!(f.job_names("paused").await?.is_empty());
    f.status_until("paused", "Available False, Suspended", |c| {
        condition(c, "Available") == is("False", "Suspended")
    })
    .await?;
    let resume = json!({"spec": {"suspend": false}});
    f.cronjobs
        .patch("paused", &PatchParams::default(), &Patch::Merge(&resume))
        .await?;
    f.job_of_run("paused", run1).await?;

    // Past startingDeadlineSeconds: skipped, and Degraded says which run.
    let late = f
        .create("late", |s| s.starting_deadline_seconds = Some(30))
        .await?;
    let run1 = f.move_to_run(late, 1, 45);
    f.settle("late").await?;
    assert!(f.job_names("late").await?.is_empty());
    let missed = f
        .status_until("late", "Degraded, MissedSchedule", |c| {
            condition(c, "Degraded") == is("True", "MissedSchedule")
        })
        .await?;
    let message = &missed
        .status
        .unwrap()
        .conditions
        .iter()
        .find(|c| c.type_ == "Degraded")
        .unwrap()
        .message
        .clone();
    assert!(message.contains(&run1.to_string()), "{message}");

    // A schedule that does not parse (no webhook in this test to refuse it): Degraded, no run.
    f.create("broken", |s| s.schedule = "every minute".into())
        .await?;
    f.status_until("broken", "Degraded, InvalidSchedule", |c| {
        condition(c, "Degraded") == is("True", "InvalidSchedule")
    })
    .await?;

    f.running.stop().await?;
    Ok(())
}
