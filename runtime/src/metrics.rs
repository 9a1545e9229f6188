//! Prometheus metrics with controller-runtime's names, so dashboards and alerts written for kubebuilder operators
//! work unchanged.

use std::sync::{Arc, Mutex};

use prometheus_client::encoding::EncodeLabelSet;
use prometheus_client::metrics::counter::Counter;
use prometheus_client::metrics::family::Family;
use prometheus_client::metrics::gauge::Gauge;
use prometheus_client::metrics::histogram::Histogram;
use prometheus_client::registry::Registry;

/// The content type of [`Metrics::encode`]'s output (OpenMetrics text, which Prometheus scrapes natively).
pub const CONTENT_TYPE: &str = "application/openmetrics-text; version=1.0.0; charset=utf-8";

/// controller-runtime's buckets for `controller_runtime_reconcile_time_seconds`.
const RECONCILE_TIME_BUCKETS: [f64; 40] = [
    0.005, 0.01, 0.025, 0.05, 0.1, 0.15, 0.2, 0.25, 0.3, 0.35, 0.4, 0.45, 0.5, 0.6, 0.7, 0.8, 0.9,
    1.0, 1.25, 1.5, 1.75, 2.0, 2.5, 3.0, 3.5, 4.0, 4.5, 5.0, 6.0, 7.0, 8.0, 9.0, 10.0, 15.0, 20.0,
    25.0, 30.0, 40.0, 50.0, 60.0,
];

/// `{controller}` labels.
#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
pub struct ControllerLabels {
    /// The controller's name.
    pub controller: String,
}

/// `{controller, result}` labels of `controller_runtime_reconcile_total`.
#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
pub struct ResultLabels {
    /// The controller's name.
    pub controller: String,
    /// One of "success", "error", "requeue", "requeue_after".
    pub result: String,
}

/// `{name}` labels of `leader_election_master_status`.
#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
pub struct LeaseLabels {
    /// The lease name.
    pub name: String,
}

type HistogramFamily = Family<ControllerLabels, Histogram, fn() -> Histogram>;

fn reconcile_time_histogram() -> Histogram {
    Histogram::new(RECONCILE_TIME_BUCKETS)
}

/// The outcome of one reconcile, as counted by `controller_runtime_reconcile_total`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ReconcileResult {
    /// Reconciled; wait for the next change.
    Success,
    /// The reconcile returned an error.
    Error,
    /// The reconcile asked to be requeued after a delay.
    RequeueAfter,
}

impl ReconcileResult {
    fn label(self) -> &'static str {
        match self {
            Self::Success => "success",
            Self::Error => "error",
            Self::RequeueAfter => "requeue_after",
        }
    }
}

/// The metrics of one manager. Cheap to clone; clones share the registry and values.
#[derive(Clone, Debug)]
pub struct Metrics {
    registry: Arc<Mutex<Registry>>,
    reconcile_total: Family<ResultLabels, Counter>,
    reconcile_errors: Family<ControllerLabels, Counter>,
    reconcile_panics: Family<ControllerLabels, Counter>,
    reconcile_time: HistogramFamily,
    active_workers: Family<ControllerLabels, Gauge>,
    max_concurrent: Family<ControllerLabels, Gauge>,
    leader_status: Family<LeaseLabels, Gauge>,
}

impl Default for Metrics {
    fn default() -> Self {
        Self::new()
    }
}

impl Metrics {
    /// A fresh registry holding the runtime's metrics.
    pub fn new() -> Self {
        let mut registry = Registry::default();
        let reconcile_total = Family::<ResultLabels, Counter>::default();
        let reconcile_errors = Family::<ControllerLabels, Counter>::default();
        let reconcile_panics = Family::<ControllerLabels, Counter>::default();
        let reconcile_time: HistogramFamily =
            Family::new_with_constructor(reconcile_time_histogram);
        let active_workers = Family::<ControllerLabels, Gauge>::default();
        let max_concurrent = Family::<ControllerLabels, Gauge>::default();
        let leader_status = Family::<LeaseLabels, Gauge>::default();
        // Counters get their `_total` suffix from the encoder.
        registry.register(
            "controller_runtime_reconcile",
            "Total number of reconciliations per controller",
            reconcile_total.clone(),
        );
        registry.register(
            "controller_runtime_reconcile_errors",
            "Total number of reconciliation errors per controller",
            reconcile_errors.clone(),
        );
        registry.register(
            "controller_runtime_reconcile_panics",
            "Total number of reconciliation panics per controller",
            reconcile_panics.clone(),
        );
        registry.register(
            "controller_runtime_reconcile_time_seconds",
            "Length of time per reconciliation per controller",
            reconcile_time.clone(),
        );
        registry.register(
            "controller_runtime_active_workers",
            "Number of currently used workers per controller",
            active_workers.clone(),
        );
        registry.register(
            "controller_runtime_max_concurrent_reconciles",
            "Maximum number of concurrent reconciles per controller",
            max_concurrent.clone(),
        );
        registry.register(
            "leader_election_master_status",
            "Gauge of if the reporting system is master of the relevant lease, 0 indicates backup, 1 indicates master. 'name' is the string used to identify the lease.",
            leader_status.clone(),
        );
        Self {
            registry: Arc::new(Mutex::new(registry)),
            reconcile_total,
            reconcile_errors,
            reconcile_panics,
            reconcile_time,
            active_workers,
            max_concurrent,
            leader_status,
        }
    }

    /// Registers an operator's own metric in the manager's registry, so /metrics serves it too.
    pub fn register(
        &self,
        name: &str,
        help: &str,
        metric: impl prometheus_client::registry::Metric,
    ) {
        self.registry
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .register(name, help, metric);
    }

