// Copyright 2026 The cluster-provisioner Authors.
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

//! The Cluster controller against a real kube-apiserver and etcd (`make setup-envtest` builds them once;
//! `make test` runs this with KUBEBUILDER_ASSETS set), with hack/fake-rke.sh as the provisioner. Each test has its
//! own control plane and its own directory, where fake-rke.sh logs every call with a millisecond timestamp.

use std::future::Future;
use std::path::{Path, PathBuf};
use std::time::Duration;

use rkb_runtime::client::{Patch, PatchParams, PostParams};
use rkb_runtime::conditions::find_condition;
use rkb_runtime::envtest::Environment;
use rkb_runtime::k8s_openapi::api::events::v1::Event;
use rkb_runtime::kube::api::{DeleteParams, ListParams};
use rkb_runtime::kube::{Api, Client};
use rkb_runtime::metrics::{Metrics, sample};
use rkb_runtime::{Condition, Manager, ManagerOptions, RunningManager};
use serde_json::json;

use cluster_provisioner::api::v1alpha1::{
    CONDITION_PROVISIONED, CONDITION_READY, Cluster, ClusterClient, ClusterSpec,
};
use cluster_provisioner::controller::cluster_controller::{FINALIZER, NAME, Options, run};
use cluster_provisioner::provisioner::Provisioner;

/// rkb-envtest's `eventually` for yes/no checks: polls `check` until it says true, failing after `secs` seconds
/// (errors are retried, and the last one reported).
async fn eventually<F, Fut>(secs: u64, what: &str, mut check: F) -> anyhow::Result<()>
where
    F: FnMut() -> Fut,
    Fut: Future<Output = anyhow::Result<bool>>,
{
    rkb_runtime::envtest::eventually(what, Duration::from_secs(secs), || {
        let done = check();
        async move { done.await.map(|done| done.then_some(())) }
    })
    .await?;
    Ok(())
}

/// A control plane with the committed CRD, the manager running the Cluster controller, and a scratch directory.
struct Harness {
    _env: Environment,
    client: Client,
    clusters: ClusterClient,
    dir: tempfile::TempDir,
    retry_base_delay: Duration,
    manager: Option<RunningManager>,
    metrics: Metrics,
}

impl Harness {
    async fn start(retry_base_delay: Duration) -> anyhow::Result<Self> {
        let env = Environment::builder()
            .crd_dir(concat!(env!("CARGO_MANIFEST_DIR"), "/config/crd/bases"))
            .start()
            .await?;
        let client = env.client();
        let mut h = Self {
            clusters: ClusterClient::new(client.clone()),
            _env: env,
            client,
            dir: tempfile::tempdir()?,
            retry_base_delay,
            manager: None,
            metrics: Metrics::new(),
        };
        h.start_manager().await?;
        Ok(h)
    }

    /// Starts a manager running the Cluster controller.
    async fn start_manager(&mut self) -> anyhow::Result<()> {
        // Tests run side by side: no fixed ports.
        let manager_options = ManagerOptions {
            health_probe_bind_address: "0".into(),
            metrics_bind_address: "0".into(),
            ..Default::default()
        };
        let mgr = Manager::builder("cluster-provisioner-test")
            .options(manager_options)
            .client(self.client.clone())
            .build()
            .await?;
        self.metrics = mgr.metrics().clone();
        let fake_rke = concat!(env!("CARGO_MANIFEST_DIR"), "/hack/fake-rke.sh");
        let mut options = Options::new(Provisioner::new(fake_rke, Duration::from_secs(30)));
        options.retry_base_delay = self.retry_base_delay;
        options.retry_max_delay = Duration::from_secs(30);
        mgr.add(move |ctx| run(ctx, options));
        self.manager = Some(mgr.spawn());
        Ok(())
    }

    /// Stops the manager gracefully and waits for it.
    async fn stop_manager(&mut self) -> anyhow::Result<()> {
        if let Some(manager) = self.manager.take() {
            manager.stop().await?;
        }
        Ok(())
    }

    /// Writes a (dummy) provisioner config and returns its path.
    fn config(&self, file: &str) -> anyhow::Result<String> {
        let path = self.dir.path().join(file);
        std::fs::write(&path, "nodes: []\n")?;
        Ok(path.to_str().expect("utf-8 temp dir").to_string())
    }

