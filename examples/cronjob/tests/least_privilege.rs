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

//! Least privilege: the manager's roles (config/rbac/role.yaml from the `+kubebuilder:rbac` markers, and
//! leader_election_role.yaml) grant exactly the API calls it makes, as the API server's audit log records them.
//! The manager runs what main.rs runs (the CronJob controller, on a test clock, and the storage-version migrator)
//! as a user holding only those roles, with leader election on, through a run coming due, its Job finishing and
//! being trimmed from the history, a storage-version migration, the CronJob's deletion and a graceful stop; then
//! every verb granted and never used, and every verb used and not granted, fails the test by name (rkb-envtest's
//! `privilege_report`).

mod common;

use std::sync::{Arc, Mutex};
use std::time::Duration;

use jiff::Timestamp;
use rkb_runtime::envtest::{Allowance, Environment, eventually};
use rkb_runtime::k8s_openapi::api::batch::v1::Job;
use rkb_runtime::k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinition;
use rkb_runtime::kube::api::{DeleteParams, ListParams, Patch, PatchParams, PostParams};
use rkb_runtime::kube::{Api, Client};
use rkb_runtime::{Manager, ManagerOptions, RunningManager};
use serde_json::json;

use common::{TIMEOUT, TestClock, hello_job};
use cronjob::api::v1::{CronJob, CronJobSpec};
use cronjob::controller::cronjob_controller::{Clock, controller_with_clock};

/// Who the manager is: the roles are bound to this user, and the audit log is read for it.
const USER: &str = "cronjob-controller-manager";
const NAMESPACE: &str = "default";
const NAME: &str = "hello";
const CRD: &str = "cronjobs.batch.tutorial.kubebuilder.io";
const ROLES: &[&str] = &[
    include_str!(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/config/rbac/role.yaml"
    )),
    include_str!(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/config/rbac/leader_election_role.yaml"
    )),
];

/// Verbs the roles keep although this run does not use them, each for a path the run does not take.
const ALLOWANCES: &[Allowance] = &[
    // The Jobs' controller references set blockOwnerDeletion.
    Allowance::owner_finalizers("batch.tutorial.kubebuilder.io", "cronjobs/finalizers"),
    Allowance {
        api_group: "batch.tutorial.kubebuilder.io",
        resource: "cronjobs",
        verb: "get",
        reason: "the storage-version migrator re-reads a CronJob whose rewrite conflicted (409) with another write",
    },
];

/// The manager as main.rs builds it, as the roles' user with leader election on in the Role's namespace; the
/// migrator settles and rechecks at once, so the test needs no minute-long waits.
async fn start_manager(client: &Client, clock: Arc<TestClock>) -> anyhow::Result<RunningManager> {
    let options = ManagerOptions {
        metrics_bind_address: "0".into(),
        health_probe_bind_address: "0".into(),
        leader_elect: true,
        leader_election_namespace: Some("system".into()),
        ..ManagerOptions::default()
    };
    let mgr = Manager::builder("cronjob")
        .client(client.clone())
        .options(options)
        .build()
        .await?;
    let clock: Arc<dyn Clock> = clock;
    mgr.add(move |ctx| controller_with_clock(ctx, clock));
    mgr.add(|ctx| {
        cronjob::webhook::storage_migration(&ctx)
            .settle(Duration::ZERO)
            .recheck(Duration::from_millis(200))
            .run()
    });
    Ok(mgr.spawn())
}

/// The CRD's `status.storedVersions`.
async fn stored_versions(crds: &Api<CustomResourceDefinition>) -> anyhow::Result<Vec<String>> {
    let crd = crds.get(CRD).await?;
    Ok(crd
        .status
        .and_then(|s| s.stored_versions)
        .unwrap_or_default())
}

