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
//! per operator the time to steady state, peak RSS, CPU of the operator, kube-apiserver and etcd, kube-apiserver's
//! peak RSS (sampled), and the API requests kube-apiserver counted in the window (`apiserver_request_total`). Then,
//! on the same control plane, it restarts the operator and measures the time to its first reconcile and to idle
//! (restart.rs). It fails when the writes of the two operators differ, at the first sync or at the restart.
//!
//! Files: workload.rs (the instances, their children, steady state), operator.rs (the operator process and one
//! measured round), restart.rs, twin.rs and twin_report.rs (`--twin` and its tables), raw.rs (the raw-client
//! rounds), outage.rs (`--outage`), requests.rs (kube-apiserver's request counts), procfs.rs (CPU and memory).
//!
//! `--outage SECS` runs only operator rounds (of rkb, and of the twin with `--twin`), each with kube-apiserver
//! killed once the MicroServiceDeploys are created and left down for SECS; it reports the time to recover
//! (outage.rs).

mod operator;
mod outage;
mod procfs;
mod raw;
mod requests;
mod restart;
#[path = "../../tests/common/subset.rs"]
mod subset;
mod twin;
mod twin_report;
mod workload;

use std::time::Duration;

use clap::Parser;
use microservice_deploy::controller::microservicedeploy_controller::{Settings, controller_with};
use microservice_deploy::controller::namespace_defaults::NamespaceDefaults;
use rkb_runtime::ManagerOptions;
use rkb_runtime::envtest::Environment;

use crate::outage::outage_bench;
use crate::raw::bench;
use crate::twin::{twin_bench, twin_conclusion};

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

// As the manager binary (src/main.rs): the benchmark's operator process is this binary.
#[global_allocator]
static ALLOCATOR: rkb_runtime::Allocator = rkb_runtime::Allocator;

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

/// Phase timings on stderr with STEADY_STATE_TRACE=1.
fn trace(message: &str) {
    if std::env::var_os("STEADY_STATE_TRACE").is_some() {
        eprintln!("  {message}");
    }
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

fn verdict(ok: bool) -> &'static str {
    if ok { "(met)" } else { "(NOT met)" }
}

fn mib(bytes: u64) -> f64 {
    bytes as f64 / (1024.0 * 1024.0)
}