    /// The provisioner calls so far: (unix ms, verb, config path, "ok" | "failed").
    fn calls(&self) -> anyhow::Result<Vec<Call>> {
        read_log(&self.dir.path().join("fake-rke.log"))
    }

    async fn events(&self, cluster: &str, reason: &str) -> anyhow::Result<Vec<Event>> {
        let events: Api<Event> = Api::all(self.client.clone());
        Ok(events
            .list(&ListParams::default())
            .await?
            .items
            .into_iter()
            .filter(|e| {
                e.reason.as_deref() == Some(reason)
                    && e.regarding.as_ref().and_then(|r| r.name.as_deref()) == Some(cluster)
            })
            .collect())
    }

    async fn condition(&self, cluster: &str, type_: &str) -> anyhow::Result<Option<Condition>> {
        let Some(obj) = self.clusters.get_opt(cluster).await? else {
            return Ok(None);
        };
        let conditions = obj.status.map(|s| s.conditions).unwrap_or_default();
        Ok(find_condition(&conditions, type_).cloned())
    }

    async fn stop(mut self) -> anyhow::Result<()> {
        self.stop_manager().await
    }
}

#[derive(Debug, PartialEq)]
struct Call {
    at_ms: u64,
    verb: String,
    config: String,
    outcome: String,
}

fn read_log(path: &Path) -> anyhow::Result<Vec<Call>> {
    let text = match std::fs::read_to_string(path) {
        Ok(t) => t,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(vec![]),
        Err(e) => return Err(e.into()),
    };
    text.lines()
        .map(|line| {
            let parts: Vec<&str> = line.split(' ').collect();
            anyhow::ensure!(parts.len() == 4, "bad log line {line:?}");
            Ok(Call {
                at_ms: parts[0].parse()?,
                verb: parts[1].into(),
                config: parts[2].into(),
                outcome: parts[3].into(),
            })
        })
        .collect()
}

fn summary(calls: &[Call]) -> Vec<String> {
    calls
        .iter()
        .map(|c| format!("{} {} {}", c.verb, c.config, c.outcome))
        .collect()
}

/// A sample of controller-runtime's reconcile metrics for the Cluster controller from `text`, one scrape
/// (`Metrics::encode`, what /metrics serves); an absent series reads as -1.
fn reconcile_metric(text: &str, name: &str, result: Option<&str>) -> f64 {
    let mut labels = vec![("controller", NAME)];
    labels.extend(result.map(|r| ("result", r)));
    sample(text, name, &labels).unwrap_or(-1.0)
}

fn is_true(c: &Option<Condition>) -> bool {
    c.as_ref().is_some_and(|c| c.status == "True")
}

