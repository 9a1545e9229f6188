//! `--outage SECS`: kube-apiserver killed in the middle of a run and left down for SECS, then started again on
//! the same etcd. What is measured is recovery: from the new kube-apiserver being ready until every child is in
//! place and every MicroServiceDeploy says Ready, beside how many were Ready at the kill (so it was mid-run) and
//! how many requests the operator sent to a server that was not there (its `rest_client_requests_total` with
//! code `<error>`, no answer; both operators export it): a bounded rate, not a hot loop. kube-apiserver answers
//! (`/version`, then 503s, then everything) a while before envtest finds it ready, so requests with an answer in
//! the same window are counted apart.
//!
//! kube-apiserver's own request counters start again at 0 when it restarts, so outage rounds do not compare the
//! two operators' writes; the rounds without an outage do.

use std::time::{Duration, Instant};

use futures::StreamExt;
use microservice_deploy::api::v1::MicroServiceDeploy;
use microservice_deploy::controller::microservicedeploy_controller::READY;
use rkb_runtime::envtest::Environment;
use rkb_runtime::kube::api::ListParams;
use rkb_runtime::kube::runtime::{WatchStreamExt, watcher};
use rkb_runtime::{Api, Client};

use crate::operator::{http_get, operator_round};
use crate::workload::{create_instances, steady_state};
use crate::{Impl, Reconciles, control_plane, median, mib, trace};
use anyhow::Context as _;

/// What an outage in the middle of a run cost the operator.
pub struct Recovery {
    /// MicroServiceDeploys Ready when kube-apiserver was killed.
    pub ready_at_kill: usize,
    /// From the kill until the new kube-apiserver was ready (the outage plus its start).
    pub down: Duration,
    /// Requests the operator sent from the kill until the new server was ready: without an answer, and all.
    pub requests_while_down: (f64, f64),
    /// From the new kube-apiserver being ready until steady state with every MicroServiceDeploy Ready.
    pub recovery: Duration,
}

/// Creates the MicroServiceDeploys, kills kube-apiserver for `outage` once they are all created (the operator is
/// then mid-run), and waits for steady state after the restart.
pub async fn ride_out(
    env: &mut Environment,
    (count, concurrency): (usize, usize),
    namespace: &str,
    metrics_port: u16,
    outage: Duration,
) -> anyhow::Result<Recovery> {
    let client = env.client();
    create_instances(&client, count, concurrency, namespace).await?;
    let ready_at_kill = ready_count(&client, namespace).await?;
    let before = operator_requests(metrics_port).await?;
    let killed = Instant::now();
    env.kill_apiserver_for(outage).await?;
    let back = Instant::now();
    let after = operator_requests(metrics_port).await?;
    let requests_while_down = (after.0 - before.0, after.1 - before.1);
    trace(&format!(
        "{namespace}: kube-apiserver back after {:.2?}; {ready_at_kill} Ready at the kill",
        back - killed
    ));
    tokio::try_join!(
        steady_state(&client, count, namespace),
        all_ready(client.clone(), count, namespace)
    )?;
    Ok(Recovery {
        ready_at_kill,
        down: back - killed,
        requests_while_down,
        recovery: back.elapsed(),
    })
}

fn is_ready(obj: &MicroServiceDeploy) -> bool {
    obj.status.as_ref().is_some_and(|status| {
        status.observed_generation == obj.metadata.generation
            && status
                .conditions
                .iter()
                .any(|c| c.type_ == READY && c.status == "True")
    })
}

async fn ready_count(client: &Client, namespace: &str) -> anyhow::Result<usize> {
    let api: Api<MicroServiceDeploy> = Api::namespaced(client.clone(), namespace);
    let list = api.list(&ListParams::default()).await?;
    Ok(list.items.iter().filter(|o| is_ready(o)).count())
}

/// Resolves once `count` MicroServiceDeploys in `namespace` are Ready for their generation. Watch errors (the
/// server restarting) are retried with the watcher's backoff.
async fn all_ready(client: Client, count: usize, namespace: &str) -> anyhow::Result<()> {
    let api: Api<MicroServiceDeploy> = Api::namespaced(client, namespace);
    let mut events = std::pin::pin!(
        watcher(api, watcher::Config::default())
            .default_backoff()
            .applied_objects()
    );
    let mut ready = std::collections::HashSet::new();
    while ready.len() < count {
        match events.next().await {
            Some(Ok(obj)) if is_ready(&obj) => {
                ready.insert(obj.metadata.name.unwrap_or_default());
            }
            Some(Ok(obj)) => {
                ready.remove(obj.metadata.name.as_deref().unwrap_or_default());
            }
            Some(Err(e)) => trace(&format!("{namespace}: watch of MicroServiceDeploys: {e}")),
            None => anyhow::bail!("watch ended"),
        }
    }
    Ok(())
}

/// The operator's `rest_client_requests_total`: those without an answer (code `<error>`), and all.
async fn operator_requests(metrics_port: u16) -> anyhow::Result<(f64, f64)> {
    let text = http_get(metrics_port, "/metrics")
        .await
        .ok_or_else(|| anyhow::anyhow!("the operator's /metrics did not answer"))?;
    let (mut unanswered, mut all) = (0.0, 0.0);
    for line in text
        .lines()
        .filter(|l| l.starts_with("rest_client_requests_total{"))
    {
        let Some(n) = line
            .rsplit_once(' ')
            .and_then(|(_, v)| v.parse::<f64>().ok())
        else {
            continue;
        };
        all += n;
        if line.contains("code=\"<error>\"") {
            unanswered += n;
        }
    }
    Ok((unanswered, all))
}
/// Operator rounds with kube-apiserver killed mid-run for `down` (outage.rs): rkb, or rkb and its twin
/// alternating with `twin`; prints each round and the medians per operator.
pub async fn outage_bench(
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
            let (m, running) =
                operator_round(&mut env, sizes, setting, Some(down), "operator").await?;
            running.stop().await?;
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
