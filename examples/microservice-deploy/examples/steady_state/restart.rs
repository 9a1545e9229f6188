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
//! The restart at size: the operator that brought N instances to steady state is stopped (SIGTERM) and started
//! again on the same etcd, with nothing changed meanwhile, so everything it finds is already as desired. Twice:
//! - [`Apiserver::Restarted`]: kube-apiserver is restarted too (same flags and etcd) before the operator starts,
//!   and the operator waits until its RSS has settled: the apiserver that served the creation of N instances keeps
//!   the heap it grew meanwhile, in which an initial sync's buffers would disappear. From a settled restart, the
//!   RSS before the operator starts ("before") and the peak during the sync say what serving the sync cost. A
//!   restarted kube-apiserver serves the first watches of each kind slower (more than twice the CPU for the same
//!   sync, measured at 10,000), so this is the restart of a whole control plane;
//! - [`Apiserver::Running`]: then the operator alone, on the kube-apiserver that served the first restart: an
//!   operator's rollout or crash on a running cluster.
//!
//! Before the restart with kube-apiserver, the **floor** of that restart: kube-apiserver is restarted and settled,
//! a bare client (kube's watcher, typed) streams every MicroServiceDeploy, and the time from its request to the end
//! of that initial list is the floor; then kube-apiserver is restarted again for the operator. No operator can
//! reconcile before it has its own kind's objects, and on a restarted server most of that time is the server's
//! (custom resources' watch cache is filled from etcd at the first request for them), so the floor is the part of
//! the restart no operator can save.
//!
//! Measured from the new process's start (spawn):
//! - **first reconcile**: the first moment its `controller_runtime_reconcile_total` (the sum over results, read
//!   from its /metrics every 50 ms) is above 0. Both operators reconcile only once their caches are filled, so
//!   this is the initial sync, plus process start;
//! - **idle** ("nothing left to write"): the moment its reconcile count reached its final value, confirmed by
//!   [`SETTLE`] with no further reconcile and then [`SETTLE`] with no change in kube-apiserver's count of writes
//!   on the operator's kinds (`apiserver_request_total`, [`is_write`]); the count must have reached N (every
//!   instance reconciled once) first. The settle windows themselves are not part of the time.
//! - CPU of the operator, kube-apiserver and etcd, from the start to the end of the settle windows; the
//!   operator's VmHWM; kube-apiserver's VmRSS sampled every 20 ms, its peak until the first reconcile (the initial
//!   sync) and until idle; the requests kube-apiserver counted, whose writes must be the same for both operators.

use std::collections::BTreeMap;
use std::time::{Duration, Instant};

use futures::TryStreamExt;
use microservice_deploy::api::v1::MicroServiceDeploy;
use rkb_runtime::Api;
use rkb_runtime::envtest::Environment;
use rkb_runtime::kube::runtime::watcher;

use crate::operator::{Running, trace_operator_metrics};
use crate::procfs::{
    ControlPlaneCpu, RssSampler, apiserver_pid, cpu_seconds, peak_rss, settled_rss,
};
use crate::requests::{difference, is_write, request_counts};
use crate::{Impl, Reconciles};

/// How long nothing may change for the operator to count as idle (once for reconciles, then for writes).
pub const SETTLE: Duration = Duration::from_secs(2);

/// How often the operator's /metrics is read during the restart.
const POLL_EVERY: Duration = Duration::from_millis(50);

/// What one restart measured.
pub struct Restart {
    /// From the process's start to its first reconcile, and to idle.
    pub first_reconcile: Duration,
    pub idle: Duration,
    /// Reconciles it ran until idle.
    pub reconciles: f64,
    /// CPU seconds from its start to the end of the settle windows: the operator, kube-apiserver, etcd.
    pub operator_cpu: f64,
    pub apiserver_cpu: f64,
    pub etcd_cpu: f64,
    /// The operator's VmHWM, bytes.
    pub peak_rss: u64,
    /// kube-apiserver's VmRSS before the operator started, its sampled peak until the first reconcile, and until
    /// idle, bytes.
    pub apiserver_rss_before: u64,
    pub apiserver_peak_rss_sync: u64,
    pub apiserver_peak_rss: u64,
    /// Requests kube-apiserver counted from the start to the end of the settle windows, by "VERB resource".
    pub requests: BTreeMap<String, f64>,
    /// With kube-apiserver restarted: the floor (module docs).
    pub floor: Option<Duration>,
}

/// Whether kube-apiserver restarts with the operator (module docs).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Apiserver {
    Restarted,
    Running,
}

