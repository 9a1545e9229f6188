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
//! `--twin`: the rkb operator side by side with its controller-runtime twin (bench/microservice-deploy-go), each on
//! its own fresh control plane, alternating which goes first; the writes of the two must be the same.
//!
//! Every round also restarts each operator twice once it has reached steady state (restart.rs), on the control
//! plane the round filled: with kube-apiserver, then alone. A restart needs N instances in place, and filling a
//! second control plane with them only for the restarts would double a round's time (at 10,000 instances, most of
//! it). So there is no `--restart` flag.

use anyhow::Context as _;

use crate::operator::{Measured, operator_round};
use crate::requests::{differing_writes, is_operator_request, is_write};
use crate::restart::{Apiserver, Restart, restart};
use crate::twin_report::{print_requests, print_restart_medians, print_twin_medians};
use crate::{Impl, Reconciles, control_plane, median, mib, verdict};

/// The Go twin's binary, built from bench/microservice-deploy-go when its sources changed since the last build.
pub fn go_twin() -> anyhow::Result<std::path::PathBuf> {
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

/// Medians of one count in the side-by-side comparison.
pub struct TwinSummary {
    count: usize,
    /// Median peak RSS in MiB: rkb, go.
    rss: [f64; 2],
    /// Rounds whose writes differed between the two operators (at the first sync or at the restart).
    mismatched_rounds: usize,
}

/// What one operator's round of the twin bench measured: the first sync, and the restarts after it (restart.rs):
/// with kube-apiserver, then of the operator alone.
pub struct TwinRound {
    pub first: Measured,
    pub restart: Restart,
    pub operator_restart: Restart,
}

/// Runs the rkb operator and its controller-runtime twin on fresh control planes, alternating which goes first.
pub async fn twin_bench(
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
        "round  operator     wall   peak RSS  operator CPU  kube-apiserver CPU  kube-apiserver peak RSS  etcd CPU  writes  reads+watches"
    );
    let mut measured: [Vec<TwinRound>; 2] = [Vec::new(), Vec::new()];
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
            print_requests("round 0", &rkb.first.requests, &go.first.requests);
            print_requests(
                "round 0's restart",
                &rkb.restart.requests,
                &go.restart.requests,
            );
        }
        let first = report_differing_writes(round, "", &rkb.first, &go.first);
        let again = report_differing_writes(round, " at the restart", &rkb.restart, &go.restart);
        let alone = report_differing_writes(
            round,
            " at the operator's restart",
            &rkb.operator_restart,
            &go.operator_restart,
        );
        if first || again || alone {
            mismatched_rounds += 1;
        }
    }
    print_twin_medians(&measured, (count, reconciles), rounds, mismatched_rounds);
    print_restart_medians(&measured, Apiserver::Restarted);
    print_restart_medians(&measured, Apiserver::Running);
    Ok(TwinSummary {
        count,
        rss: [Impl::Rkb, Impl::Go].map(|op| {
            median(
                measured[op as usize]
                    .iter()
                    .map(|m| mib(m.first.peak_rss))
                    .collect(),
            )
        }),
        mismatched_rounds,
    })
}

/// One operator's round of the twin bench on its own fresh control plane: the first sync, then the restart, each
/// printed as a row.
pub async fn twin_operator_round(
    round: usize,
    sizes: (usize, usize),
    (op, reconciles): (Impl, Reconciles),
) -> anyhow::Result<TwinRound> {
    let mut env = control_plane().await?;
    let namespace = "operator";
    let (first, running) =
        operator_round(&mut env, sizes, (op, reconciles), None, namespace).await?;
    let (writes, reads) = writes_and_reads(&first.requests);
    println!(
        "{round:>5}  {:<8} {:>7.2}s  {:>5.1} MiB  {:>11.2}s  {:>17.2}s  {:>19.1} MiB  {:>7.2}s  {writes:>6}  {reads:>13}",
        op.name(),
        first.wall.as_secs_f64(),
        mib(first.peak_rss),
        first.operator_cpu,
        first.apiserver_cpu,
        mib(first.apiserver_peak_rss),
        first.etcd_cpu,
    );
    let (count, setting) = (sizes.0, (op, reconciles));
    let with_apiserver = (namespace, Apiserver::Restarted);
    let (restarted, running) = restart(&mut env, running, count, setting, with_apiserver).await?;
    print_restart(op, "restart", &restarted);
    let operator_only = (namespace, Apiserver::Running);
    let (alone, running) = restart(&mut env, running, count, setting, operator_only).await?;
    print_restart(op, "operator restart", &alone);
    running.stop().await?;
    env.stop().await?;
    Ok(TwinRound {
        first,
        restart: restarted,
        operator_restart: alone,
    })
}

/// One restart's row (`what`: "restart" or "operator restart").
fn print_restart(op: Impl, what: &str, again: &Restart) {
    let (writes, reads) = writes_and_reads(&again.requests);
    if let Some(floor) = again.floor {
        println!(
            "       {:<3} {what}: floor {:.2}s",
            op.name(),
            floor.as_secs_f64()
        );
    }
    println!(
        "       {:<3} {what}: first reconcile {:.2}s, idle {:.2}s ({} reconciles), operator CPU {:.2}s, peak RSS \
         {:.1} MiB; kube-apiserver CPU {:.2}s, etcd CPU {:.2}s, RSS {:.1} MiB before, peak {:.1} MiB in the sync, {:.1} MiB to idle; \
         writes {writes}, reads+watches {reads}",
        op.name(),
        again.first_reconcile.as_secs_f64(),
        again.idle.as_secs_f64(),
        again.reconciles,
        again.operator_cpu,
        mib(again.peak_rss),
        again.apiserver_cpu,
        again.etcd_cpu,
        mib(again.apiserver_rss_before),
        mib(again.apiserver_peak_rss_sync),
        mib(again.apiserver_peak_rss),
    );
}

/// The writes and the other requests (reads, watches) on the operator's kinds among `requests`.
fn writes_and_reads(requests: &std::collections::BTreeMap<String, f64>) -> (f64, f64) {
    let on_kinds = requests.iter().filter(|(k, _)| is_operator_request(k));
    let (writes, reads): (Vec<_>, Vec<_>) = on_kinds.partition(|(k, _)| is_write(k));
    let total = |v: Vec<(&String, &f64)>| v.into_iter().map(|(_, n)| n).sum::<f64>();
    (total(writes), total(reads))
}

/// Whether the two operators' writes differed (`when`: "" or " at the restart"); says how on stderr (the twin must
/// write the same).
fn report_differing_writes<T: Requests>(round: usize, when: &str, rkb: &T, go: &T) -> bool {
    let differing = differing_writes(rkb.requests(), go.requests());
    if !differing.is_empty() {
        eprintln!(
            "!!! round {round}: the operators' writes{when} DIFFER: {}",
            differing.join("; ")
        );
    }
    !differing.is_empty()
}

/// What kube-apiserver counted in a measured window.
trait Requests {
    fn requests(&self) -> &std::collections::BTreeMap<String, f64>;
}

impl Requests for Measured {
    fn requests(&self) -> &std::collections::BTreeMap<String, f64> {
        &self.requests
    }
}

impl Requests for Restart {
    fn requests(&self) -> &std::collections::BTreeMap<String, f64> {
        &self.requests
    }
}

pub fn twin_conclusion(summaries: &[TwinSummary]) -> anyhow::Result<()> {
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
