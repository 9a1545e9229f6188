//! The shard probe: a small operator written as a user writes one, on rkb-runtime's public API, whose reconciles
//! leave a trace that proves what sharding promises (issue #28). Its kind, `Probe` (probe.rkb.dev/v1, namespaced,
//! `#[derive(Kind)]` in shard_probe/src/api), gets one child ConfigMap; the controller is `.sharded()`.
//!
//! ```text
//! # one replica of the operator, against the cluster in KUBECONFIG (the Probe CRD installed):
//! cargo run -p rkb-runtime --example shard_probe -- --log-file /tmp/probe.log --sharded --leader-elect \
//!     --leader-election-namespace default --shard-identity probe-0
//! # the benchmark: envtest, 10,000 Probes, 1, 2 and 3 replicas (this binary, started once per replica):
//! cargo run -p rkb-runtime --release --example shard_probe -- --bench --instances 10000 --replicas 1,2,3
//! ```
//!
//! Probe flags (the manager's own flags, `--help`, follow them): `--log-file PATH` appends a line when each
//! reconcile starts and when it ends (or is dropped); `--work DURATION` is how long a reconcile works before it
//! applies the child (default 20ms: long enough that two replicas reconciling one Probe at once would overlap in
//! the log); `--concurrency N` reconciles up to N Probes at once (default 1). The log is the proof's witness: every line is one `write` to a file opened for appending, so the lines
//! of all replicas land whole, in the order they happened (one host, one file), and `[start, end]` of one object
//! by two replicas can be compared by their place in the file, without clocks. runtime/tests/sharding.rs reads it.
//!
//! On start the probe prints `metrics: <address>` (its /metrics, plain HTTP when run with `--metrics-secure=false`)
//! so a harness can scrape `rkb_shard_objects` and `process_resident_memory_bytes`.

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use k8s_openapi::api::core::v1::ConfigMap;
use kube::api::ObjectMeta;
use kube::runtime::watcher;
use rkb_runtime::child_index::ChildIndex;
use rkb_runtime::{
    Action, BoxError, Context, Controller, Manager, ManagerOptions, Resource, ResourceExt,
};

#[path = "shard_probe/src/api/mod.rs"]
pub mod api;
#[path = "shard_probe/bench.rs"]
mod bench;
#[path = "shard_probe/harness.rs"]
pub mod harness;
#[path = "shard_probe/trace.rs"]
pub mod trace;

pub use api::v1::{Probe, ProbeSpec};

/// The probe's own flags, taken off the command line before the manager's.
#[derive(Debug, Clone)]
struct ProbeFlags {
    log_file: Option<PathBuf>,
    work: Duration,
    concurrency: u16,
    bench: Option<Vec<String>>,
}

/// Splits the probe's flags from the manager's. `--bench` takes every argument after it (harness::bench parses
/// them).
fn split_args(args: Vec<String>) -> Result<(ProbeFlags, Vec<String>), String> {
    let mut flags = ProbeFlags {
        log_file: None,
        work: Duration::from_millis(20),
        concurrency: 1,
        bench: None,
    };
    let mut manager = Vec::new();
    let mut args = args.into_iter();
    while let Some(arg) = args.next() {
        let (name, inline) = match arg.split_once('=') {
            Some((name, value)) => (name.to_string(), Some(value.to_string())),
            None => (arg.clone(), None),
        };
        let mut value = |name: &str| {
            inline
                .clone()
                .or_else(|| args.next())
                .ok_or_else(|| format!("{name} needs a value"))
        };
        match name.as_str() {
            "--log-file" => flags.log_file = Some(PathBuf::from(value("--log-file")?)),
            "--work" => {
                let text = value("--work")?;
                flags.work = humantime::parse_duration(&text)
                    .map_err(|e| format!("invalid value {text:?} for --work: {e}"))?;
            }
            "--concurrency" => {
                let text = value("--concurrency")?;
                flags.concurrency = text
                    .parse()
                    .map_err(|e| format!("invalid value {text:?} for --concurrency: {e}"))?;
            }
            "--bench" => {
                flags.bench = Some(args.by_ref().collect());
            }
            _ => manager.push(arg),
        }
    }
    Ok((flags, manager))
}

