// Copyright 2026 The microservice-deploy Authors.
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

//! Faults that need the operator as a process of its own: the manager binary, run as two replicas with leader
//! election against a real control plane, frozen and resumed by signal.

mod common;

use std::path::{Path, PathBuf};
use std::time::Duration;

use common::{MANAGER, fixture, reconciled, wait_for};
use microservice_deploy::api::v1::MicroServiceDeploy;
use microservice_deploy::controller::microservicedeploy_controller::READY;
use rkb_runtime::Api;
use rkb_runtime::envtest::Environment;
use rkb_runtime::k8s_openapi::api::apps::v1::Deployment;
use rkb_runtime::k8s_openapi::api::coordination::v1::Lease;
use rkb_runtime::kube::api::PostParams;
use tokio::process::{Child, Command};

const NS: &str = "default";

/// A MicroServiceDeploy named `name`: the seed's sample under another name.
fn msd(name: &str) -> MicroServiceDeploy {
    let mut msd: MicroServiceDeploy =
        serde_json::from_value(fixture("seed_microservicedeploy.yaml").remove(0))
            .expect("fixture is a MicroServiceDeploy");
    msd.metadata.name = Some(name.to_string());
    msd.spec.full_name = name.to_string();
    msd
}

/// The manager binary with `args`, logging (reconciles included) to `log`.
fn manager(env: &Environment, log: &Path, args: &[&str]) -> Child {
    let out = std::fs::File::create(log).expect("create the manager's log");
    Command::new(env!("CARGO_BIN_EXE_microservice-deploy"))
        .args(args)
        .arg("--health-probe-bind-address=0")
        .env("KUBECONFIG", env.kubeconfig_path())
        .env("RUST_LOG", "info,rkb_runtime=debug")
        .stdout(out.try_clone().expect("log file"))
        .stderr(out)
        .kill_on_drop(true)
        .spawn()
        .expect("start the manager binary")
}

/// One replica of the manager with leader election, short timings, and no metrics.
fn replica(env: &Environment, log: &Path) -> Child {
    let args = [
        "--leader-elect",
        "--leader-elect-lease-duration=4s",
        "--leader-elect-renew-deadline=3s",
        "--leader-elect-retry-period=500ms",
        "--metrics-bind-address=0",
    ];
    manager(env, log, &args)
}

/// The identity holding the manager's Lease, once one does.
async fn holder(leases: &Api<Lease>) -> anyhow::Result<Option<String>> {
    let lease = leases.get_opt(MANAGER).await?;
    Ok(lease
        .and_then(|l| l.spec)
        .and_then(|s| s.holder_identity)
        .filter(|h| !h.is_empty()))
}

fn signal(child: &Child, name: &str) {
    let pid = child.id().expect("the replica runs").to_string();
    let status = std::process::Command::new("kill")
        .args([&format!("-{name}"), &pid])
        .status()
        .expect("kill runs");
    assert!(status.success(), "kill -{name} {pid}");
}

/// The lines of `log` from byte `from` on that show a reconcile starting in that replica. (Only starts: a reconcile
/// already running when the process froze ends after it resumes, the in-flight work leader.rs's docs describe.)
fn reconcile_starts_in(log: &PathBuf, from: usize) -> Vec<String> {
    let text = std::fs::read_to_string(log).expect("read the replica's log");
    text[from.min(text.len())..]
        .lines()
        .filter(|line| line.contains("reconcile started"))
        .map(str::to_string)
        .collect()
}

/// The leader is frozen (SIGSTOP) past its lease while a second replica waits: the second takes over within the
/// lease duration and reconciles, and the first, resumed, exits with an error without reconciling anything. (What
/// keeps it from starting a reconcile even when its watches are served before its election task learns the lease
/// was taken is its term running out on its clock; runtime/src/leader.rs tests that rule, which this process-level
/// race does not reliably reach.)
#[tokio::test]
async fn a_frozen_leader_is_replaced_and_starts_nothing_when_it_resumes() -> anyhow::Result<()> {
    let env = Environment::builder()
        .crd_dir(concat!(env!("CARGO_MANIFEST_DIR"), "/config/crd/bases"))
        .start()
        .await?;
    let client = env.client();
    let (leases, msds) = (
        Api::<Lease>::namespaced(client.clone(), NS),
        Api::<MicroServiceDeploy>::namespaced(client.clone(), NS),
    );
    let logs = tempfile::tempdir()?;
    let (first_log, second_log) = (
        logs.path().join("first.log"),
        logs.path().join("second.log"),
    );
    let mut first = replica(&env, &first_log);
    let first_identity = wait_for("the first replica to lead", || holder(&leases)).await?;
    let mut second = replica(&env, &second_log);
    msds.create(&PostParams::default(), &msd("before")).await?;
    reconciled(&msds, "before").await?;

    signal(&first, "STOP");
    let frozen_at = std::time::Instant::now();
    let second_identity = wait_for("the second replica to take the lease", || async {
        Ok(holder(&leases).await?.filter(|h| *h != first_identity))
    })
    .await?;
    // The lease duration (4 s) after the second replica last saw the lease change, plus up to a retry period.
    let takeover = frozen_at.elapsed();
    eprintln!("takeover {takeover:?} after the leader froze");
    assert!(
        takeover < Duration::from_secs(8),
        "takeover took {takeover:?}"
    );
    msds.create(&PostParams::default(), &msd("during")).await?;
    reconciled(&msds, "during").await?;

    // Resumed, the first replica's watches deliver "during" and its children at once; its term has run out.
    let resumed_at = std::fs::metadata(&first_log)?.len() as usize;
    assert!(
        !reconcile_starts_in(&first_log, 0).is_empty(),
        "the leader logs its reconciles' starts (it reconciled \"before\")"
    );
    signal(&first, "CONT");
    let status = tokio::time::timeout(Duration::from_secs(20), first.wait()).await??;
    assert!(!status.success(), "the replaced leader exits with an error");
    let late = reconcile_starts_in(&first_log, resumed_at);
    assert!(
        late.is_empty(),
        "the replaced leader started reconciles after it resumed:\n{}",
        late.join("\n")
    );
    assert_eq!(holder(&leases).await?, Some(second_identity));
    assert!(
        second.try_wait()?.is_none(),
        "the new leader keeps running:\n{}",
        std::fs::read_to_string(&second_log)?
    );
    Ok(())
}