    /// Renders every metric in the text format served on /metrics.
    pub fn encode(&self) -> String {
        let mut out = String::new();
        let registry = self.registry.lock().unwrap_or_else(|e| e.into_inner());
        // Writing into a String cannot fail.
        let _ = prometheus_client::encoding::text::encode(&mut out, &registry);
        out
    }

    pub(crate) fn controller(&self, name: &str, max_concurrent: u16) -> ControllerMetrics {
        let labels = ControllerLabels {
            controller: name.to_string(),
        };
        self.max_concurrent
            .get_or_create(&labels)
            .set(i64::from(max_concurrent));
        // Touch every series so they are scraped as 0 before the first reconcile, like controller-runtime does.
        let _ = self.active_workers.get_or_create(&labels);
        let _ = self.reconcile_errors.get_or_create(&labels);
        let _ = self.reconcile_panics.get_or_create(&labels);
        for r in [
            ReconcileResult::Success,
            ReconcileResult::Error,
            ReconcileResult::RequeueAfter,
        ] {
            let _ = self.reconcile_total.get_or_create(&ResultLabels {
                controller: name.to_string(),
                result: r.label().to_string(),
            });
        }
        ControllerMetrics {
            metrics: self.clone(),
            labels,
        }
    }

    pub(crate) fn set_leader(&self, lease: &str, leader: bool) {
        self.leader_status
            .get_or_create(&LeaseLabels {
                name: lease.to_string(),
            })
            .set(i64::from(leader));
    }
}

/// The per-controller view used by the reconcile wrapper.
#[derive(Clone, Debug)]
pub(crate) struct ControllerMetrics {
    metrics: Metrics,
    labels: ControllerLabels,
}

impl ControllerMetrics {
    pub(crate) fn panicked(&self) {
        self.metrics
            .reconcile_panics
            .get_or_create(&self.labels)
            .inc();
    }

    pub(crate) fn worker_started(&self) {
        self.metrics
            .active_workers
            .get_or_create(&self.labels)
            .inc();
    }

    pub(crate) fn worker_finished(&self, result: ReconcileResult, seconds: f64) {
        self.metrics
            .active_workers
            .get_or_create(&self.labels)
            .dec();
        self.metrics
            .reconcile_time
            .get_or_create(&self.labels)
            .observe(seconds);
        self.metrics
            .reconcile_total
            .get_or_create(&ResultLabels {
                controller: self.labels.controller.clone(),
                result: result.label().to_string(),
            })
            .inc();
        if result == ReconcileResult::Error {
            self.metrics
                .reconcile_errors
                .get_or_create(&self.labels)
                .inc();
        }
    }
}

/// Reads one sample from text produced by [`Metrics::encode`], e.g.
/// `sample(&text, "controller_runtime_reconcile_total", &[("controller", "cm"), ("result", "error")])`.
/// Meant for tests and debugging; returns `None` when the series is absent.
pub fn sample(text: &str, name: &str, labels: &[(&str, &str)]) -> Option<f64> {
    text.lines()
        .filter(|l| !l.starts_with('#'))
        .find_map(|line| {
            let (series, value) = line.rsplit_once(' ')?;
            let (metric, label_text) = match series.split_once('{') {
                Some((m, rest)) => (m, rest.strip_suffix('}')?),
                None => (series, ""),
            };
            if metric != name {
                return None;
            }
            let all_match = labels
                .iter()
                .all(|(k, v)| label_text.split(',').any(|kv| kv == format!("{k}=\"{v}\"")));
            all_match.then(|| value.parse().ok()).flatten()
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_match_controller_runtime() {
        let m = Metrics::new();
        let c = m.controller("configmap", 1);
        c.worker_started();
        c.worker_finished(ReconcileResult::Success, 0.02);
        c.worker_started();
        c.worker_finished(ReconcileResult::Error, 0.002);
        m.set_leader("demo", true);
        let text = m.encode();
        let cm = ("controller", "configmap");
        assert_eq!(
            sample(
                &text,
                "controller_runtime_reconcile_total",
                &[cm, ("result", "success")]
            ),
            Some(1.0)
        );
        assert_eq!(
            sample(
                &text,
                "controller_runtime_reconcile_total",
                &[cm, ("result", "error")]
            ),
            Some(1.0)
        );
        assert_eq!(
            sample(
                &text,
                "controller_runtime_reconcile_total",
                &[cm, ("result", "requeue_after")]
            ),
            Some(0.0)
        );
        assert_eq!(
            sample(&text, "controller_runtime_reconcile_errors_total", &[cm]),
            Some(1.0)
        );
        assert_eq!(
            sample(&text, "controller_runtime_active_workers", &[cm]),
            Some(0.0)
        );
        assert_eq!(
            sample(&text, "controller_runtime_max_concurrent_reconciles", &[cm]),
            Some(1.0)
        );
        assert_eq!(
            sample(
                &text,
                "controller_runtime_reconcile_time_seconds_count",
                &[cm]
            ),
            Some(2.0)
        );
        assert_eq!(
            sample(
                &text,
                "controller_runtime_reconcile_time_seconds_bucket",
                &[cm, ("le", "0.005")]
            ),
            Some(1.0)
        );
        assert_eq!(
            sample(&text, "leader_election_master_status", &[("name", "demo")]),
            Some(1.0)
        );
        assert!(text.contains("# TYPE controller_runtime_reconcile_time_seconds histogram"));
    }

    #[test]
    fn own_metrics_are_served() {
        let m = Metrics::new();
        let c = Counter::<u64>::default();
        m.register("demo_things", "Things", c.clone());
        c.inc_by(3);
        assert_eq!(sample(&m.encode(), "demo_things_total", &[]), Some(3.0));
    }
}
