// Copyright 2026 The demo Authors.
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

//! End-to-end test of the demo manager as users run it: deployed from config/, it becomes ready,
//! reconciles the samples of config/samples whose kinds its controllers serve ([`RECONCILED_KINDS`]), and serves
//! /metrics to a ServiceAccount token once a binding gives it the metrics-reader role (and refuses it before).
//!
//! It is `#[ignore]`d, so `cargo test` and `make test` leave it out: it builds an image and needs a cluster. Run it
//! with `cargo test --test e2e -- --ignored --nocapture` and `E2E_MODE` saying where the manager runs:
//! - `kind` (the default; `make test-e2e` creates the Kind cluster `KIND_CLUSTER`, runs this, and deletes it): the
//!   image is built, loaded into Kind (`KIND`, `KIND_CLUSTER`) and deployed with `make deploy`.
//! - `cluster`: the cluster of your kubeconfig; the image (`IMG`) is built and pushed (`make docker-build
//!   docker-push`), so that cluster must be able to pull it, then deployed with `make deploy`.
//!
//!   In both, cert-manager is installed first when config/default uses it and the cluster has none
//!   (`CERT_MANAGER_INSTALL_SKIP=true` leaves that to you), and removed afterwards.
//! - `local` (`make test-e2e-local`, no cluster needed): a local control plane (envtest's etcd and kube-apiserver
//!   from `KUBEBUILDER_ASSETS`) with config/default applied, and this crate's manager binary running as a process
//!   with a token of its ServiceAccount, so it runs under the project's RBAC as the pod would.
//!
//! TODO(user): add checks of what your controllers do (the objects they create, the status they write) to `check`.

mod cluster;
mod local;
mod utils;

use std::time::Duration;

use anyhow::{Context as _, Result, bail, ensure};
use rkb_runtime::envtest::eventually;

use utils::{Response, step};

/// The namespace config/default deploys the manager into.
const NAMESPACE: &str = "demo-system";
/// The manager's ServiceAccount (config/rbac/service_account.yaml, with config/default's name prefix).
const SERVICE_ACCOUNT: &str = "demo-controller-manager";
/// The ClusterRole allowing `GET /metrics` (config/rbac/metrics_reader_role.yaml).
const METRICS_READER_ROLE: &str = "demo-metrics-reader";
/// The ClusterRoleBinding this test creates so that the ServiceAccount's token may read the metrics.
const METRICS_BINDING: &str = "demo-metrics-binding";
/// Where the samples of namespaced kinds go: the manager's namespace, which it watches also when it watches only its
/// own (`--namespaced`), and which `make undeploy` deletes with anything left in it.
const SAMPLES_NAMESPACE: &str = NAMESPACE;
/// How long the manager may take to become ready (an image pull, a leader election) and its metrics server to answer.
const TIMEOUT: Duration = Duration::from_secs(180);
/// How long a controller of a ready manager may take to act on a sample: seconds, unless it is broken.
const RECONCILE_TIMEOUT: Duration = Duration::from_secs(60);

/// A kind as the API server names it: its API group and its kind.
struct GroupKind {
    group: &'static str,
    kind: &'static str,
}

/// The kinds this project's controllers reconcile: the check waits for their samples only. Samples of other kinds
/// (scaffolded by `rkb create api --controller=false`, or reconciled by another operator) are applied and deleted
/// without waiting, since nothing here would reconcile them. rustfmt leaves the list alone, so that each kind stays
/// on the one line rkb adds (and finds again when it would add the kind twice).
#[rustfmt::skip]
const RECONCILED_KINDS: &[GroupKind] = &[
    GroupKind { group: "devops.my.domain", kind: "DemoMicroService" },
    // rkb:scaffold:e2e-reconciled (rkb create api adds each kind it scaffolds a controller for above this line)
];

#[tokio::test]
#[ignore = "end to end: builds the manager and needs a cluster; run `make test-e2e` (Kind) or `make test-e2e-local`"]
async fn the_deployed_manager_reconciles_the_samples_and_serves_metrics() -> Result<()> {
    let deployment = Deployment::start().await?;
    let checked = check(&deployment).await;
    if checked.is_err() {
        deployment.report();
    }
    step("cleaning up");
    deployment.stop();
    checked
}

/// The checks, in order; each step says what it waits for.
async fn check(deployment: &Deployment) -> Result<()> {
    step("waiting for the manager to become ready");
    deployment.wait_ready().await?;
    step("applying config/samples, waiting for those of RECONCILED_KINDS, deleting them");
    let reconciled = samples_are_reconciled(deployment).await?;
    step("reading /metrics with the ServiceAccount's token");
    metrics_need_the_reader_role(deployment, reconciled).await?;
    Ok(())
}

/// Where the manager runs ([`E2E_MODE`](self)): a pod in a cluster, or a process beside a local control plane.
enum Deployment {
    Cluster(cluster::Cluster),
    // Boxed: the control plane's handles are large beside the cluster's counter.
    Local(Box<local::Local>),
}

impl Deployment {
    async fn start() -> Result<Self> {
        let mode = std::env::var("E2E_MODE").unwrap_or_default();
        Ok(match mode.as_str() {
            "" | "kind" => Self::Cluster(cluster::Cluster::deploy(cluster::Image::LoadIntoKind)?),
            "cluster" => Self::Cluster(cluster::Cluster::deploy(cluster::Image::Push)?),
            "local" => Self::Local(Box::new(local::Local::deploy().await?)),
            other => bail!("E2E_MODE={other:?}: expected kind (the default), cluster or local"),
        })
    }

