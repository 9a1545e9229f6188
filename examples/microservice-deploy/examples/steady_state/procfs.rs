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
//! What /proc says about the processes measured: CPU seconds, peak and sampled resident memory, and the control
//! plane's processes (this process's children, found by their command name).

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use anyhow::Context as _;

use crate::trace;

/// CPU seconds (user + system) a process has used so far; 0 when it cannot be read.
pub fn cpu_seconds(pid: u32) -> f64 {
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

/// This process's children named kube-apiserver or etcd (the control plane envtest started), with their pids.
fn control_plane_processes() -> Vec<(String, u32)> {
    let me = std::process::id();
    let mut found = Vec::new();
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
            found.push((comm.to_string(), pid));
        }
    }
    found
}

/// The pid of the running kube-apiserver (it changes when the benchmark restarts it).
pub fn apiserver_pid() -> anyhow::Result<u32> {
    control_plane_processes()
        .into_iter()
        .find_map(|(comm, pid)| (comm == "kube-apiserver").then_some(pid))
        .context("no kube-apiserver among this process's children")
}

/// The CPU the API server and etcd (this process's children) have used since a point in time: with two cores,
/// it is what the time to steady state is made of.
pub struct ControlPlaneCpu {
    start: Vec<(String, u32, f64)>,
}

impl ControlPlaneCpu {
    pub fn now() -> Self {
        let start = control_plane_processes()
            .into_iter()
            .map(|(comm, pid)| (comm, pid, cpu_seconds(pid)))
            .collect();
        Self { start }
    }

    /// CPU seconds kube-apiserver and etcd used since `now`.
    pub fn used(&self) -> (f64, f64) {
        let of = |name: &str| -> f64 {
            self.start
                .iter()
                .filter(|(comm, ..)| comm == name)
                .map(|(_, pid, at)| cpu_seconds(*pid) - at)
                .sum()
        };
        (of("kube-apiserver"), of("etcd"))
    }

    pub fn trace(&self, namespace: &str, operator: Option<f64>) {
        let used: Vec<String> = self
            .start
            .iter()
            .map(|(comm, pid, at)| format!("{comm} {:.2}s", cpu_seconds(*pid) - at))
            .chain(operator.map(|s| format!("operator {s:.2}s")))
            .collect();
        trace(&format!("{namespace}: CPU used: {}", used.join(", ")));
    }
}

/// A `Vm...:` line of /proc/<pid>/status (VmHWM: peak resident set, VmRSS: resident set now), in bytes.
fn status_bytes(pid: u32, field: &str) -> anyhow::Result<u64> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status"))?;
    let line = status
        .lines()
        .find_map(|l| l.strip_prefix(field)?.strip_prefix(':'))
        .with_context(|| format!("no {field} in /proc/{pid}/status"))?;
    let kib: u64 = line
        .split_whitespace()
        .next()
        .with_context(|| format!("{field} value"))?
        .parse()?;
    Ok(kib * 1024)
}

/// VmHWM (peak resident set) of a process, in bytes.
pub fn peak_rss(pid: u32) -> anyhow::Result<u64> {
    status_bytes(pid, "VmHWM")
}

/// How often [`RssSampler`] reads VmRSS: short against a list of 50,000 objects (seconds), cheap (one small read).
const RSS_SAMPLE_EVERY: Duration = Duration::from_millis(20);

/// Samples a process's resident set (VmRSS) on a thread of its own, so a busy async runtime cannot delay it. Used
/// for kube-apiserver, whose VmHWM would also hold peaks from before the window being measured.
pub struct RssSampler {
    stop: Arc<AtomicBool>,
    thread: std::thread::JoinHandle<Vec<(Instant, u64)>>,
}

impl RssSampler {
    pub fn start(pid: u32) -> Self {
        let stop = Arc::new(AtomicBool::new(false));
        let stopped = stop.clone();
        let thread = std::thread::spawn(move || {
            let mut samples = Vec::new();
            while !stopped.load(Ordering::Relaxed) {
                if let Ok(rss) = status_bytes(pid, "VmRSS") {
                    samples.push((Instant::now(), rss));
                }
                std::thread::sleep(RSS_SAMPLE_EVERY);
            }
            samples
        });
        Self { stop, thread }
    }

    /// The samples taken, in time order.
    pub fn stop(self) -> RssSamples {
        self.stop.store(true, Ordering::Relaxed);
        RssSamples(self.thread.join().unwrap_or_default())
    }
}

pub struct RssSamples(Vec<(Instant, u64)>);

impl RssSamples {
    /// The highest sample taken at or before `until` (0 when none was).
    pub fn peak_until(&self, until: Instant) -> u64 {
        self.0
            .iter()
            .take_while(|(at, _)| *at <= until)
            .map(|(_, rss)| *rss)
            .max()
            .unwrap_or(0)
    }

    pub fn peak(&self) -> u64 {
        self.0.iter().map(|(_, rss)| *rss).max().unwrap_or(0)
    }
}

/// The resident set of a process once it has stopped moving: VmRSS read every 250 ms until the last 2 s of reads
/// lie within 2% of each other (at most 60 s; then the last read). kube-apiserver fills its watch cache from etcd
/// after a restart, which would otherwise be counted as the initial sync's.
pub async fn settled_rss(pid: u32) -> anyhow::Result<u64> {
    const WINDOW: usize = 8;
    let give_up = Instant::now() + Duration::from_secs(60);
    let mut reads: Vec<u64> = Vec::new();
    loop {
        reads.push(status_bytes(pid, "VmRSS")?);
        let last = &reads[reads.len().saturating_sub(WINDOW)..];
        let low = last.iter().copied().min().unwrap_or(0);
        let high = last.iter().copied().max().unwrap_or(0);
        let still = last.len() == WINDOW && (high - low) as f64 <= 0.02 * high as f64;
        if still || Instant::now() > give_up {
            return Ok(*reads.last().unwrap_or(&0));
        }
        tokio::time::sleep(Duration::from_millis(250)).await;
    }
}