/// A local port nothing listens on now.
fn free_port() -> u16 {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("bind a free port");
    listener.local_addr().expect("its address").port()
}

/// The value of the runtime's `rkb_child_writes_total{controller="microservicedeploy", kind, outcome}` on the manager
/// at `port`, 0 when absent.
async fn child_writes(port: u16, kind: &str, outcome: &str) -> anyhow::Result<f64> {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let mut stream = tokio::net::TcpStream::connect(("127.0.0.1", port)).await?;
    let request = "GET /metrics HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n";
    stream.write_all(request.as_bytes()).await?;
    let mut text = String::new();
    stream.read_to_string(&mut text).await?;
    let labels = [
        ("controller", "microservicedeploy"),
        ("kind", kind),
        ("outcome", outcome),
    ];
    Ok(rkb_runtime::metrics::sample(&text, "rkb_child_writes_total", &labels).unwrap_or(0.0))
}

/// How many MicroServiceDeploys are reconciled (Ready for their current generation).
async fn ready_count(msds: &Api<MicroServiceDeploy>) -> anyhow::Result<usize> {
    use rkb_runtime::conditions::is_condition_true;
    let ready = msds
        .list(&Default::default())
        .await?
        .items
        .into_iter()
        .filter(|msd| {
            let status = msd.status.clone().unwrap_or_default();
            status.observed_generation == msd.metadata.generation
                && is_condition_true(&status.conditions, READY)
        });
    Ok(ready.count())
}

/// The operator is killed (SIGKILL) in the middle of a run and started again: every MicroServiceDeploy ends
/// Ready with its children, nothing is created twice, and what was applied before the kill is not applied again. The restarted process's child applies and its time
/// to converge are printed (docs/benchmarks.md, "faults").
#[tokio::test]
async fn a_killed_operator_started_again_converges() -> anyhow::Result<()> {
    const COUNT: usize = 30;
    let env = Environment::builder()
        .crd_dir(concat!(env!("CARGO_MANIFEST_DIR"), "/config/crd/bases"))
        .start()
        .await?;
    let client = env.client();
    let msds = Api::<MicroServiceDeploy>::namespaced(client.clone(), NS);
    let logs = tempfile::tempdir()?;
    let first = manager(
        &env,
        &logs.path().join("first.log"),
        &["--metrics-bind-address=0"],
    );
    for i in 0..COUNT {
        msds.create(&PostParams::default(), &msd(&format!("ms-{i}")))
            .await?;
    }
    let done_before = wait_for("a few reconciled before the kill", || async {
        let ready = ready_count(&msds).await?;
        Ok((ready >= 3).then_some(ready))
    })
    .await?;
    signal(&first, "KILL");
    drop(first);

    let port = free_port();
    let address = format!("--metrics-bind-address=127.0.0.1:{port}");
    let restarted_at = std::time::Instant::now();
    let second_args = [address.as_str(), "--metrics-secure=false"];
    let _second = manager(&env, &logs.path().join("second.log"), &second_args);
    wait_for(
        "every MicroServiceDeploy reconciled after the restart",
        || async { Ok((ready_count(&msds).await? == COUNT).then_some(())) },
    )
    .await?;
    let converged = restarted_at.elapsed();
    for name in (0..COUNT).map(|i| format!("ms-{i}")) {
        reconciled(&msds, &name).await?;
    }
    let deployments = Api::<Deployment>::namespaced(client.clone(), NS);
    assert_eq!(
        deployments.list(&Default::default()).await?.items.len(),
        COUNT
    );
    let applied = child_writes(port, "Deployment", "applied").await?;
    let skipped = child_writes(port, "Deployment", "skipped").await?;
    // Every object is reconciled after the restart, so each Deployment passed through the index and was counted.
    assert!(
        applied + skipped >= COUNT as f64,
        "{applied} applied + {skipped} skipped Deployment writes counted for {COUNT} objects"
    );
    eprintln!(
        "{done_before} of {COUNT} reconciled before SIGKILL; after the restart: converged in {converged:?}, \
         {applied} Deployment applies"
    );
    // Those Ready before the kill had every child applied: the restarted process learns it from its watches
    // (rkb_runtime::child_index) and applies none of theirs again.
    let left = (COUNT - done_before) as f64;
    assert!(
        applied <= left,
        "{applied} Deployment applies after the restart, for {left} objects not reconciled before"
    );
    Ok(())
}