    /// Runs kubectl against the deployment's API server and returns its output.
    fn kubectl(&self, args: &[&str]) -> Result<String> {
        match self {
            Self::Cluster(_) => utils::kubectl(None, args),
            Self::Local(local) => utils::kubectl(Some(local.kubeconfig()), args),
        }
    }

    async fn wait_ready(&self) -> Result<()> {
        match self {
            Self::Cluster(cluster) => cluster.wait_ready(),
            Self::Local(local) => local.wait_ready().await,
        }
    }

    /// `GET /metrics` over HTTPS with `token` as the bearer token, from where a scraper would ask.
    fn scrape_metrics(&self, token: &str) -> Result<Response> {
        match self {
            Self::Cluster(cluster) => cluster.scrape_metrics(token),
            Self::Local(local) => local.scrape_metrics(token),
        }
    }

    /// Prints what explains a failure: the manager's log and the namespace's events.
    fn report(&self) {
        match self {
            Self::Cluster(cluster) => cluster.report(),
            Self::Local(local) => local.report(),
        }
    }

    fn stop(self) {
        match self {
            Self::Cluster(cluster) => cluster.undeploy(),
            Self::Local(local) => local.stop(),
        }
    }
}

/// Applies config/samples and waits until every sample of [`RECONCILED_KINDS`] carries a finalizer of its API
/// group: the controllers `rkb create api` scaffolds add `<controller>.finalizers.<group>` when they first reconcile
/// an object. Deleting the samples then waits for each controller's cleanup to remove its finalizer. Returns how
/// many samples were reconciled.
async fn samples_are_reconciled(deployment: &Deployment) -> Result<usize> {
    let samples = utils::kubectl(None, &["kustomize", "config/samples"])?;
    if samples.trim().is_empty() {
        println!(
            "config/samples lists no sample yet (`rkb create api` adds one per kind): nothing to reconcile"
        );
        return Ok(0);
    }
    let applied = deployment.kubectl(&[
        "apply",
        "-k",
        "config/samples",
        "-n",
        SAMPLES_NAMESPACE,
        "-o",
        "name",
    ])?;
    let mut reconciled = 0;
    for name in applied.lines().filter(|line| !line.is_empty()) {
        // `-o name` prints `<kind in lower case>.<group>/<name>` (`<kind>/<name>` in Kubernetes' core group).
        let (kind, group) = name
            .split_once('/')
            .map(|(kind_group, _)| kind_group.split_once('.').unwrap_or((kind_group, "")))
            .with_context(|| format!("{name:?}: not <kind>.<group>/<name>"))?;
        if !RECONCILED_KINDS
            .iter()
            .any(|listed| listed.group == group && listed.kind.eq_ignore_ascii_case(kind))
        {
            println!("  {name} applied, not waited for: its kind is not in RECONCILED_KINDS");
            continue;
        }
        let finalizer = format!(".finalizers.{group}");
        eventually(
            &format!("{name} has its controller's finalizer"),
            RECONCILE_TIMEOUT,
            || async {
                let finalizers = deployment.kubectl(&[
                    "get",
                    name,
                    "-n",
                    SAMPLES_NAMESPACE,
                    "-o",
                    "jsonpath={.metadata.finalizers}",
                ])?;
                // An error is retried too, and the last one is reported with the timeout.
                ensure!(
                    finalizers.contains(&finalizer),
                    "its finalizers are {finalizers:?}"
                );
                Ok::<_, anyhow::Error>(Some(()))
            },
        )
        .await?;
        println!("  {name} reconciled");
        reconciled += 1;
    }
    deployment.kubectl(&[
        "delete",
        "-k",
        "config/samples",
        "-n",
        SAMPLES_NAMESPACE,
        "--timeout=3m",
    ])?;
    Ok(reconciled)
}

/// The manager serves /metrics over HTTPS to a bearer token that passes a TokenReview and a SubjectAccessReview for
/// `get /metrics`. The ServiceAccount's token (from the TokenRequest API) is refused until a ClusterRoleBinding
/// gives it the metrics-reader role; then the metrics count the samples' reconciles.
async fn metrics_need_the_reader_role(deployment: &Deployment, reconciled: usize) -> Result<()> {
    let token = deployment.kubectl(&["create", "token", SERVICE_ACCOUNT, "-n", NAMESPACE])?;
    let token = token.trim();
    let answers = |status: u16| async move {
        let response = deployment.scrape_metrics(token)?;
        Ok::<_, anyhow::Error>((response.status == status).then_some(response.body))
    };
    eventually(
        "/metrics refuses the token without the metrics-reader role (403)",
        TIMEOUT,
        || answers(403),
    )
    .await?;

    let role = format!("--clusterrole={METRICS_READER_ROLE}");
    let subject = format!("--serviceaccount={NAMESPACE}:{SERVICE_ACCOUNT}");
    deployment.kubectl(&[
        "create",
        "clusterrolebinding",
        METRICS_BINDING,
        &role,
        &subject,
    ])?;
    let metrics = eventually(
        "/metrics serves the token with the metrics-reader role (200)",
        TIMEOUT,
        || answers(200),
    )
    .await?;

    if reconciled > 0 {
        let successes = metrics
            .lines()
            .filter(|line| {
                line.starts_with("controller_runtime_reconcile_total{")
                    && line.contains(r#"result="success""#)
            })
            .any(|line| {
                line.rsplit(' ')
                    .next()
                    .and_then(|count| count.parse::<f64>().ok())
                    .is_some_and(|n| n > 0.0)
            });
        ensure!(
            successes,
            "the metrics count no successful reconcile:\n{metrics}"
        );
    }
    Ok(())
}