/// Stops `running` (the operator of `op` that brought `count` instances in `namespace` to steady state), starts it
/// again (after kube-apiserver, when `apiserver` says so), and measures until it is idle; returns what it measured
/// and the operator, still running.
pub async fn restart(
    env: &mut Environment,
    running: Running,
    count: usize,
    (op, reconciles): (Impl, Reconciles),
    (namespace, apiserver): (&str, Apiserver),
) -> anyhow::Result<(Restart, Running)> {
    running.stop().await?;
    let floor = if apiserver == Apiserver::Restarted {
        env.restart_apiserver().await?;
        settled_rss(apiserver_pid()?).await?;
        let floor = floor(env).await?;
        // The floor's list filled the server's cache of MicroServiceDeploys: the operator gets a server that has
        // not served them yet, as the floor's client did.
        env.restart_apiserver().await?;
        Some(floor)
    } else {
        None
    };
    let apiserver = apiserver_pid()?;
    let apiserver_rss_before = settled_rss(apiserver).await?;
    let client = env.client();
    let requests_before = request_counts(&client).await?;
    let cpu = ControlPlaneCpu::now();
    let apiserver_rss = RssSampler::start(apiserver);
    let started = Instant::now();
    let mut running = Running::spawn(env, (op, reconciles), namespace)?;
    let (first_reconcile, idle, reconciles) = until_idle(&mut running, &client, count).await?;
    let requests = difference(request_counts(&client).await?, &requests_before);
    let (apiserver_cpu, etcd_cpu) = cpu.used();
    let operator_cpu = cpu_seconds(running.pid);
    let samples = apiserver_rss.stop();
    trace_operator_metrics(&running.metrics().await, namespace, op);
    let measured = Restart {
        first_reconcile: first_reconcile - started,
        idle: idle - started,
        reconciles,
        operator_cpu,
        apiserver_cpu,
        etcd_cpu,
        peak_rss: peak_rss(running.pid)?,
        apiserver_rss_before,
        apiserver_peak_rss_sync: samples.peak_until(first_reconcile),
        apiserver_peak_rss: samples.peak_until(idle),
        requests,
        floor,
    };
    Ok((measured, running))
}

/// The floor of a restart with kube-apiserver (module docs), on a kube-apiserver just restarted and settled.
async fn floor(env: &Environment) -> anyhow::Result<Duration> {
    let api: Api<MicroServiceDeploy> = Api::all(env.client());
    let started = Instant::now();
    let events = watcher(api, watcher::Config::default().streaming_lists());
    let mut events = std::pin::pin!(events);
    while let Some(event) = events.try_next().await? {
        if let watcher::Event::InitDone = event {
            return Ok(started.elapsed());
        }
    }
    anyhow::bail!("the watch of MicroServiceDeploys ended before its initial list")
}

/// The sum of `controller_runtime_reconcile_total` over its labels in a /metrics text.
fn reconcile_total(metrics: &str) -> f64 {
    metrics
        .lines()
        .filter(|l| l.starts_with("controller_runtime_reconcile_total{"))
        .filter_map(|l| l.rsplit_once(' ')?.1.parse::<f64>().ok())
        .sum()
}

/// kube-apiserver's count of writes on the operator's kinds.
async fn write_count(client: &rkb_runtime::Client) -> anyhow::Result<f64> {
    let counts = request_counts(client).await?;
    Ok(counts
        .iter()
        .filter(|(k, _)| is_write(k))
        .map(|(_, n)| n)
        .sum())
}

/// Reads the operator's reconcile count until it is idle (see the module docs; at most 15 minutes); returns when
/// its first reconcile and its last one were seen, and the count.
async fn until_idle(
    running: &mut Running,
    client: &rkb_runtime::Client,
    count: usize,
) -> anyhow::Result<(Instant, Instant, f64)> {
    let give_up = Instant::now() + Duration::from_secs(900);
    let (mut first, mut total, mut changed) = (None, 0.0, Instant::now());
    let mut writes_at_settle: Option<f64> = None;
    loop {
        anyhow::ensure!(
            Instant::now() < give_up,
            "the restarted operator never went idle"
        );
        running.ensure_running()?;
        tokio::time::sleep(POLL_EVERY).await;
        let now = reconcile_total(&running.metrics().await);
        if now != total {
            (total, changed, writes_at_settle) = (now, Instant::now(), None);
            first.get_or_insert(changed);
        }
        let Some(first) = first else { continue };
        if total < count as f64 || changed.elapsed() < SETTLE {
            continue;
        }
        // Reconciles have stopped: now the writes must stay still for SETTLE too.
        match writes_at_settle {
            None => writes_at_settle = Some(write_count(client).await?),
            Some(before) if changed.elapsed() >= 2 * SETTLE => {
                if write_count(client).await? == before {
                    return Ok((first, changed, total));
                }
                // A write without a reconcile: wait for the next still window.
                changed = Instant::now();
                writes_at_settle = None;
            }
            Some(_) => {}
        }
    }
}