#[tokio::test]
async fn provisions_reprovisions_on_spec_change_and_removes_what_was_applied() -> anyhow::Result<()>
{
    let h = Harness::start(Duration::from_millis(200)).await?;
    let v1 = h.config("prod.yml")?;
    let name = "prod";
    h.clusters
        .create(
            &Cluster::new(
                name,
                ClusterSpec {
                    config_path: v1.clone(),
                },
            ),
            &PostParams::default(),
        )
        .await?;

    // Add: `up <configPath>`, then Provisioned and Ready.
    eventually(30, "Provisioned and Ready are True", || async {
        Ok(is_true(&h.condition(name, CONDITION_PROVISIONED).await?)
            && is_true(&h.condition(name, CONDITION_READY).await?))
    })
    .await?;
    let obj = h.clusters.get(name).await?;
    assert_eq!(obj.status.as_ref().unwrap().applied_config, v1);
    assert!(
        obj.metadata
            .finalizers
            .unwrap_or_default()
            .contains(&FINALIZER.to_string())
    );
    assert!(
        !h.events(name, "Provisioned").await?.is_empty(),
        "a Provisioned event"
    );
    // The controller's own writes (finalizer, status) do not provision again. Witness: a second Cluster, whose
    // add reaches the informer after those writes, and whose key the one worker takes after any they queued.
    let other = h.config("witness.yml")?;
    h.clusters
        .create(
            &Cluster::new(
                "witness",
                ClusterSpec {
                    config_path: other.clone(),
                },
            ),
            &PostParams::default(),
        )
        .await?;
    eventually(30, "the witness Cluster is provisioned", || async {
        Ok(is_true(
            &h.condition("witness", CONDITION_PROVISIONED).await?,
        ))
    })
    .await?;
    assert_eq!(
        summary(&h.calls()?),
        [format!("up {v1} ok"), format!("up {other} ok")]
    );
    // From here on, the calls for `name` only.
    let calls = || -> anyhow::Result<Vec<String>> {
        let calls = h.calls()?.into_iter().filter(|c| c.config != other);
        Ok(summary(&calls.collect::<Vec<_>>()))
    };

    // Spec change: `up` with the new path.
    let v2 = h.config("prod-v2.yml")?;
    h.clusters
        .patch(
            name,
            &PatchParams::default(),
            &Patch::Merge(json!({ "spec": { "configPath": v2 } })),
        )
        .await?;
    eventually(30, "status.appliedConfig is the new path", || async {
        let obj = h.clusters.get(name).await?;
        Ok(obj.status.is_some_and(|s| s.applied_config == v2))
    })
    .await?;
    assert!(is_true(&h.condition(name, CONDITION_PROVISIONED).await?));
    assert_eq!(calls()?, [format!("up {v1} ok"), format!("up {v2} ok")]);

    // A spec whose `up` fails: Provisioned and Ready turn False with the provisioner's error, and a Warning event.
    let missing = h
        .dir
        .path()
        .join("missing.yml")
        .to_str()
        .unwrap()
        .to_string();
    h.clusters
        .patch(
            name,
            &PatchParams::default(),
            &Patch::Merge(json!({ "spec": { "configPath": missing } })),
        )
        .await?;
    eventually(30, "Provisioned is False with ProvisionFailed", || async {
        let c = h.condition(name, CONDITION_PROVISIONED).await?;
        Ok(c.is_some_and(|c| c.status == "False" && c.reason == "ProvisionFailed"))
    })
    .await?;
    let ready = h.condition(name, CONDITION_READY).await?.expect("Ready");
    assert_eq!(
        (ready.status.as_str(), ready.reason.as_str()),
        ("False", "ProvisionFailed")
    );
    assert!(ready.message.contains("no such file"), "{}", ready.message);
    let warning = h.events(name, "ProvisionFailed").await?;
    assert_eq!(
        warning.first().and_then(|e| e.type_.as_deref()),
        Some("Warning")
    );
    assert_eq!(
        h.clusters.get(name).await?.status.unwrap().applied_config,
        v2
    );

    // Delete: `remove` of what was provisioned (appliedConfig, not the failing spec), finalizer released, gone.
    h.clusters.delete(name, &DeleteParams::default()).await?;
    eventually(30, "the Cluster is gone", || async {
        Ok(h.clusters.get_opt(name).await?.is_none())
    })
    .await?;
    let calls = calls()?;
    assert_eq!(calls[..2], [format!("up {v1} ok"), format!("up {v2} ok")]);
    assert_eq!(calls.last(), Some(&format!("remove {v2} ok")));
    let middle = &calls[2..calls.len() - 1];
    assert!(
        !middle.is_empty() && middle.iter().all(|c| *c == format!("up {missing} failed")),
        "{calls:?}"
    );
    assert!(
        !h.events(name, "Removed").await?.is_empty(),
        "a Removed event"
    );
    h.stop().await
}

