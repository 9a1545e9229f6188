//! `Manager::run` in a real process: SIGTERM lets the in-flight reconcile finish, releases the Lease and exits 0;
//! a second signal (here SIGINT twice, as an impatient Ctrl-C) exits 1 at once.
//! The test re-runs its own binary as the operator process (the ignored `operator_process` test below).

mod common;

use std::convert::Infallible;
use std::process::{Command, Stdio};
use std::sync::Arc;
use std::time::Duration;

use common::{config_map, create_config_map};
use k8s_openapi::api::coordination::v1::Lease;
use k8s_openapi::api::core::v1::ConfigMap;
use kube::api::{Patch, PatchParams};
use kube::runtime::watcher;
use kube::{Api, Client, ResourceExt};
use rkb_envtest::{Environment, eventually};
use rkb_runtime::{Action, BoxError, Context, Controller, Manager, ManagerOptions};

const LEASE: &str = "signal-test";
const CHILD_ENV: &str = "RKB_RUNTIME_SIGNAL_CHILD";

/// Kills the operator process if the test fails before it exits, so no process outlives the test.
struct KillOnDrop(std::process::Child);

impl Drop for KillOnDrop {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

async fn annotate(client: &Client, name: &str, key: &str) -> Result<(), kube::Error> {
    let api: Api<ConfigMap> = Api::namespaced(client.clone(), "default");
    let patch = serde_json::json!({ "metadata": { "annotations": { key: "true" } } });
    api.patch(name, &PatchParams::default(), &Patch::Merge(&patch))
        .await?;
    Ok(())
}

/// The operator: marks a ConfigMap "started", takes two seconds, marks it "done"; once shutdown begins it marks
/// the ConfigMap "stopping".
#[tokio::test]
#[ignore = "run as a child process by the other tests here"]
async fn operator_process() {
    if std::env::var(CHILD_ENV).is_err() {
        return;
    }
    let options = ManagerOptions {
        leader_elect: true,
        leader_election_id: Some(LEASE.into()),
        leader_election_namespace: Some("default".into()),
        leader_elect_retry_period: Duration::from_millis(300),
        metrics_bind_address: "0".into(),
        health_probe_bind_address: "0".into(),
        ..ManagerOptions::default()
    };
    let mgr = Manager::builder("rkb-signal-test")
        .identity("operator-process")
        .options(options)
        .build()
        .await
        .expect("build manager from KUBECONFIG");
    mgr.add(|ctx: Context| async move {
        let (stopping, client) = (ctx.shutdown_signal(), ctx.client());
        tokio::spawn(async move {
            stopping.await;
            let _ = annotate(&client, "signalled", "stopping").await;
        });
        Controller::for_kind_with::<ConfigMap>(
            &ctx,
            watcher::Config::default().labels("test=signal"),
        )
        .run(|cm: Arc<ConfigMap>, ctx: Context| async move {
            if cm.annotations().contains_key("done") {
                return Ok(Action::await_change());
            }
            annotate(&ctx.client(), &cm.name_any(), "started").await?;
            // The slow work under test (not a wait for state): the signals arrive while it runs.
            tokio::time::sleep(Duration::from_secs(2)).await;
            annotate(&ctx.client(), &cm.name_any(), "done").await?;
            Ok::<_, BoxError>(Action::await_change())
        })
        .await
    });
    if let Err(e) = mgr.run().await {
        eprintln!("manager failed: {e}");
        std::process::exit(3);
    }
}

/// The operator process, leading, with its reconcile of ConfigMap "signalled" under way.
struct InFlight {
    child: KillOnDrop,
    leases: Api<Lease>,
    configs: Api<ConfigMap>,
}

impl InFlight {
    async fn start(env: &Environment) -> Self {
        let client = env.client();
        let child = KillOnDrop(
            Command::new(std::env::current_exe().unwrap())
                .args(["--ignored", "--exact", "operator_process", "--nocapture"])
                .env(CHILD_ENV, "1")
                .env("KUBECONFIG", env.kubeconfig_path())
                .stdout(Stdio::null())
                .spawn()
                .expect("spawn operator process"),
        );
        let this = InFlight {
            child,
            leases: Api::namespaced(client.clone(), "default"),
            configs: Api::namespaced(client.clone(), "default"),
        };
        eventually(
            "the operator process to lead",
            Duration::from_secs(30),
            || async {
                Ok::<_, Infallible>(
                    (this.holder().await.as_deref() == Some("operator-process")).then_some(()),
                )
            },
        )
        .await
        .unwrap();
        create_config_map(&client, &config_map("signalled", &[("test", "signal")])).await;
        this.wait_marked("started", "the reconcile to start").await;
        this
    }

    async fn holder(&self) -> Option<String> {
        self.leases
            .get_opt(LEASE)
            .await
            .ok()
            .flatten()?
            .spec?
            .holder_identity
    }

    async fn marked(&self, key: &str) -> bool {
        self.configs
            .get("signalled")
            .await
            .is_ok_and(|cm| cm.annotations().contains_key(key))
    }

    /// Waits until the ConfigMap is marked `key`.
    async fn wait_marked(&self, key: &str, what: &str) {
        eventually(what, Duration::from_secs(20), || async {
            Ok::<_, Infallible>(self.marked(key).await.then_some(()))
        })
        .await
        .unwrap();
    }

    fn signal(&self, name: &str) {
        let pid = self.child.0.id().to_string();
        let sent = Command::new("kill")
            .args([format!("-{name}"), pid])
            .status()
            .expect("kill");
        assert!(sent.success());
    }

    /// Waits for the process to end, at most `within`.
    async fn exit_status(&mut self, within: Duration) -> std::process::ExitStatus {
        let child = &mut self.child.0;
        eventually("the operator process to exit", within, || {
            let exited = child.try_wait();
            async move { exited }
        })
        .await
        .unwrap()
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sigterm_finishes_work_releases_the_lease_and_exits_0() {
    let env = Environment::start().await.expect("envtest");
    let mut op = InFlight::start(&env).await;
    op.signal("TERM");
    // Graceful shutdown must not hang: give it well over the two-second reconcile, then kill.
    let status = op.exit_status(Duration::from_secs(20)).await;
    assert!(status.success(), "operator exited with {status}");

    // The reconcile in flight at SIGTERM completed, and the Lease was handed back.
    assert!(
        op.marked("done").await,
        "the in-flight reconcile was cut short"
    );
    assert_eq!(op.holder().await, None);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_second_sigint_exits_at_once_with_1() {
    let env = Environment::start().await.expect("envtest");
    let mut op = InFlight::start(&env).await;
    op.signal("INT");
    // The manager sets up its second-signal handler before shutdown begins, and the operator marks "stopping" after.
    op.wait_marked("stopping", "the operator to begin shutting down")
        .await;
    op.signal("INT");
    // Well inside the two-second reconcile, which the user chose not to wait for.
    let status = op.exit_status(Duration::from_millis(1500)).await;
    assert_eq!(status.code(), Some(1), "operator exited with {status}");
    assert!(!op.marked("done").await, "the reconcile was waited for");
}
