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

//! Benchmark: N MicroServiceDeploys to steady state through the operator, against a raw client creating the same
//! child objects, side by side on one envtest control plane, plus the operator's peak RSS.
//!
//! ```sh
//! cargo run --release -p microservice-deploy --example steady_state -- [--count 1000] [--rounds 3] [--concurrency 16]
//! cargo run --release -p microservice-deploy --example steady_state -- --twin [--count 100,1000] [--reconciles default]
//! ```
//!
//! Each round measures, each on a fresh control plane: the raw client POSTing every child, the raw client
//! server-side applying every child (what the operator sends), the requests an operator of this API adds without
//! any child (each MicroServiceDeploy POSTed and its status written once: with the raw POSTs, a lower bound for
//! the operator), and the operator: it is this binary
//! re-executed as a separate process (`steady_state operator ...`, the same code as the manager binary) watching
//! only its namespace, so /proc/<pid>/status VmHWM is its peak RSS alone. "Steady state" is the same test for both:
//! watches on the five child kinds see every child of every instance with the expected content (the child builders'
//! output, compared with tests/common/subset.rs). envtest has no kubelet, so no pod ever runs.
//!
//! `--twin` runs only the operator, side by side with its controller-runtime twin (bench/microservice-deploy-go,
//! built here with `go build` from the Go module proxy into ~/.cache/rkb/go-twin, again only when its sources
//! change): each round runs both, alternating which goes first, each on its own fresh control plane, and reports
//! per operator the time to steady state, peak RSS, CPU of the operator, kube-apiserver and etcd, and the API
//! requests kube-apiserver counted in the window (`apiserver_request_total`); it fails when the writes differ.
//!
//! `--outage SECS` runs only operator rounds (of rkb, and of the twin with `--twin`), each with kube-apiserver
//! killed once the MicroServiceDeploys are created and left down for SECS; it reports the time to recover
//! (outage.rs).

mod outage;
#[path = "../../tests/common/subset.rs"]
mod subset;

use std::collections::{BTreeMap, HashMap};
use std::fmt::Debug;
use std::process::Stdio;
use std::time::{Duration, Instant};

use anyhow::Context as _;
use clap::Parser;
use futures::{StreamExt, TryStreamExt};
use microservice_deploy::api::v1::{
    MicroServiceDeploy, MicroServiceDeploySpec, MicroServiceDeployStatus,
};
use microservice_deploy::controller::children;
use microservice_deploy::controller::microservicedeploy_controller::{
    READY, Settings, controller_with,
};
use microservice_deploy::controller::namespace_defaults::NamespaceDefaults;
use rkb_runtime::envtest::Environment;
use rkb_runtime::k8s_openapi::api::apps::v1::Deployment;
use rkb_runtime::k8s_openapi::api::autoscaling::v1::HorizontalPodAutoscaler;
use rkb_runtime::k8s_openapi::api::core::v1::{
    ConfigMap, Namespace, ResourceRequirements, Service, ServiceAccount,
};
use rkb_runtime::k8s_openapi::apimachinery::pkg::api::resource::Quantity;
use rkb_runtime::k8s_openapi::apimachinery::pkg::apis::meta::v1::OwnerReference;
use rkb_runtime::kube::api::PostParams;
use rkb_runtime::kube::runtime::WatchStreamExt;
use rkb_runtime::kube::runtime::watcher;
use rkb_runtime::{Api, Client, ManagerOptions, ObjectMeta, Resource};
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::Value;
use tokio::io::{AsyncReadExt, AsyncWriteExt};

/// The operator's name: its field manager, used by the raw client's applies too.
const MANAGER: &str = "microservice-deploy.ops";

#[derive(Parser)]
struct Args {
    #[command(subcommand)]
    operator: Option<Operator>,
    /// MicroServiceDeploys per round; a comma-separated list measures each count in turn.
    #[arg(long, value_delimiter = ',', default_value = "1000")]
    count: Vec<usize>,
    /// Rounds (each: raw client, then operator); medians are reported.
    #[arg(long, default_value_t = 3)]
    rounds: usize,
    /// Requests in flight: objects created at once by both clients, and the operator's concurrent reconciles.
    #[arg(long, default_value_t = 16)]
    concurrency: usize,
    /// Compare the rkb operator with its controller-runtime twin (operator rounds only).
    #[arg(long)]
    twin: bool,
    /// The operators' --max-concurrent-reconciles: a number, or "default" to pass none, so each runs with its own
    /// default (1 for both) [default: --concurrency].
    #[arg(long, value_parser = parse_reconciles)]
    reconciles: Option<Reconciles>,
    /// Kill kube-apiserver mid-run and keep it down this many seconds (operator rounds only; see outage.rs).
    #[arg(long)]
    outage: Option<f64>,
}

/// How many reconciles the operators run at once.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Reconciles {
    /// No flag: each operator's default.
    Default,
    Matched(usize),
}

fn parse_reconciles(value: &str) -> Result<Reconciles, String> {
    match value {
        "default" => Ok(Reconciles::Default),
        n => n
            .parse()
            .map(Reconciles::Matched)
            .map_err(|e| format!("{n}: {e} (a number or \"default\")")),
    }
}

/// Which operator a round runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Impl {
    Rkb,
    /// The controller-runtime twin.
    Go,
}

impl Impl {
    fn name(self) -> &'static str {
        match self {
            Impl::Rkb => "rkb",
            Impl::Go => "go",
        }
    }
}

#[derive(clap::Subcommand)]
enum Operator {
    /// Runs the operator (internal: the benchmark starts it as a separate process).
    Operator {
        #[command(flatten)]
        manager: ManagerOptions,
        #[arg(long, default_value_t = 1)]
        max_concurrent_reconciles: u16,
        #[command(flatten)]
        namespace_defaults: NamespaceDefaults,
    },
}