#[tokio::test]
async fn a_failing_remove_backs_off_reports_and_recovers() -> anyhow::Result<()> {
    let base = Duration::from_millis(250);
    let h = Harness::start(base).await?;
    let config = h.config("staging.yml")?;
    let name = "staging";
    h.clusters
        .create(
            &Cluster::new(
                name,
                ClusterSpec {
                    config_path: config.clone(),
                },
            ),
            &PostParams::default(),
        )
        .await?;
    eventually(30, "the Cluster is provisioned", || async {
        Ok(is_true(&h.condition(name, CONDITION_PROVISIONED).await?))
    })
    .await?;

    // The provisioner's remove fails until the marker file goes.
    let marker = PathBuf::from(format!("{config}.fail-remove"));
    std::fs::write(&marker, "")?;
    h.clusters.delete(name, &DeleteParams::default()).await?;
    let failed_removes = || -> anyhow::Result<Vec<Call>> {
        Ok(h.calls()?
            .into_iter()
            .filter(|c| c.verb == "remove" && c.outcome == "failed")
            .collect())
    };
    eventually(60, "five failed removes", || async {
        Ok(failed_removes()?.len() >= 5)
    })
    .await?;

    // Still there, finalizer kept, the error in the Ready condition and in a Warning event.
    let obj = h.clusters.get(name).await?;
    assert!(obj.metadata.deletion_timestamp.is_some());
    assert!(
        obj.metadata
            .finalizers
            .unwrap_or_default()
            .contains(&FINALIZER.to_string())
    );
    let ready = h
        .condition(name, CONDITION_READY)
        .await?
        .expect("a Ready condition");
    assert_eq!(
        (ready.status.as_str(), ready.reason.as_str()),
        ("False", "RemoveFailed")
    );
    assert!(ready.message.contains("told to fail"), "{}", ready.message);
    let events = h.events(name, "RemoveFailed").await?;
    let warning = events.first().expect("a RemoveFailed event");
    assert_eq!(warning.type_.as_deref(), Some("Warning"));
    assert!(
        warning
            .note
            .as_deref()
            .unwrap_or("")
            .contains("told to fail"),
        "{warning:?}"
    );

    // Retries back off: the n-th pause is at least base * 2^n (per-key exponential backoff), so they grow.
    let times: Vec<u64> = failed_removes()?.iter().map(|c| c.at_ms).collect();
    let pauses: Vec<u64> = times.windows(2).map(|w| w[1] - w[0]).collect();
    for (n, pause) in pauses.iter().take(4).enumerate() {
        let floor = base.as_millis() as u64 * (1 << n);
        assert!(
            *pause >= floor * 9 / 10,
            "pause {n} was {pause} ms, backoff says >= {floor} ms: {pauses:?}"
        );
    }
    assert!(pauses[3] > 2 * pauses[0], "pauses grow: {pauses:?}");

    // The work-queue controller records controller-runtime's reconcile metrics: the provisioning sync succeeded,
    // each failed remove is an error, and every finished sync was timed.
    let total = "controller_runtime_reconcile_total";
    let text = h.metrics.encode();
    let metric = |name: &str, result: Option<&str>| reconcile_metric(&text, name, result);
    let (successes, errors) = (metric(total, Some("success")), metric(total, Some("error")));
    assert!(successes >= 1.0, "successes: {successes}");
    assert!(errors >= 5.0, "errors: {errors}");
    assert_eq!(metric(total, Some("requeue")), 0.0);
    assert_eq!(
        metric("controller_runtime_reconcile_errors_total", None),
        errors
    );
    assert_eq!(
        metric("controller_runtime_reconcile_panics_total", None),
        0.0
    );
    // The families are updated one after the other: a sync finishing during the scrape may be half counted.
    let timed = metric("controller_runtime_reconcile_time_seconds_count", None);
    assert!(
        (timed - (successes + errors)).abs() <= 1.0,
        "timed {timed}, successes {successes}, errors {errors}"
    );
    // client-go's workqueue families of the same queue: every failed remove was a rate-limited retry, every sync
    // a timed piece of work that first waited in the queue.
    let queue = |name: &str| sample(&text, name, &[("name", NAME)]).unwrap_or(-1.0);
    assert!(queue("workqueue_retries_total") >= errors, "{text}");
    assert!(queue("workqueue_adds_total") >= 1.0, "{text}");
    let worked = queue("workqueue_work_duration_seconds_count");
    assert!(
        (worked - timed).abs() <= 1.0,
        "worked {worked}, timed {timed}"
    );
    assert!(
        queue("workqueue_queue_duration_seconds_count") >= worked,
        "{text}"
    );
    for gauge in [
        "workqueue_depth",
        "workqueue_unfinished_work_seconds",
        "workqueue_longest_running_processor_seconds",
    ] {
        assert!(queue(gauge) >= 0.0, "{gauge} missing: {text}");
    }
    assert_eq!(
        metric("controller_runtime_max_concurrent_reconciles", None),
        1.0
    );
    let active = metric("controller_runtime_active_workers", None);
    assert!(active == 0.0 || active == 1.0, "active workers: {active}");

    // Once the provisioner succeeds, the finalizer goes and so does the object.
    std::fs::remove_file(&marker)?;
    eventually(60, "the Cluster is gone", || async {
        Ok(h.clusters.get_opt(name).await?.is_none())
    })
    .await?;
    let calls = h.calls()?;
    let last = calls.last().expect("calls");
    assert_eq!(
        (last.verb.as_str(), last.outcome.as_str()),
        ("remove", "ok")
    );
    assert_eq!(
        calls
            .iter()
            .filter(|c| c.outcome == "ok" && c.verb == "remove")
            .count(),
        1
    );
    h.stop().await
}