/// The label of the Probes' children, which the child index watches.
const CHILD_LABEL: &str = "probe.rkb.dev/child";

/// What every reconcile shares: where to write its trace, how long it works, and what it applied.
struct Probing {
    log: Option<trace::Writer>,
    work: Duration,
    index: ChildIndex,
}

/// Copies the Probe's payload into its child ConfigMap (through the child index, as rkb's examples write
/// children: an apply that would change nothing is skipped, and the events of its own applies reconcile nothing),
/// between a start and an end line in the log. The end line is written when the reconcile's future ends, also when
/// it is dropped mid-way, so an interval in the log covers exactly the time the reconcile could act.
async fn reconcile(
    probe: Arc<Probe>,
    ctx: Context,
    probing: Arc<Probing>,
) -> Result<Action, BoxError> {
    let key = format!(
        "{}/{}",
        probe.namespace().unwrap_or_default(),
        probe.name_any()
    );
    let _interval = probing.log.as_ref().map(|log| log.interval(&key));
    // The work a real reconcile does between reading the object and writing what it implies.
    tokio::time::sleep(probing.work).await;
    let namespace = probe.namespace().unwrap_or_default();
    let child = ConfigMap {
        metadata: ObjectMeta {
            name: Some(format!("{}-child", probe.name_any())),
            namespace: Some(namespace.clone()),
            labels: Some([(CHILD_LABEL.to_string(), "true".to_string())].into()),
            owner_references: Some(vec![probe.controller_owner_ref(&()).ok_or("no uid")?]),
            ..ObjectMeta::default()
        },
        data: Some([("payload".to_string(), probe.spec.payload.clone())].into()),
        ..ConfigMap::default()
    };
    let api = ctx.api_in::<ConfigMap>(&namespace);
    probing
        .index
        .apply(&api, &child, ctx.field_manager())
        .await?;
    Ok(Action::await_change())
}

/// Runs one replica of the operator until SIGTERM.
async fn operate(flags: ProbeFlags, manager_args: Vec<String>) -> anyhow::Result<()> {
    let options = ManagerOptions::try_parse_from("Runs the shard probe", manager_args)?;
    rkb_runtime::logging::init(options.log_format);
    // The shard identity names the replica in the log, and in the leader-election Lease, so a harness can tell
    // which replica leads.
    let replica = options
        .shard_identity
        .clone()
        .unwrap_or_else(|| format!("pid-{}", std::process::id()));
    let log = match &flags.log_file {
        Some(path) => Some(trace::Writer::open(path, &replica)?),
        None => None,
    };
    let mgr = Manager::builder(harness::RING)
        .identity(replica)
        .options(options)
        .build()
        .await?;
    if let Some(addr) = mgr.metrics_addr() {
        println!("metrics: {addr}");
    }
    let probing = Arc::new(Probing {
        log,
        work: flags.work,
        index: ChildIndex::default(),
    });
    let concurrency = flags.concurrency;
    mgr.add(move |ctx: Context| {
        let probing = probing.clone();
        async move {
            let children = watcher::Config::default().labels(&format!("{CHILD_LABEL}=true"));
            Controller::for_kind::<Probe>(&ctx)
                .owns_indexed::<ConfigMap>(&probing.index, children)
                .sharded()
                .concurrency(concurrency)
                .run(move |probe, ctx| reconcile(probe, ctx, probing.clone()))
                .await
        }
    });
    mgr.run().await?;
    Ok(())
}

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    let args: Vec<String> = std::env::args().collect();
    let (flags, manager_args) = split_args(args).map_err(anyhow::Error::msg)?;
    match flags.bench.clone() {
        Some(bench_args) => bench::run(&bench_args).await,
        None => operate(flags, manager_args).await,
    }
}