fn main() -> anyhow::Result<()> {
    let args = Args::parse();
    let runtime = tokio::runtime::Runtime::new()?;
    match args.operator {
        Some(Operator::Operator {
            manager,
            max_concurrent_reconciles,
            namespace_defaults,
        }) => {
            let settings = Settings {
                namespace_defaults,
                concurrency: max_concurrent_reconciles,
            };
            runtime.block_on(operator(manager, settings))
        }
        None => {
            let reconciles = args
                .reconciles
                .unwrap_or(Reconciles::Matched(args.concurrency));
            let mut summaries = Vec::new();
            for &count in &args.count {
                if let Some(secs) = args.outage {
                    let setting = (args.concurrency, reconciles, args.twin);
                    let down = Duration::from_secs_f64(secs);
                    runtime.block_on(outage_bench(count, args.rounds, setting, down))?;
                } else if args.twin {
                    summaries.push(runtime.block_on(twin_bench(
                        count,
                        args.rounds,
                        args.concurrency,
                        reconciles,
                    ))?);
                } else {
                    runtime.block_on(bench(count, args.rounds, args.concurrency, reconciles))?;
                }
            }
            twin_conclusion(&summaries)
        }
    }
}

/// What the manager binary (src/main.rs) does.
async fn operator(options: ManagerOptions, settings: Settings) -> anyhow::Result<()> {
    rkb_runtime::logging::init(options.log_format);
    let mgr = rkb_runtime::Manager::builder(MANAGER)
        .options(options)
        .build()
        .await?;
    mgr.add(move |ctx| controller_with(ctx, settings));
    mgr.run().await?;
    Ok(())
}

/// The spec of instance `i`: the seed's sample with its own names (autoscaling on, so it has all five children).
fn spec(i: usize) -> MicroServiceDeploySpec {
    let quantities = |cpu: &str, memory: &str| {
        [("cpu", cpu), ("memory", memory)]
            .into_iter()
            .map(|(k, v)| (k.to_string(), Quantity(v.to_string())))
            .collect()
    };
    MicroServiceDeploySpec {
        ms_name: format!("ms-{i}"),
        full_name: format!("ms-{i}-v1s0"),
        version: "1.0".into(),
        path: "v1".into(),
        image: "stefanprodan/podinfo:6.0.0".into(),
        replicas: 3,
        autoscaling: true,
        need_auth: true,
        config: format!("name=ms-{i}"),
        creation_timestamp: "1535546718115".into(),
        resource_requirements: Some(ResourceRequirements {
            limits: Some(quantities("100m", "400Mi")),
            requests: Some(quantities("100m", "400Mi")),
            ..ResourceRequirements::default()
        }),
        idle: false,
    }
}

fn instance(i: usize, namespace: &str) -> MicroServiceDeploy {
    let mut msd = MicroServiceDeploy::new(&format!("ms-{i}-v1s0"), spec(i));
    msd.metadata.namespace = Some(namespace.to_string());
    msd
}

/// The children of instance `i` as the raw client creates them: the builders' output without owner references.
struct Children {
    service: Service,
    account: ServiceAccount,
    config: ConfigMap,
    deployment: Deployment,
    hpa: HorizontalPodAutoscaler,
}

fn children_of(i: usize, namespace: &str) -> Children {
    let msd = instance(i, namespace);
    let owner = OwnerReference::default();
    fn orphan<K: Resource>(mut obj: K) -> K {
        obj.meta_mut().owner_references = None;
        obj
    }
    Children {
        service: orphan(children::service(&msd, &owner)),
        account: orphan(children::service_account(&msd, &owner)),
        config: orphan(children::config_map(&msd, &owner)),
        deployment: orphan(children::deployment(&msd, &owner)),
        hpa: orphan(children::hpa(&msd, &owner)),
    }
}