/// Writes what the Job controller writes when a Job succeeds.
async fn complete(jobs: &Api<Job>, name: &str) -> anyhow::Result<()> {
    let now = Timestamp::now().to_string();
    let condition =
        |type_: &str| json!({"type": type_, "status": "True", "lastTransitionTime": now});
    let status = json!({"status": {
        "startTime": now, "completionTime": now, "succeeded": 1,
        "conditions": [condition("SuccessCriteriaMet"), condition("Complete")],
    }});
    jobs.patch_status(name, &PatchParams::default(), &Patch::Merge(&status))
        .await?;
    Ok(())
}

/// The names of the Jobs in the namespace.
async fn job_names(jobs: &Api<Job>) -> anyhow::Result<Vec<String>> {
    let list = jobs.list(&ListParams::default()).await?;
    Ok(list
        .items
        .into_iter()
        .filter_map(|j| j.metadata.name)
        .collect())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_roles_grant_exactly_what_the_manager_uses() -> anyhow::Result<()> {
    let env = Environment::builder()
        .crd_dir(concat!(env!("CARGO_MANIFEST_DIR"), "/config/crd/bases"))
        .with_audit_log()
        .start()
        .await?;
    let cronjobs: Api<CronJob> = Api::namespaced(env.client(), NAMESPACE);
    let jobs: Api<Job> = Api::namespaced(env.client(), NAMESPACE);
    let crds: Api<CustomResourceDefinition> = Api::all(env.client());

    // A CronJob stored before the storage version moved: storedVersions lists v2 as well, as after a cluster
    // stored v2 and went back to v1, so the migrator rewrites it and drops v2.
    let spec = CronJobSpec {
        schedule: "*/1 * * * *".into(),
        job_template: hello_job(),
        successful_jobs_history_limit: Some(0),
        ..CronJobSpec::default()
    };
    let clock = Arc::new(TestClock(Mutex::new(Timestamp::now())));
    cronjobs
        .create(&PostParams::default(), &CronJob::new(NAME, spec))
        .await?;
    let stored = json!({"status": {"storedVersions": ["v1", "v2"]}});
    crds.patch_status(CRD, &PatchParams::default(), &Patch::Merge(&stored))
        .await?;

    let manager = start_manager(&env.client_with_roles(USER, ROLES).await?, clock.clone()).await?;
    eventually(
        "the migrator drops v2 from storedVersions",
        TIMEOUT,
        || async {
            Ok::<_, anyhow::Error>((stored_versions(&crds).await? == ["v1"]).then_some(()))
        },
    )
    .await?;

    // A run comes due (an hour on, so whatever minute it is): the controller starts its Job; a poke makes it
    // reconcile now rather than at the requeue it asked for.
    *clock.0.lock().unwrap() = Timestamp::now() + jiff::SignedDuration::from_hours(1);
    let poke = json!({"metadata": {"annotations": {"test/poke": "1"}}});
    cronjobs
        .patch(NAME, &PatchParams::default(), &Patch::Merge(&poke))
        .await?;
    let job = eventually("the due run's Job is created", TIMEOUT, || async {
        Ok::<_, anyhow::Error>(job_names(&jobs).await?.into_iter().next())
    })
    .await?;
    // It succeeds: with successfulJobsHistoryLimit 0 the controller deletes it.
    complete(&jobs, &job).await?;
    eventually("the finished Job is trimmed", TIMEOUT, || async {
        Ok::<_, anyhow::Error>(job_names(&jobs).await?.is_empty().then_some(()))
    })
    .await?;

    cronjobs.delete(NAME, &DeleteParams::default()).await?;
    eventually("the CronJob is gone", TIMEOUT, || async {
        Ok::<_, rkb_runtime::kube::Error>(cronjobs.get_opt(NAME).await?.is_none().then_some(()))
    })
    .await?;
    // A graceful stop releases the Lease: leader election's last request.
    manager.stop().await?;

    let report = env.privilege_report(USER, ROLES, ALLOWANCES)?;
    assert!(report.is_least(), "{report}");
    env.stop().await?;
    Ok(())
}