/// What the seed tripped over ("the server does not allow this method ... (put clusters...)"), on a real server:
/// with `+genclient:noStatus` and no status subresource, status is written by PUT of the whole object, which must
/// carry the resourceVersion it was read at.
#[tokio::test]
async fn status_is_written_through_the_main_resource_with_its_resource_version()
-> anyhow::Result<()> {
    let env = Environment::builder()
        .crd_dir(concat!(env!("CARGO_MANIFEST_DIR"), "/config/crd/bases"))
        .start()
        .await?;
    let clusters = ClusterClient::new(env.client());
    let pp = PostParams::default();
    let created = clusters
        .create(
            &Cluster::new(
                "c",
                ClusterSpec {
                    config_path: "/c.yml".into(),
                },
            ),
            &pp,
        )
        .await?;
    let mut with_status = created.clone();
    with_status.status = Some(Default::default());
    with_status.status.as_mut().unwrap().applied_config = "/c.yml".into();

    // No resourceVersion: custom resources do not allow unconditional updates.
    let mut unconditional = with_status.clone();
    unconditional.metadata.resource_version = None;
    let err = clusters.update(&unconditional, &pp).await.unwrap_err();
    assert!(err.is_invalid(), "{err}");
    assert!(err.to_string().contains("resourceVersion"), "{err}");

    // The status subresource does not exist (no +kubebuilder:subresource:status): 404.
    let err = clusters
        .inner()
        .request_update::<Cluster, Cluster>("c", Some("status"), &with_status, &pp)
        .await
        .unwrap_err();
    assert!(err.is_not_found(), "{err}");

    // With the resourceVersion it was read at, the PUT of the main resource stores the status...
    let updated = clusters.update(&with_status, &pp).await?;
    assert_eq!(updated.status.unwrap().applied_config, "/c.yml");
    // ...and a second PUT of the same (now stale) copy is refused, never silently applied.
    let err = clusters.update(&with_status, &pp).await.unwrap_err();
    assert!(err.is_conflict(), "{err}");
    Ok(())
}

#[tokio::test]
async fn a_restarted_operator_does_not_provision_again() -> anyhow::Result<()> {
    let mut h = Harness::start(Duration::from_millis(200)).await?;
    let config = h.config("dev.yml")?;
    let pp = PostParams::default();
    let spec = |path: &str| ClusterSpec {
        config_path: path.to_string(),
    };
    h.clusters
        .create(&Cluster::new("dev", spec(&config)), &pp)
        .await?;
    eventually(30, "dev is provisioned", || async {
        Ok(is_true(&h.condition("dev", CONDITION_PROVISIONED).await?))
    })
    .await?;

    // A new manager lists dev in its informer's initial list and finds it up to date.
    h.stop_manager().await?;
    h.start_manager().await?;
    // A Cluster created after the restart shows the new manager is running (its cache synced before it acted).
    let probe = h.config("probe.yml")?;
    h.clusters
        .create(&Cluster::new("probe", spec(&probe)), &pp)
        .await?;
    eventually(30, "probe is provisioned", || async {
        Ok(is_true(&h.condition("probe", CONDITION_PROVISIONED).await?))
    })
    .await?;
    assert_eq!(
        summary(&h.calls()?),
        [format!("up {config} ok"), format!("up {probe} ok")]
    );
    h.stop().await
}