/// Expected content per child kind, by name.
fn expectations(count: usize, namespace: &str) -> [(&'static str, HashMap<String, Value>); 5] {
    let mut out: [(&'static str, HashMap<String, Value>); 5] = [
        ("Service", HashMap::new()),
        ("ServiceAccount", HashMap::new()),
        ("ConfigMap", HashMap::new()),
        ("Deployment", HashMap::new()),
        ("HorizontalPodAutoscaler", HashMap::new()),
    ];
    for i in 0..count {
        let c = children_of(i, namespace);
        let values = [
            json(&c.service),
            json(&c.account),
            json(&c.config),
            json(&c.deployment),
            json(&c.hpa),
        ];
        for ((_, map), value) in out.iter_mut().zip(values) {
            map.insert(
                value["metadata"]["name"]
                    .as_str()
                    .unwrap_or_default()
                    .to_string(),
                value,
            );
        }
    }
    out
}

fn json<K: Serialize>(obj: &K) -> Value {
    serde_json::to_value(obj).expect("k8s objects serialize")
}

/// Resolves once every expected object of kind K in `namespace` is present with the expected content.
async fn all_present<K>(
    client: Client,
    namespace: &str,
    mut expected: HashMap<String, Value>,
) -> anyhow::Result<()>
where
    K: Resource<DynamicType = (), Scope = rkb_runtime::kube::core::NamespaceResourceScope>
        + Clone
        + DeserializeOwned
        + Serialize
        + Debug
        + Send
        + 'static,
{
    let started = Instant::now();
    let api: Api<K> = Api::namespaced(client, namespace);
    // With backoff, so a kube-apiserver restart (--outage) is ridden out; errors are only traced.
    let mut events = std::pin::pin!(watcher(api, watcher::Config::default()).default_backoff());
    while !expected.is_empty() {
        let event = match events.next().await {
            Some(Ok(event)) => event,
            Some(Err(e)) => {
                trace(&format!("{namespace}: watch of {}: {e}", K::kind(&())));
                continue;
            }
            None => anyhow::bail!("watch ended"),
        };
        let mut check = |obj: K| {
            let name = obj.meta().name.clone().unwrap_or_default();
            if let Some(want) = expected.get(&name)
                && subset::contains(&json(&obj), want).is_ok()
            {
                expected.remove(&name);
            }
        };
        match event {
            watcher::Event::Apply(obj) | watcher::Event::InitApply(obj) => check(obj),
            _ => {}
        }
    }
    trace(&format!(
        "{namespace}: every {} in place after {:.2?}",
        K::kind(&()),
        started.elapsed()
    ));
    Ok(())
}

async fn steady_state(client: &Client, count: usize, namespace: &str) -> anyhow::Result<()> {
    let [svc, sa, cm, dep, hpa] = expectations(count, namespace);
    tokio::try_join!(
        all_present::<Service>(client.clone(), namespace, svc.1),
        all_present::<ServiceAccount>(client.clone(), namespace, sa.1),
        all_present::<ConfigMap>(client.clone(), namespace, cm.1),
        all_present::<Deployment>(client.clone(), namespace, dep.1),
        all_present::<HorizontalPodAutoscaler>(client.clone(), namespace, hpa.1),
    )?;
    Ok(())
}

async fn create_namespace(client: &Client, name: &str) -> anyhow::Result<()> {
    let ns = Namespace {
        metadata: ObjectMeta {
            name: Some(name.into()),
            ..ObjectMeta::default()
        },
        ..Namespace::default()
    };
    Api::<Namespace>::all(client.clone())
        .create(&PostParams::default(), &ns)
        .await?;
    Ok(())
}

async fn create<K>(client: &Client, namespace: &str, obj: &K) -> anyhow::Result<()>
where
    K: Resource<DynamicType = (), Scope = rkb_runtime::kube::core::NamespaceResourceScope>
        + Clone
        + DeserializeOwned
        + Serialize
        + Debug,
{
    Api::<K>::namespaced(client.clone(), namespace)
        .create(&PostParams::default(), obj)
        .await?;
    Ok(())
}

/// Runs `work(i)` for every instance with at most `concurrency` requests in flight.
async fn for_each_instance<F, Fut>(count: usize, concurrency: usize, work: F) -> anyhow::Result<()>
where
    F: Fn(usize) -> Fut,
    Fut: Future<Output = anyhow::Result<()>>,
{
    futures::stream::iter(0..count)
        .map(work)
        .buffer_unordered(concurrency)
        .try_collect::<()>()
        .await
}

/// How the raw client writes.
#[derive(Clone, Copy)]
enum Write {
    /// POST: the cheapest way to make an object.
    Create,
    /// Server-side apply with the operator's field manager: what the operator sends.
    Apply,
}

async fn write<K>(client: &Client, namespace: &str, obj: &K, how: Write) -> anyhow::Result<()>
where
    K: Resource<DynamicType = (), Scope = rkb_runtime::kube::core::NamespaceResourceScope>
        + Clone
        + DeserializeOwned
        + Serialize
        + Debug,
{
    match how {
        Write::Create => create(client, namespace, obj).await,
        Write::Apply => {
            let api = Api::<K>::namespaced(client.clone(), namespace);
            rkb_runtime::apply::apply(&api, obj, MANAGER).await?;
            Ok(())
        }
    }
}

/// The raw client: writes every child of every instance itself; returns the time to steady state.
async fn raw_round(
    client: &Client,
    count: usize,
    concurrency: usize,
    namespace: &str,
    how: Write,
) -> anyhow::Result<Duration> {
    create_namespace(client, namespace).await?;
    let cpu = ControlPlaneCpu::now();
    let started = Instant::now();
    let watch = steady_state(client, count, namespace);
    // `concurrency` instances at once, each writing its five objects together: what the operator does with
    // `concurrency` reconciles applying five children each.
    let creates = for_each_instance(count, concurrency, |i| async move {
        let c = children_of(i, namespace);
        tokio::try_join!(
            write(client, namespace, &c.service, how),
            write(client, namespace, &c.account, how),
            write(client, namespace, &c.config, how),
            write(client, namespace, &c.deployment, how),
            write(client, namespace, &c.hpa, how),
        )?;
        Ok(())
    });
    tokio::try_join!(watch, creates)?;
    let elapsed = started.elapsed();
    cpu.trace(namespace, None);
    Ok(elapsed)
}

/// Creates one throwaway MicroServiceDeploy outside the measured namespace. The first create of a freshly
/// installed CRD's kind takes the API server about 2 s (built-in kinds are warm from its start); this keeps that
/// out of the measurement.
async fn warm_up(client: &Client, count: usize) -> anyhow::Result<()> {
    create_namespace(client, "warm-up").await?;
    create(client, "warm-up", &instance(count, "warm-up")).await
}

/// What any operator of this API must send besides the children, without the children: each MicroServiceDeploy
/// POSTed (by its user) and its status written once (by the operator, as the operator writes it). Added to the raw
/// client's time it is a lower bound for the operator's.
async fn own_requests_round(
    client: &Client,
    count: usize,
    concurrency: usize,
    namespace: &str,
) -> anyhow::Result<Duration> {
    create_namespace(client, namespace).await?;
    warm_up(client, count).await?;
    let cpu = ControlPlaneCpu::now();
    let started = Instant::now();
    for_each_instance(count, concurrency, |i| async move {
        let created: MicroServiceDeploy = Api::namespaced(client.clone(), namespace)
            .create(&PostParams::default(), &instance(i, namespace))
            .await?;
        let ready = rkb_runtime::conditions::new_condition(
            READY,
            rkb_runtime::conditions::TRUE,
            "Reconciled",
            "Service, ServiceAccount, ConfigMap and Deployment applied, HPA applied",
            created.metadata.generation,
        );
        let mut status = MicroServiceDeployStatus {
            observed_generation: created.metadata.generation,
            ..MicroServiceDeployStatus::default()
        };
        status.conditions.push(ready);
        let patch = MicroServiceDeploy {
            status: Some(status),
            ..created
        };
        let api = Api::namespaced(client.clone(), namespace);
        rkb_runtime::apply::apply_status(&api, &patch, MANAGER).await?;
        Ok(())
    })
    .await?;
    let elapsed = started.elapsed();
    cpu.trace(namespace, None);
    Ok(elapsed)
}

/// What one operator round measured.
struct Measured {
    /// Time to steady state.
    wall: Duration,
    /// The operator's VmHWM, bytes.
    peak_rss: u64,
    /// CPU seconds in the measured window: the operator, kube-apiserver, etcd.
    operator_cpu: f64,
    apiserver_cpu: f64,
    etcd_cpu: f64,
    /// Requests kube-apiserver counted from just before the operator started to steady state, by "VERB resource"
    /// (empty with an outage: the restarted server counts from 0).
    requests: BTreeMap<String, f64>,
    /// With `--outage`: what the outage cost.
    recovery: Option<outage::Recovery>,
}

/// How the operator process is started.
fn operator_command(op: Impl) -> anyhow::Result<tokio::process::Command> {
    Ok(match op {
        Impl::Rkb => {
            let mut command = tokio::process::Command::new(std::env::current_exe()?);
            command
                .arg("operator")
                .args(
                    std::env::var("STEADY_STATE_OPERATOR_ARGS")
                        .unwrap_or_default()
                        .split_whitespace(),
                )
                // STEADY_STATE_OPERATOR_LOG: the operator's RUST_LOG, for looking into a round.
                .env(
                    "RUST_LOG",
                    std::env::var("STEADY_STATE_OPERATOR_LOG").unwrap_or_else(|_| "warn".into()),
                );
            command
        }
        Impl::Go => {
            let mut command = tokio::process::Command::new(go_twin()?);
            command.arg("--zap-log-level=error");
            command
        }
    })
}

/// The operator: creates the MicroServiceDeploys and waits for the operator's children.
async fn operator_round(
    env: &mut Environment,
    (count, concurrency): (usize, usize),
    (op, reconciles): (Impl, Reconciles),
    outage: Option<Duration>,
    namespace: &str,
) -> anyhow::Result<Measured> {
    let client = env.client();
    create_namespace(&client, namespace).await?;
    warm_up(&client, count).await?;
    let free_port = || -> std::io::Result<u16> {
        Ok(std::net::TcpListener::bind("127.0.0.1:0")?
            .local_addr()?
            .port())
    };
    let (port, metrics_port) = (free_port()?, free_port()?);
    let requests_before = request_counts(&client).await?;
    let mut command = operator_command(op)?;
    command
        .args(["--namespaced", "--metrics-secure=false"])
        .arg(format!("--metrics-bind-address=127.0.0.1:{metrics_port}"))
        .arg(format!("--health-probe-bind-address=127.0.0.1:{port}"));
    if let Reconciles::Matched(n) = reconciles {
        command.arg(format!("--max-concurrent-reconciles={n}"));
    }
    let mut child = command
        .env("KUBECONFIG", env.kubeconfig_path())
        .env("WATCH_NAMESPACE", namespace)
        .stdin(Stdio::null())
        .kill_on_drop(true)
        .spawn()
        .context("starting the operator")?;
    let pid = child.id().context("operator pid")?;
    let ready_by = Instant::now() + Duration::from_secs(60);
    while http_get(port, "/readyz").await.is_none() {
        anyhow::ensure!(
            Instant::now() < ready_by,
            "the operator did not become ready"
        );
        if let Some(status) = child.try_wait()? {
            anyhow::bail!("the operator exited: {status}");
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }

    let cpu = ControlPlaneCpu::now();
    let operator_cpu = cpu_seconds(pid);
    let started = Instant::now();
    let recovery = match outage {
        None => {
            tokio::try_join!(
                steady_state(&client, count, namespace),
                create_instances(&client, count, concurrency, namespace)
            )?;
            None
        }
        Some(down) => {
            let sizes = (count, concurrency);
            Some(outage::ride_out(env, sizes, namespace, metrics_port, down).await?)
        }
    };
    let wall = started.elapsed();
    // Steady state is the children; the last status writes may still be on their way. CPU and requests are read
    // once the operator has stopped writing, so they hold all its work. A restarted kube-apiserver counts from 0.
    let requests = match recovery {
        None => difference(quiet_request_counts(&client).await?, &requests_before),
        Some(_) => BTreeMap::new(),
    };
    let operator_cpu = cpu_seconds(pid) - operator_cpu;
    let (apiserver_cpu, etcd_cpu) = cpu.used();
    cpu.trace(namespace, Some(operator_cpu));
    let peak_rss = peak_rss(pid)?;
    // What the operator did to get there (reconciles, child writes sent and spared).
    let metrics = http_get(metrics_port, "/metrics").await.unwrap_or_default();
    for line in metrics.lines().filter(|l| {
        l.starts_with("controller_runtime_reconcile_total")
            || l.starts_with("microservicedeploy_child_writes")
    }) {
        trace(&format!("{namespace}: {} {line}", op.name()));
    }
    // SIGTERM for a graceful stop; kill_on_drop covers a hang.
    std::process::Command::new("kill")
        .arg(pid.to_string())
        .status()?;
    let _ = tokio::time::timeout(Duration::from_secs(10), child.wait()).await;
    Ok(Measured {
        wall,
        peak_rss,
        operator_cpu,
        apiserver_cpu,
        etcd_cpu,
        requests,
        recovery,
    })
}

/// The MicroServiceDeploys POSTed, `concurrency` at a time.
async fn create_instances(
    client: &Client,
    count: usize,
    concurrency: usize,
    namespace: &str,
) -> anyhow::Result<()> {
    let started = Instant::now();
    for_each_instance(count, concurrency, |i| async move {
        create(client, namespace, &instance(i, namespace)).await
    })
    .await?;
    trace(&format!(
        "{namespace}: {count} MicroServiceDeploys created after {:.2?}",
        started.elapsed()
    ));
    Ok(())
}

/// kube-apiserver's `apiserver_request_total`, summed by "VERB resource[/subresource]".
async fn request_counts(client: &Client) -> anyhow::Result<BTreeMap<String, f64>> {
    let request = rkb_runtime::kube::core::Request::new("")
        .get("metrics", &rkb_runtime::kube::api::GetParams::default())?;
    let text = client.request_text(request).await?;
    let mut counts = BTreeMap::new();
    for line in text.lines() {
        let Some(rest) = line.strip_prefix("apiserver_request_total{") else {
            continue;
        };
        let Some((labels, value)) = rest.rsplit_once("} ") else {
            continue;
        };
        let label = |name: &str| {
            labels
                .split(',')
                .find_map(|pair| pair.strip_prefix(name)?.strip_prefix("=\""))
                .map(|v| v.trim_end_matches('"'))
                .unwrap_or_default()
        };
        let mut key = format!("{} {}", label("verb"), label("resource"));
        if !label("subresource").is_empty() {
            key = format!("{key}/{}", label("subresource"));
        }
        *counts.entry(key).or_default() += value.trim().parse::<f64>().unwrap_or(0.0);
    }
    Ok(counts)
}

/// kube-apiserver's request counts once the operator's writes have stopped: the same for two reads 500 ms apart
/// (at most 30 s).
async fn quiet_request_counts(client: &Client) -> anyhow::Result<BTreeMap<String, f64>> {
    let writes = |counts: &BTreeMap<String, f64>| -> Vec<(String, f64)> {
        counts
            .iter()
            .filter(|(k, _)| is_write(k))
            .map(|(k, v)| (k.clone(), *v))
            .collect()
    };
    let give_up = Instant::now() + Duration::from_secs(30);
    let mut last = request_counts(client).await?;
    loop {
        tokio::time::sleep(Duration::from_millis(500)).await;
        let now = request_counts(client).await?;
        if writes(&now) == writes(&last) || Instant::now() > give_up {
            return Ok(now);
        }
        last = now;
    }
}

fn difference(
    after: BTreeMap<String, f64>,
    before: &BTreeMap<String, f64>,
) -> BTreeMap<String, f64> {
    after
        .into_iter()
        .map(|(k, v)| {
            let was = before.get(&k).copied().unwrap_or(0.0);
            (k, v - was)
        })
        .filter(|(_, v)| *v > 0.0)
        .collect()
}

/// The kinds the operators read and write (the children, their owner, the namespace defaults).
const OPERATOR_RESOURCES: [&str; 8] = [
    "microservicedeploys",
    "services",
    "serviceaccounts",
    "configmaps",
    "deployments",
    "horizontalpodautoscalers",
    "resourcequotas",
    "limitranges",
];

/// Whether a "VERB resource[/subresource]" key counts requests on one of the operator's kinds.
fn is_operator_request(key: &str) -> bool {
    let resource = key.split_once(' ').map_or("", |(_, r)| r);
    OPERATOR_RESOURCES.contains(&resource.split('/').next().unwrap_or_default())
}

/// The verbs that write: these must be the same for both operators (reads and watches differ by design: the rkb
/// operator's child index has watches of its own).
fn is_write(key: &str) -> bool {
    let verb = key.split_once(' ').map_or(key, |(v, _)| v);
    matches!(verb, "POST" | "PUT" | "PATCH" | "APPLY" | "DELETE") && is_operator_request(key)
}

/// The write counts that differ by more than 1% (at least 2 requests) between two rounds.
fn differing_writes(a: &Measured, b: &Measured) -> Vec<String> {
    let keys: std::collections::BTreeSet<&String> = a
        .requests
        .keys()
        .chain(b.requests.keys())
        .filter(|k| is_write(k))
        .collect();
    keys.into_iter()
        .filter_map(|k| {
            let (x, y) = (
                a.requests.get(k).copied().unwrap_or(0.0),
                b.requests.get(k).copied().unwrap_or(0.0),
            );
            ((x - y).abs() > (x.max(y) * 0.01).max(2.0)).then(|| format!("{k}: {x} vs {y}"))
        })
        .collect()
}

/// The Go twin's binary, built from bench/microservice-deploy-go when its sources changed since the last build.
fn go_twin() -> anyhow::Result<std::path::PathBuf> {
    let source = std::path::Path::new(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../bench/microservice-deploy-go"
    ));
    let mut files: Vec<_> = std::fs::read_dir(source)
        .with_context(|| format!("reading {}", source.display()))?
        .filter_map(|e| Some(e.ok()?.path()))
        .filter(|p| {
            p.extension().is_some_and(|e| e == "go")
                || p.file_name()
                    .is_some_and(|n| n == "go.mod" || n == "go.sum")
        })
        .collect();
    files.sort();
    let mut hasher = std::hash::DefaultHasher::new();
    for file in &files {
        std::hash::Hash::hash(&std::fs::read(file)?, &mut hasher);
    }
    let home = std::env::var_os("HOME").context("HOME is not set")?;
    let dir = std::path::Path::new(&home).join(".cache/rkb/go-twin");
    let binary = dir.join(format!(
        "microservice-deploy-go-{:016x}",
        std::hash::Hasher::finish(&hasher)
    ));
    if !binary.exists() {
        eprintln!("building the Go twin into {}", binary.display());
        std::fs::create_dir_all(&dir)?;
        let partial = binary.with_extension("partial");
        let status = std::process::Command::new("go")
            .args(["build", "-o"])
            .arg(&partial)
            .arg(".")
            .current_dir(source)
            .status()
            .context("running go build (is Go installed?)")?;
        anyhow::ensure!(status.success(), "go build of the Go twin failed");
        std::fs::rename(&partial, &binary)?;
    }
    Ok(binary)
}

/// Phase timings on stderr with STEADY_STATE_TRACE=1.
fn trace(message: &str) {
    if std::env::var_os("STEADY_STATE_TRACE").is_some() {
        eprintln!("  {message}");
    }
}

/// CPU seconds (user + system) a process has used so far; 0 when it cannot be read.
fn cpu_seconds(pid: u32) -> f64 {
    let Ok(stat) = std::fs::read_to_string(format!("/proc/{pid}/stat")) else {
        return 0.0;
    };
    // Fields after the parenthesised command name; utime and stime are the 12th and 13th of them.
    let fields: Vec<&str> = stat
        .rsplit_once(") ")
        .map(|(_, rest)| rest.split_whitespace().collect())
        .unwrap_or_default();
    let ticks: f64 = [11, 12]
        .iter()
        .filter_map(|&i| fields.get(i)?.parse::<f64>().ok())
        .sum();
    // USER_HZ, which Linux fixes at 100 for /proc on every architecture this runs on.
    ticks / 100.0
}

/// The CPU the API server and etcd (this process's children) have used since a point in time: with two cores,
/// it is what the time to steady state is made of.
struct ControlPlaneCpu {
    start: Vec<(String, u32, f64)>,
}

impl ControlPlaneCpu {
    fn now() -> Self {
        let me = std::process::id();
        let mut start = Vec::new();
        for entry in std::fs::read_dir("/proc").into_iter().flatten().flatten() {
            let Some(pid) = entry
                .file_name()
                .to_str()
                .and_then(|s| s.parse::<u32>().ok())
            else {
                continue;
            };
            let Ok(stat) = std::fs::read_to_string(format!("/proc/{pid}/stat")) else {
                continue;
            };
            let Some((head, rest)) = stat.rsplit_once(") ") else {
                continue;
            };
            let comm = head.split_once(" (").map_or("", |(_, c)| c);
            let parent = rest
                .split_whitespace()
                .nth(1)
                .and_then(|p| p.parse::<u32>().ok());
            if parent == Some(me) && matches!(comm, "kube-apiserver" | "etcd") {
                start.push((comm.to_string(), pid, cpu_seconds(pid)));
            }
        }
        Self { start }
    }

    /// CPU seconds kube-apiserver and etcd used since `now`.
    fn used(&self) -> (f64, f64) {
        let of = |name: &str| -> f64 {
            self.start
                .iter()
                .filter(|(comm, ..)| comm == name)
                .map(|(_, pid, at)| cpu_seconds(*pid) - at)
                .sum()
        };
        (of("kube-apiserver"), of("etcd"))
    }

    fn trace(&self, namespace: &str, operator: Option<f64>) {
        let used: Vec<String> = self
            .start
            .iter()
            .map(|(comm, pid, at)| format!("{comm} {:.2}s", cpu_seconds(*pid) - at))
            .chain(operator.map(|s| format!("operator {s:.2}s")))
            .collect();
        trace(&format!("{namespace}: CPU used: {}", used.join(", ")));
    }
}

/// GET `path` on a local port; the body when the answer is 200.
async fn http_get(port: u16, path: &str) -> Option<String> {
    let mut stream = tokio::net::TcpStream::connect(("127.0.0.1", port))
        .await
        .ok()?;
    let request = format!("GET {path} HTTP/1.0\r\nHost: localhost\r\n\r\n");
    stream.write_all(request.as_bytes()).await.ok()?;
    let mut response = Vec::new();
    stream.read_to_end(&mut response).await.ok()?;
    let response = String::from_utf8_lossy(&response);
    let (head, body) = response.split_once("\r\n\r\n")?;
    head.split_whitespace()
        .nth(1)
        .filter(|code| *code == "200")?;
    Some(body.to_string())
}

/// VmHWM (peak resident set) of a process, in bytes.
fn peak_rss(pid: u32) -> anyhow::Result<u64> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status"))?;
    let line = status
        .lines()
        .find(|l| l.starts_with("VmHWM:"))
        .context("no VmHWM")?;
    let kib: u64 = line
        .split_whitespace()
        .nth(1)
        .context("VmHWM value")?
        .parse()?;
    Ok(kib * 1024)
}

fn median(mut values: Vec<f64>) -> f64 {
    values.sort_by(f64::total_cmp);
    let n = values.len();
    if n % 2 == 1 {
        values[n / 2]
    } else {
        (values[n / 2 - 1] + values[n / 2]) / 2.0
    }
}

/// A fresh control plane, so every measurement starts from the same empty etcd.
async fn control_plane() -> anyhow::Result<Environment> {
    Ok(Environment::builder()
        .crd_dir(concat!(env!("CARGO_MANIFEST_DIR"), "/config/crd/bases"))
        // Every instance has a Service, and envtest's default range (a /24) holds 254 cluster IPs.
        .apiserver_arg("--service-cluster-ip-range=10.96.0.0/16")
        .start()
        .await?)
}

async fn bench(
    count: usize,
    rounds: usize,
    concurrency: usize,
    reconciles: Reconciles,
) -> anyhow::Result<()> {
    println!(
        "{count} MicroServiceDeploys (5 children each), concurrency {concurrency}, {rounds} rounds"
    );
    println!(
        "raw create = POST each child; raw apply = server-side apply each child (what the operator sends);"
    );
    println!(
        "own = only the MicroServiceDeploy POSTs and status writes; floor = (raw create + own) / raw create"
    );
    println!(
        "round  raw create  raw apply      own  operator  operator/create  operator/apply  floor  operator peak RSS"
    );
    let (mut created, mut applied, mut own, mut op, mut rss) =
        (Vec::new(), Vec::new(), Vec::new(), Vec::new(), Vec::new());
    for round in 0..rounds {
        let env = control_plane().await?;
        let c = raw_round(
            &env.client(),
            count,
            concurrency,
            "raw-create",
            Write::Create,
        )
        .await?;
        env.stop().await?;
        let env = control_plane().await?;
        let a = raw_round(&env.client(), count, concurrency, "raw-apply", Write::Apply).await?;
        env.stop().await?;
        let env = control_plane().await?;
        let w = own_requests_round(&env.client(), count, concurrency, "own").await?;
        env.stop().await?;
        let mut env = control_plane().await?;
        let sizes = (count, concurrency);
        let measured =
            operator_round(&mut env, sizes, (Impl::Rkb, reconciles), None, "operator").await?;
        let (o, peak) = (measured.wall, measured.peak_rss);
        env.stop().await?;
        let (c, a, w, o) = (
            c.as_secs_f64(),
            a.as_secs_f64(),
            w.as_secs_f64(),
            o.as_secs_f64(),
        );
        let mib = peak as f64 / (1024.0 * 1024.0);
        println!(
            "{round:>5}  {c:>9.2}s  {a:>8.2}s  {w:>6.2}s  {o:>7.2}s  {:>15.2}  {:>14.2}  {:>5.2}  {mib:>13.1} MiB",
            o / c,
            o / a,
            (c + w) / c
        );
        created.push(c);
        applied.push(a);
        own.push(w);
        op.push(o);
        rss.push(mib);
    }
    let ratios = |base: &[f64]| -> Vec<f64> { base.iter().zip(&op).map(|(b, o)| o / b).collect() };
    let floors: Vec<f64> = created.iter().zip(&own).map(|(c, w)| (c + w) / c).collect();
    let (rc, ra, rf) = (
        median(ratios(&created)),
        median(ratios(&applied)),
        median(floors),
    );
    let (c, a, w, o) = (median(created), median(applied), median(own), median(op));
    let peak = rss.iter().copied().fold(0.0, f64::max);
    let mib = median(rss);

    println!(
        "median {c:>9.2}s  {a:>8.2}s  {w:>6.2}s  {o:>7.2}s  {rc:>15.2}  {ra:>14.2}  {rf:>5.2}  {mib:>13.1} MiB (max {peak:.1})"
    );
    println!(
        "targets: operator <= 1.30 x raw create {}, <= 1.30 x raw apply {}, peak RSS <= 40 MB {}",
        verdict(rc <= 1.3),
        verdict(ra <= 1.3),
        verdict(peak * 1.048_576 <= 40.0)
    );
    Ok(())
}

fn verdict(ok: bool) -> &'static str {
    if ok { "(met)" } else { "(NOT met)" }
}

