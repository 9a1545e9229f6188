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
//! The operator under test as a separate process (this binary's `operator` subcommand, or the Go twin), and one
//! measured round of it: from its start on an empty namespace to steady state and the end of its writes.

use std::collections::BTreeMap;
use std::process::Stdio;
use std::time::{Duration, Instant};

use anyhow::Context as _;
use rkb_runtime::envtest::Environment;
use tokio::io::{AsyncReadExt, AsyncWriteExt};

use crate::procfs::{ControlPlaneCpu, RssSampler, apiserver_pid, cpu_seconds, peak_rss};
use crate::requests::{difference, quiet_request_counts, request_counts};
use crate::twin::go_twin;
use crate::workload::{create_instances, create_namespace, steady_state, warm_up};
use crate::{Impl, Reconciles, outage, trace};

/// What one operator round measured.
pub struct Measured {
    /// Time to steady state.
    pub wall: Duration,
    /// The operator's VmHWM, bytes.
    pub peak_rss: u64,
    /// CPU seconds in the measured window: the operator, kube-apiserver, etcd.
    pub operator_cpu: f64,
    pub apiserver_cpu: f64,
    pub etcd_cpu: f64,
    /// kube-apiserver's highest sampled VmRSS from the operator's start to the end of its writes, bytes.
    pub apiserver_peak_rss: u64,
    /// Requests kube-apiserver counted from just before the operator started to steady state, by "VERB resource"
    /// (empty with an outage: the restarted server counts from 0).
    pub requests: BTreeMap<String, f64>,
    /// With `--outage`: what the outage cost.
    pub recovery: Option<outage::Recovery>,
}

/// How the operator process is started.
pub fn operator_command(op: Impl) -> anyhow::Result<tokio::process::Command> {
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

/// A started operator process and the local ports it serves its probes and metrics on.
pub struct Running {
    child: tokio::process::Child,
    pub pid: u32,
    probe_port: u16,
    pub metrics_port: u16,
}

impl Running {
    /// Starts `op` watching only `namespace` of `env`'s control plane, with plain-HTTP metrics on a free port.
    pub fn spawn(
        env: &Environment,
        (op, reconciles): (Impl, Reconciles),
        namespace: &str,
    ) -> anyhow::Result<Self> {
        let free_port = || -> std::io::Result<u16> {
            Ok(std::net::TcpListener::bind("127.0.0.1:0")?
                .local_addr()?
                .port())
        };
        let (probe_port, metrics_port) = (free_port()?, free_port()?);
        let mut command = operator_command(op)?;
        command
            .args(["--namespaced", "--metrics-secure=false"])
            .arg(format!("--metrics-bind-address=127.0.0.1:{metrics_port}"))
            .arg(format!(
                "--health-probe-bind-address=127.0.0.1:{probe_port}"
            ));
        if let Reconciles::Matched(n) = reconciles {
            command.arg(format!("--max-concurrent-reconciles={n}"));
        }
        let child = command
            .env("KUBECONFIG", env.kubeconfig_path())
            .env("WATCH_NAMESPACE", namespace)
            .stdin(Stdio::null())
            .kill_on_drop(true)
            .spawn()
            .context("starting the operator")?;
        let pid = child.id().context("operator pid")?;
        Ok(Self {
            child,
            pid,
            probe_port,
            metrics_port,
        })
    }

    /// Fails when the operator has exited.
    pub fn ensure_running(&mut self) -> anyhow::Result<()> {
        match self.child.try_wait()? {
            Some(status) => anyhow::bail!("the operator exited: {status}"),
            None => Ok(()),
        }
    }

    /// Returns once /readyz answers 200 (at most 60 s).
    pub async fn ready(&mut self) -> anyhow::Result<()> {
        let ready_by = Instant::now() + Duration::from_secs(60);
        while http_get(self.probe_port, "/readyz").await.is_none() {
            anyhow::ensure!(
                Instant::now() < ready_by,
                "the operator did not become ready"
            );
            self.ensure_running()?;
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        Ok(())
    }

    /// Its /metrics text, empty while it does not answer.
    pub async fn metrics(&self) -> String {
        http_get(self.metrics_port, "/metrics")
            .await
            .unwrap_or_default()
    }

    /// Stops it with SIGTERM, as a rollout does, and waits for it to exit (10 s; kill_on_drop covers a hang).
    pub async fn stop(mut self) -> anyhow::Result<()> {
        std::process::Command::new("kill")
            .arg(self.pid.to_string())
            .status()?;
        let _ = tokio::time::timeout(Duration::from_secs(10), self.child.wait()).await;
        Ok(())
    }
}

/// The operator: creates the MicroServiceDeploys and waits for the operator's children. The operator is left
/// running, for a restart to stop (restart.rs) or for the caller to stop.
pub async fn operator_round(
    env: &mut Environment,
    (count, concurrency): (usize, usize),
    (op, reconciles): (Impl, Reconciles),
    outage: Option<Duration>,
    namespace: &str,
) -> anyhow::Result<(Measured, Running)> {
    let client = env.client();
    create_namespace(&client, namespace).await?;
    warm_up(&client, count).await?;
    let requests_before = request_counts(&client).await?;
    let apiserver_rss = RssSampler::start(apiserver_pid()?);
    let mut running = Running::spawn(env, (op, reconciles), namespace)?;
    running.ready().await?;

    let cpu = ControlPlaneCpu::now();
    let operator_cpu = cpu_seconds(running.pid);
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
            let metrics_port = running.metrics_port;
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
    let operator_cpu = cpu_seconds(running.pid) - operator_cpu;
    let (apiserver_cpu, etcd_cpu) = cpu.used();
    cpu.trace(namespace, Some(operator_cpu));
    trace_operator_metrics(&running.metrics().await, namespace, op);
    Ok((
        Measured {
            wall,
            peak_rss: peak_rss(running.pid)?,
            operator_cpu,
            apiserver_cpu,
            apiserver_peak_rss: apiserver_rss.stop().peak(),
            etcd_cpu,
            requests,
            recovery,
        },
        running,
    ))
}

/// What the operator did (reconciles, child writes sent and spared), on stderr with STEADY_STATE_TRACE=1.
pub fn trace_operator_metrics(metrics: &str, namespace: &str, op: Impl) {
    for line in metrics.lines().filter(|l| {
        l.starts_with("controller_runtime_reconcile_total")
            || l.starts_with("microservicedeploy_child_writes")
            || l.starts_with("rkb_child_writes")
    }) {
        trace(&format!("{namespace}: {} {line}", op.name()));
    }
}

/// GET `path` on a local port; the body when the answer is 200.
pub async fn http_get(port: u16, path: &str) -> Option<String> {
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
