//! The `process_*` metrics Prometheus' Go client exports for every controller-runtime operator, read from `/proc`
//! at scrape time, so kubebuilder's dashboards and alerts (CPU, memory, file descriptors, restarts) work unchanged.
//!
//! Exported on Linux (what operators run on): `process_cpu_seconds_total`, `process_resident_memory_bytes`,
//! `process_virtual_memory_bytes`, `process_open_fds`, `process_max_fds` and `process_start_time_seconds`. On other
//! systems, or when `/proc` cannot be read, a family is left out rather than reported as 0.

use prometheus_client::collector::Collector;
use prometheus_client::encoding::{DescriptorEncoder, EncodeMetric};
use prometheus_client::metrics::counter::ConstCounter;
use prometheus_client::metrics::gauge::ConstGauge;

/// Clock ticks per second in /proc/<pid>/stat: the kernel's USER_HZ, 100 on every Linux architecture Kubernetes
/// runs on (Prometheus' procfs library assumes the same).
const USER_HZ: f64 = 100.0;

/// Reads the process's figures on each scrape.
#[derive(Debug, Default)]
pub(crate) struct ProcessCollector;

/// One scrape's figures; `None` when unreadable.
#[derive(Debug, Default, PartialEq)]
struct Sample {
    cpu_seconds: Option<f64>,
    resident_bytes: Option<f64>,
    virtual_bytes: Option<f64>,
    open_fds: Option<f64>,
    max_fds: Option<f64>,
    start_time_seconds: Option<f64>,
}

impl Sample {
    fn read() -> Self {
        let stat = std::fs::read_to_string("/proc/self/stat").ok();
        let fields = stat.as_deref().map(stat_fields).unwrap_or_default();
        let field = |i: usize| fields.get(i).and_then(|f| f.parse::<f64>().ok());
        let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
        let boot_time = std::fs::read_to_string("/proc/stat").ok().and_then(|s| {
            s.lines()
                .find_map(|l| l.strip_prefix("btime "))
                .and_then(|v| v.trim().parse::<f64>().ok())
        });
        Self {
            // utime + stime (fields 14 and 15 of stat(5), 0-based 11 and 12 after the command name).
            cpu_seconds: field(11).zip(field(12)).map(|(u, s)| (u + s) / USER_HZ),
            resident_bytes: kib(&status, "VmRSS:"),
            virtual_bytes: kib(&status, "VmSize:"),
            open_fds: std::fs::read_dir("/proc/self/fd")
                .ok()
                .map(|d| d.count() as f64),
            max_fds: std::fs::read_to_string("/proc/self/limits")
                .ok()
                .and_then(|l| max_open_files(&l)),
            // starttime (field 22) is in ticks since boot.
            start_time_seconds: boot_time.zip(field(19)).map(|(b, t)| b + t / USER_HZ),
        }
    }
}

/// The fields of /proc/<pid>/stat after `pid (comm)`: comm may hold spaces and parentheses, so split after the
/// last `)`. Index 0 is the state (field 3 of stat(5)).
fn stat_fields(stat: &str) -> Vec<&str> {
    stat.rfind(')')
        .map(|i| stat[i + 1..].split_whitespace().collect())
        .unwrap_or_default()
}

/// A `Key:   123 kB` line of /proc/<pid>/status, in bytes.
fn kib(status: &str, key: &str) -> Option<f64> {
    let line = status.lines().find_map(|l| l.strip_prefix(key))?;
    let kb = line.split_whitespace().next()?.parse::<f64>().ok()?;
    Some(kb * 1024.0)
}

/// The soft limit of `Max open files` in /proc/<pid>/limits.
fn max_open_files(limits: &str) -> Option<f64> {
    let line = limits
        .lines()
        .find_map(|l| l.strip_prefix("Max open files"))?;
    line.split_whitespace().next()?.parse::<f64>().ok()
}

fn encode_one(
    encoder: &mut DescriptorEncoder,
    name: &str,
    help: &str,
    metric: impl EncodeMetric,
) -> Result<(), std::fmt::Error> {
    let metric_encoder = encoder.encode_descriptor(name, help, None, metric.metric_type())?;
    metric.encode(metric_encoder)
}

impl Collector for ProcessCollector {
    fn encode(&self, mut encoder: DescriptorEncoder) -> Result<(), std::fmt::Error> {
        let sample = Sample::read();
        if let Some(v) = sample.cpu_seconds {
            // The encoder adds `_total` to counters.
            encode_one(
                &mut encoder,
                "process_cpu_seconds",
                "Total user and system CPU time spent in seconds.",
                ConstCounter::new(v),
            )?;
        }
        let gauges = [
            (
                "process_resident_memory_bytes",
                "Resident memory size in bytes.",
                sample.resident_bytes,
            ),
            (
                "process_virtual_memory_bytes",
                "Virtual memory size in bytes.",
                sample.virtual_bytes,
            ),
            (
                "process_open_fds",
                "Number of open file descriptors.",
                sample.open_fds,
            ),
            (
                "process_max_fds",
                "Maximum number of open file descriptors.",
                sample.max_fds,
            ),
            (
                "process_start_time_seconds",
                "Start time of the process since unix epoch in seconds.",
                sample.start_time_seconds,
            ),
        ];
        for (name, help, value) in gauges {
            if let Some(v) = value {
                encode_one(&mut encoder, name, help, ConstGauge::new(v))?;
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_proc_files() {
        let stat = "42 (my (odd) cmd) S 1 42 42 0 -1 4194560 100 0 0 0 250 150 0 0 20 0 4 0 12345 1000 200";
        let fields = stat_fields(stat);
        assert_eq!(fields[0], "S");
        assert_eq!(fields[11], "250");
        assert_eq!(fields[12], "150");
        assert_eq!(fields[19], "12345");
        assert_eq!(
            kib("VmSize:\t  2048 kB\nVmRSS:\t   512 kB\n", "VmRSS:"),
            Some(512.0 * 1024.0)
        );
        assert_eq!(
            max_open_files(
                "Limit                     Soft Limit           Hard Limit           Units\nMax open files            1048576              1048576              files\n"
            ),
            Some(1_048_576.0)
        );
    }

    #[cfg(target_os = "linux")]
    #[test]
    fn this_process_has_real_figures() {
        let s = Sample::read();
        assert!(s.cpu_seconds.is_some_and(|v| v >= 0.0), "{s:?}");
        assert!(s.resident_bytes.is_some_and(|v| v > 1_000_000.0), "{s:?}");
        assert!(s.open_fds.is_some_and(|v| v >= 3.0), "{s:?}");
        assert!(s.max_fds.is_some_and(|v| v >= 64.0), "{s:?}");
        let now = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap()
            .as_secs_f64();
        assert!(
            s.start_time_seconds
                .is_some_and(|t| t <= now + 1.0 && t > now - 86_400.0 * 365.0),
            "{s:?}"
        );
    }
}