/// A reported quantity: its heading and how to read it from a round.
type Column = (&'static str, fn(&Measured) -> f64);

/// Medians of one count in the side-by-side comparison.
struct TwinSummary {
    count: usize,
    /// Median peak RSS in MiB: rkb, go.
    rss: [f64; 2],
    /// Rounds whose writes differed between the two operators.
    mismatched_rounds: usize,
}

/// Runs the rkb operator and its controller-runtime twin on fresh control planes, alternating which goes first.
async fn twin_bench(
    count: usize,
    rounds: usize,
    concurrency: usize,
    reconciles: Reconciles,
) -> anyhow::Result<TwinSummary> {
    let setting = match reconciles {
        Reconciles::Default => "each operator's default reconciles (1)".to_string(),
        Reconciles::Matched(n) => format!("{n} reconciles at once in both"),
    };
    println!(
        "{count} MicroServiceDeploys (5 children each), created {concurrency} at a time; {setting}; {rounds} rounds"
    );
    println!(
        "round  operator     wall   peak RSS  operator CPU  kube-apiserver CPU  etcd CPU  writes  reads+watches"
    );
    let mut measured: [Vec<Measured>; 2] = [Vec::new(), Vec::new()];
    let mut mismatched_rounds = 0;
    for round in 0..rounds {
        let order = if round % 2 == 0 {
            [Impl::Rkb, Impl::Go]
        } else {
            [Impl::Go, Impl::Rkb]
        };
        for op in order {
            let sizes = (count, concurrency);
            let m = twin_operator_round(round, sizes, (op, reconciles)).await?;
            measured[op as usize].push(m);
        }
        let (rkb, go) = (&measured[0][round], &measured[1][round]);
        if round == 0 {
            print_operator_requests(rkb, go);
        }
        if report_differing_writes(round, rkb, go) {
            mismatched_rounds += 1;
        }
    }
    print_twin_medians(&measured, reconciles, rounds, mismatched_rounds);
    Ok(TwinSummary {
        count,
        rss: [Impl::Rkb, Impl::Go].map(|op| median_of(&measured[op as usize], |m| mib(m.peak_rss))),
        mismatched_rounds,
    })
}

/// One operator's round of the twin bench on its own fresh control plane, printed as a row of the round table.
async fn twin_operator_round(
    round: usize,
    sizes: (usize, usize),
    (op, reconciles): (Impl, Reconciles),
) -> anyhow::Result<Measured> {
    let mut env = control_plane().await?;
    let m = operator_round(&mut env, sizes, (op, reconciles), None, "operator").await?;
    env.stop().await?;
    let (writes, reads): (Vec<_>, Vec<_>) = m
        .requests
        .iter()
        .filter(|(k, _)| is_operator_request(k))
        .partition(|(k, _)| is_write(k));
    let total = |v: Vec<(&String, &f64)>| v.into_iter().map(|(_, n)| n).sum::<f64>();
    println!(
        "{round:>5}  {:<8} {:>7.2}s  {:>5.1} MiB  {:>11.2}s  {:>17.2}s  {:>7.2}s  {:>6}  {:>13}",
        op.name(),
        m.wall.as_secs_f64(),
        mib(m.peak_rss),
        m.operator_cpu,
        m.apiserver_cpu,
        m.etcd_cpu,
        total(writes),
        total(reads)
    );
    Ok(m)
}

/// The requests on the operator's kinds that kube-apiserver counted for each operator, side by side.
fn print_operator_requests(rkb: &Measured, go: &Measured) {
    println!("  requests kube-apiserver counted in round 0 (operator kinds; rkb / go):");
    let keys: std::collections::BTreeSet<&String> =
        rkb.requests.keys().chain(go.requests.keys()).collect();
    for key in keys.into_iter().filter(|k| is_operator_request(k)) {
        let n = |m: &Measured| m.requests.get(key).copied().unwrap_or(0.0);
        println!("    {key:<45} {:>7} / {:<7}", n(rkb), n(go));
    }
}

/// Whether the two operators' writes in `round` differed; says how on stderr (the twin must write the same).
fn report_differing_writes(round: usize, rkb: &Measured, go: &Measured) -> bool {
    let differing = differing_writes(rkb, go);
    if !differing.is_empty() {
        eprintln!(
            "!!! round {round}: the operators' writes DIFFER: {}",
            differing.join("; ")
        );
    }
    !differing.is_empty()
}

/// The median of one reported quantity over an operator's rounds.
fn median_of(rounds: &[Measured], f: fn(&Measured) -> f64) -> f64 {
    median(rounds.iter().map(f).collect())
}

/// The medians table of the twin bench (one row per operator, then rkb/go) and the verdicts on its targets.
fn print_twin_medians(
    measured: &[Vec<Measured>; 2],
    reconciles: Reconciles,
    rounds: usize,
    mismatched_rounds: usize,
) {
    let med = |op: Impl, f: fn(&Measured) -> f64| median_of(&measured[op as usize], f);
    let columns: [Column; 5] = [
        ("wall s", |m| m.wall.as_secs_f64()),
        ("peak RSS MiB", |m| mib(m.peak_rss)),
        ("operator CPU s", |m| m.operator_cpu),
        ("kube-apiserver CPU s", |m| m.apiserver_cpu),
        ("etcd CPU s", |m| m.etcd_cpu),
    ];
    println!(
        "medians   {}",
        columns.map(|(name, _)| format!("{name:>20}")).join("")
    );
    for op in [Impl::Rkb, Impl::Go] {
        let values = columns.map(|(_, f)| format!("{:>22.2}", med(op, f)));
        println!("{:<9} {}", op.name(), values.join(""));
    }
    let ratio = |f: fn(&Measured) -> f64| med(Impl::Rkb, f) / med(Impl::Go, f);
    let ratios = columns.map(|(_, f)| format!("{:>22.2}", ratio(f)));
    println!("rkb/go    {}", ratios.join(""));
    let wall_target = match reconciles {
        Reconciles::Default => 0.7,
        Reconciles::Matched(_) => 0.9,
    };
    let (wall, rss, cpu) = (
        ratio(columns[0].1),
        ratio(columns[1].1),
        ratio(columns[2].1),
    );
    println!(
        "targets: wall <= {wall_target}x {}, peak RSS <= 0.25x {}, operator CPU <= 0.5x {}; writes equal in {}/{rounds} rounds",
        verdict(wall <= wall_target),
        verdict(rss <= 0.25),
        verdict(cpu <= 0.5),
        rounds - mismatched_rounds
    );
}

/// Operator rounds with kube-apiserver killed mid-run for `down` (outage.rs): rkb, or rkb and its twin
/// alternating with `twin`; prints each round and the medians per operator.
async fn outage_bench(
    count: usize,
    rounds: usize,
    (concurrency, reconciles, twin): (usize, Reconciles, bool),
    down: Duration,
) -> anyhow::Result<()> {
    println!(
        "{count} MicroServiceDeploys, created {concurrency} at a time, reconciles {reconciles:?}; kube-apiserver \
         killed once all are created, down {down:.1?} before its restart; {rounds} rounds"
    );
    println!(
        "round  operator  Ready at kill  kill->ready  requests meanwhile: unanswered / all  ready->steady state  total wall  peak RSS"
    );
    let ops: &[Impl] = if twin {
        &[Impl::Rkb, Impl::Go]
    } else {
        &[Impl::Rkb]
    };
    let mut recoveries: [Vec<f64>; 2] = [Vec::new(), Vec::new()];
    for round in 0..rounds {
        for k in 0..ops.len() {
            let op = ops[(round + k) % ops.len()];
            let mut env = control_plane().await?;
            let sizes = (count, concurrency);
            let setting = (op, reconciles);
            let m = operator_round(&mut env, sizes, setting, Some(down), "operator").await?;
            env.stop().await?;
            let r = m.recovery.context("an outage round reports its recovery")?;
            println!(
                "{round:>5}  {:<8}  {:>13}  {:>10.2}s  {:>35}  {:>18.2}s  {:>9.2}s  {:>5.1} MiB",
                op.name(),
                r.ready_at_kill,
                r.down.as_secs_f64(),
                format!("{} / {}", r.requests_while_down.0, r.requests_while_down.1),
                r.recovery.as_secs_f64(),
                m.wall.as_secs_f64(),
                mib(m.peak_rss)
            );
            recoveries[op as usize].push(r.recovery.as_secs_f64());
        }
    }
    for &op in ops {
        let median = median(recoveries[op as usize].clone());
        println!(
            "median recovery {}: {median:.2} s (target: within 5 s of kube-apiserver being ready at 300 instances)",
            op.name()
        );
    }
    Ok(())
}

fn mib(bytes: u64) -> f64 {
    bytes as f64 / (1024.0 * 1024.0)
}

/// The peak RSS slope per 1000 instances (between the smallest and largest count measured), and the verdict on
/// the request counts.
fn twin_conclusion(summaries: &[TwinSummary]) -> anyhow::Result<()> {
    if let (Some(low), Some(high)) = (
        summaries.iter().min_by_key(|s| s.count),
        summaries.iter().max_by_key(|s| s.count),
    ) && high.count > low.count
    {
        let per_1000 = (high.count - low.count) as f64 / 1000.0;
        let slope = |i: usize| (high.rss[i] - low.rss[i]) / per_1000;
        let (rkb, go) = (slope(0), slope(1));
        println!(
            "peak RSS per 1000 instances ({} to {}): rkb {rkb:.1} MiB, go {go:.1} MiB, rkb/go {:.2}: target <= 0.25 {}",
            low.count,
            high.count,
            rkb / go,
            verdict(rkb <= 0.25 * go)
        );
    }
    let mismatched: usize = summaries.iter().map(|s| s.mismatched_rounds).sum();
    anyhow::ensure!(
        mismatched == 0,
        "the two operators' writes differed in {mismatched} rounds (see the lines marked !!!)"
    );
    Ok(())
}
