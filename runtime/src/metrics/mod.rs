//! Prometheus metrics with controller-runtime's names, so dashboards and alerts written for kubebuilder operators
//! work unchanged.

pub(crate) mod process_metrics;
pub(crate) mod rest_metrics;
pub(crate) mod shard_metrics;

use std::sync::{Arc, Mutex};
use std::time::Instant;

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

/// `{code, host, method}` labels of `rest_client_requests_total`.
#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
pub struct RestRequestLabels {
    /// The HTTP status code, or `<error>` when no response came back.
    pub code: String,
    /// The API server's `host:port`.
    pub host: String,
    /// The HTTP method.
    pub method: String,
}

/// `{host, verb}` labels of `rest_client_request_duration_seconds`.
#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
pub struct RestLatencyLabels {
    /// The API server's `host:port`.
    pub host: String,
    /// The HTTP method.
    pub verb: String,
}

/// client-go's buckets for `rest_client_request_duration_seconds`.
const REST_LATENCY_BUCKETS: [f64; 12] = [
    0.005, 0.025, 0.1, 0.25, 0.5, 1.0, 2.0, 4.0, 8.0, 15.0, 30.0, 60.0,
];

fn rest_latency_histogram() -> Histogram {
    Histogram::new(REST_LATENCY_BUCKETS)
}

/// `{webhook}` labels of `controller_runtime_webhook_latency_seconds` and `..._requests_in_flight`.
#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
pub struct WebhookLabels {
    /// The webhook's path.
    pub webhook: String,
}

/// `{code, webhook}` labels of `controller_runtime_webhook_requests_total`.
#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
pub struct WebhookCodeLabels {
    /// The HTTP status code of the reply.
    pub code: String,
    /// The webhook's path.
    pub webhook: String,
}

/// Prometheus' default buckets, which controller-runtime's webhook latency uses.
const WEBHOOK_LATENCY_BUCKETS: [f64; 11] = [
    0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0,
];

fn webhook_latency_histogram() -> Histogram {
    Histogram::new(WEBHOOK_LATENCY_BUCKETS)
}

/// `{name}` labels of the workqueue_* families (the queue's, i.e. the controller's name).
#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
pub struct QueueLabels {
    /// The queue's name.
    pub name: String,
}

/// client-go's buckets for the workqueue durations: 10 ns to 10 s, ten per decade.
fn workqueue_histogram() -> Histogram {
    Histogram::new(prometheus_client::metrics::histogram::exponential_buckets(
        1e-8, 10.0, 10,
    ))
}

type FloatGauge = Gauge<f64, std::sync::atomic::AtomicU64>;

/// Reports a queue's work in progress when scraped: (seconds of all unfinished work, longest single run), or
/// `None` once the queue is gone.
type Progress = Box<dyn Fn() -> Option<(f64, f64)> + Send + Sync>;

/// The workqueue_* families, and the queues whose work in progress is read at each scrape.
#[derive(Clone)]
struct QueueFamilies {
    depth: Family<QueueLabels, Gauge>,
    adds: Family<QueueLabels, Counter>,
    queue_duration: Family<QueueLabels, Histogram, fn() -> Histogram>,
    work_duration: Family<QueueLabels, Histogram, fn() -> Histogram>,
    retries: Family<QueueLabels, Counter>,
    unfinished: Family<QueueLabels, FloatGauge>,
    longest: Family<QueueLabels, FloatGauge>,
    progress: Arc<Mutex<Vec<(QueueLabels, Progress)>>>,
}

impl std::fmt::Debug for QueueFamilies {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("QueueFamilies").finish_non_exhaustive()
    }
}

impl QueueFamilies {
    fn new(registry: &mut Registry) -> Self {
        let families = Self {
            depth: Family::default(),
            adds: Family::default(),
            queue_duration: Family::new_with_constructor(workqueue_histogram),
            work_duration: Family::new_with_constructor(workqueue_histogram),
            retries: Family::default(),
            unfinished: Family::default(),
            longest: Family::default(),
            progress: Arc::default(),
        };
        let f = &families;
        registry.register(
            "workqueue_depth",
            "Current depth of workqueue",
            f.depth.clone(),
        );
        registry.register(
            "workqueue_adds",
            "Total number of adds handled by workqueue",
            f.adds.clone(),
        );
        registry.register(
            "workqueue_queue_duration_seconds",
            "How long in seconds an item stays in workqueue before being requested",
            f.queue_duration.clone(),
        );
        registry.register(
            "workqueue_work_duration_seconds",
            "How long in seconds processing an item from workqueue takes.",
            f.work_duration.clone(),
        );
        registry.register(
            "workqueue_unfinished_work_seconds",
            "How many seconds of work has been done that is in progress and hasn't been observed by work_duration. Large values indicate stuck threads. One can deduce the number of stuck threads by observing the rate at which this increases.",
            f.unfinished.clone(),
        );
        registry.register(
            "workqueue_longest_running_processor_seconds",
            "How many seconds has the longest running processor for workqueue been running.",
            f.longest.clone(),
        );
        registry.register(
            "workqueue_retries",
            "Total number of retries handled by workqueue",
            f.retries.clone(),
        );
        families
    }

    /// Reads every live queue's work in progress into its gauges (called before each scrape).
    fn refresh(&self) {
        let mut progress = self.progress.lock().unwrap_or_else(|e| e.into_inner());
        progress.retain(|(labels, read)| match read() {
            Some((unfinished, longest)) => {
                self.unfinished.get_or_create(labels).set(unfinished);
                self.longest.get_or_create(labels).set(longest);
                true
            }
            None => false,
        });
    }
}

/// One queue's series of the workqueue_* families (see [`crate::workqueue::WorkQueue::with_metrics`] and
/// [`crate::queue_mirror`]).
#[derive(Clone)]
pub(crate) struct QueueMetrics {
    pub depth: Gauge,
    pub adds: Counter,
    pub queue_duration: Histogram,
    pub work_duration: Histogram,
    pub retries: Counter,
}

/// `{controller, kind, outcome}` labels of `rkb_child_writes_total` (child_index.rs).
#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
pub struct ChildWriteLabels {
    /// The controller's name.
    pub controller: String,
    /// The kind written ("Deployment"), or `"<Kind>/status"` for its objects' status.
    pub kind: String,
    /// "applied" or "deleted" (sent), "skipped" (spared: nothing would have changed).
    pub outcome: String,
}

/// `{name}` labels of `leader_election_master_status`.
#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
pub struct LeaseLabels {
    /// The lease name.
    pub name: String,
}

type HistogramFamily = Family<ControllerLabels, Histogram, fn() -> Histogram>;
type RestLatencyFamily = Family<RestLatencyLabels, Histogram, fn() -> Histogram>;

fn reconcile_time_histogram() -> Histogram {
    Histogram::new(RECONCILE_TIME_BUCKETS)
}

/// The outcome of one reconcile, as counted by `controller_runtime_reconcile_total`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ReconcileResult {
    /// Reconciled; wait for the next change.
    Success,
    /// The reconcile failed (returned an error or panicked).
    Error,
    /// The reconcile asked to run again (rate limited), without an error.
    Requeue,
    /// The reconcile asked to be requeued after a delay.
    RequeueAfter,
}

impl ReconcileResult {
    const ALL: [Self; 4] = [
        Self::Success,
        Self::Error,
        Self::Requeue,
        Self::RequeueAfter,
    ];

    /// The `result` label: "success", "error", "requeue" or "requeue_after", as controller-runtime writes it.
    pub fn label(self) -> &'static str {
        match self {
            Self::Success => "success",
            Self::Error => "error",
            Self::Requeue => "requeue",
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
    rest_requests: Family<RestRequestLabels, Counter>,
    rest_latency: RestLatencyFamily,
    webhook_requests: Family<WebhookCodeLabels, Counter>,
    webhook_latency: Family<WebhookLabels, Histogram, fn() -> Histogram>,
    webhook_in_flight: Family<WebhookLabels, Gauge>,
    child_writes: Family<ChildWriteLabels, Counter>,
    queues: QueueFamilies,
    shard: shard_metrics::ShardMetrics,
}

impl Default for Metrics {
    fn default() -> Self {
        Self::new()
    }
}

/// Registers `metric` under `name` and hands it back, for the fields that record into it.
fn registered<M: prometheus_client::registry::Metric + Clone>(
    registry: &mut Registry,
    name: &str,
    help: &str,
    metric: M,
) -> M {
    registry.register(name, help, metric.clone());
    metric
}

/// The rest_client_* families the layer on the manager's client records into.
fn rest_client_families(
    registry: &mut Registry,
) -> (Family<RestRequestLabels, Counter>, RestLatencyFamily) {
    let rest_requests = registered(
        registry,
        "rest_client_requests",
        "Number of HTTP requests, partitioned by status code, method, and host.",
        Family::<RestRequestLabels, Counter>::default(),
    );
    let rest_latency: RestLatencyFamily = registered(
        registry,
        "rest_client_request_duration_seconds",
        "Request latency in seconds. Broken down by verb, and host.",
        Family::new_with_constructor(rest_latency_histogram),
    );
    (rest_requests, rest_latency)
}

impl Metrics {
    /// A fresh registry holding the runtime's metrics.
    pub fn new() -> Self {
        let mut registry = Registry::default();
        let r = &mut registry;
        // Counters get their `_total` suffix from the encoder.
        let reconcile_total = registered(
            r,
            "controller_runtime_reconcile",
            "Total number of reconciliations per controller",
            Family::<ResultLabels, Counter>::default(),
        );
        let reconcile_errors = registered(
            r,
            "controller_runtime_reconcile_errors",
            "Total number of reconciliation errors per controller",
            Family::<ControllerLabels, Counter>::default(),
        );
        let reconcile_panics = registered(
            r,
            "controller_runtime_reconcile_panics",
            "Total number of reconciliation panics per controller",
            Family::<ControllerLabels, Counter>::default(),
        );
        let reconcile_time: HistogramFamily = registered(
            r,
            "controller_runtime_reconcile_time_seconds",
            "Length of time per reconciliation per controller",
            Family::new_with_constructor(reconcile_time_histogram),
        );
        let active_workers = registered(
            r,
            "controller_runtime_active_workers",
            "Number of currently used workers per controller",
            Family::<ControllerLabels, Gauge>::default(),
        );
        let max_concurrent = registered(
            r,
            "controller_runtime_max_concurrent_reconciles",
            "Maximum number of concurrent reconciles per controller",
            Family::<ControllerLabels, Gauge>::default(),
        );
        let leader_status = registered(
            r,
            "leader_election_master_status",
            "Gauge of if the reporting system is master of the relevant lease, 0 indicates backup, 1 indicates master. 'name' is the string used to identify the lease.",
            Family::<LeaseLabels, Gauge>::default(),
        );
        let child_writes = registered(
            r,
            "rkb_child_writes",
            "Writes of a controller's children and of its objects' status through its child index, sent (applied, deleted) or spared (skipped), by kind",
            Family::<ChildWriteLabels, Counter>::default(),
        );
        let (rest_requests, rest_latency) = rest_client_families(r);
        let webhook_requests = registered(
            r,
            "controller_runtime_webhook_requests",
            "Total number of admission requests by HTTP status code.",
            Family::<WebhookCodeLabels, Counter>::default(),
        );
        let webhook_latency: Family<WebhookLabels, Histogram, fn() -> Histogram> = registered(
            r,
            "controller_runtime_webhook_latency_seconds",
            "Histogram of the latency of processing admission requests",
            Family::new_with_constructor(webhook_latency_histogram),
        );
        let webhook_in_flight = registered(
            r,
            "controller_runtime_webhook_requests_in_flight",
            "Current number of admission requests being served.",
            Family::<WebhookLabels, Gauge>::default(),
        );
        let queues = QueueFamilies::new(&mut registry);
        let shard = shard_metrics::ShardMetrics::new(&mut registry);
        registry.register_collector(Box::new(crate::process_metrics::ProcessCollector));
        Self {
            registry: Arc::new(Mutex::new(registry)),
            reconcile_total,
            reconcile_errors,
            reconcile_panics,
            reconcile_time,
            active_workers,
            max_concurrent,
            leader_status,
            rest_requests,
            rest_latency,
            webhook_requests,
            webhook_latency,
            webhook_in_flight,
            child_writes,
            queues,
            shard,
        }
    }

    /// The workqueue_* series of the queue `name` (every one scraped from now on, as 0 until it moves).
    pub(crate) fn workqueue(&self, name: &str) -> QueueMetrics {
        let labels = QueueLabels {
            name: name.to_string(),
        };
        let q = &self.queues;
        let _ = q.unfinished.get_or_create(&labels);
        let _ = q.longest.get_or_create(&labels);
        QueueMetrics {
            depth: q.depth.get_or_create(&labels).clone(),
            adds: q.adds.get_or_create(&labels).clone(),
            queue_duration: q.queue_duration.get_or_create(&labels).clone(),
            work_duration: q.work_duration.get_or_create(&labels).clone(),
            retries: q.retries.get_or_create(&labels).clone(),
        }
    }

    /// Registers how to read the queue `name`'s work in progress at each scrape.
    pub(crate) fn workqueue_progress(
        &self,
        name: &str,
        read: impl Fn() -> Option<(f64, f64)> + Send + Sync + 'static,
    ) {
        let labels = QueueLabels {
            name: name.to_string(),
        };
        self.queues
            .progress
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .push((labels, Box::new(read)));
    }

    /// Starts recording one request to the webhook at `path`; [`WebhookRequest::finish`] records its reply.
    pub(crate) fn webhook_request(&self, path: &str) -> WebhookRequest {
        let labels = WebhookLabels {
            webhook: path.to_string(),
        };
        self.webhook_in_flight.get_or_create(&labels).inc();
        WebhookRequest {
            metrics: self.clone(),
            labels,
            started: Instant::now(),
            recorded: false,
        }
    }

    /// Records one request of the manager's kube client (see rest_metrics.rs).
    pub(crate) fn rest_request(
        &self,
        code: &str,
        method: &str,
        host: &str,
        took: std::time::Duration,
    ) {
        self.rest_requests
            .get_or_create(&RestRequestLabels {
                code: code.to_string(),
                host: host.to_string(),
                method: method.to_string(),
            })
            .inc();
        self.rest_latency
            .get_or_create(&RestLatencyLabels {
                host: host.to_string(),
                verb: method.to_string(),
            })
            .observe(took.as_secs_f64());
    }

    /// The rkb_shard_* families (shard_metrics.rs).
    pub(crate) fn shard(&self) -> &shard_metrics::ShardMetrics {
        &self.shard
    }

    /// Counts one write of the child index of `controller` (`rkb_child_writes_total`).
    pub(crate) fn count_child_write(&self, controller: &str, kind: &str, outcome: &str) {
        self.child_writes
            .get_or_create(&ChildWriteLabels {
                controller: controller.to_string(),
                kind: kind.to_string(),
                outcome: outcome.to_string(),
            })
            .inc();
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
        self.queues.refresh();
        let mut out = String::new();
        let registry = self.registry.lock().unwrap_or_else(|e| e.into_inner());
        // Writing into a String cannot fail.
        let _ = prometheus_client::encoding::text::encode(&mut out, &registry);
        out
    }

    /// The reconcile metrics of the controller `name` that runs at most `max_concurrent` reconciles at once.
    /// [`crate::Controller`] records its own; a hand-written controller (informer + [`crate::workqueue`]) calls this
    /// once at start, then [`ControllerMetrics::reconcile`] around each sync, so dashboards built on
    /// controller-runtime's metrics see it too. Every series of `name` is scraped as 0 from this call on.
    pub fn controller(&self, name: &str, max_concurrent: usize) -> ControllerMetrics {
        let labels = ControllerLabels {
            controller: name.to_string(),
        };
        self.max_concurrent
            .get_or_create(&labels)
            .set(i64::try_from(max_concurrent).unwrap_or(i64::MAX));
        // Touch every series so they are scraped as 0 before the first reconcile, like controller-runtime does.
        let _ = self.active_workers.get_or_create(&labels);
        let _ = self.reconcile_errors.get_or_create(&labels);
        let _ = self.reconcile_panics.get_or_create(&labels);
        for r in ReconcileResult::ALL {
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

/// The reconcile metrics of one controller ([`Metrics::controller`]). Cheap to clone.
#[derive(Clone, Debug)]
pub struct ControllerMetrics {
    metrics: Metrics,
    labels: ControllerLabels,
}

impl ControllerMetrics {
    /// Marks one reconcile as started (`controller_runtime_active_workers` + 1) and starts its clock; the guard
    /// records how it ended.
    pub fn reconcile(&self) -> ReconcileGuard {
        self.metrics
            .active_workers
            .get_or_create(&self.labels)
            .inc();
        ReconcileGuard {
            metrics: self.clone(),
            start: Instant::now(),
            finished: false,
        }
    }

    fn record(&self, result: ReconcileResult, seconds: f64) {
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

    fn record_panic(&self, seconds: f64) {
        self.metrics
            .reconcile_panics
            .get_or_create(&self.labels)
            .inc();
        self.record(ReconcileResult::Error, seconds);
    }

    fn worker_finished(&self) {
        self.metrics
            .active_workers
            .get_or_create(&self.labels)
            .dec();
    }
}

/// One reconcile in progress ([`ControllerMetrics::reconcile`]). [`finish`](Self::finish) records its result and
/// duration; so does dropping it while a panic unwinds (as a panic and an error). Dropped otherwise without
/// `finish` (its future was cancelled, e.g. at shutdown), it only leaves the active workers: a reconcile that never
/// ended has no result.
#[derive(Debug)]
#[must_use = "the reconcile is recorded when the guard is finished"]
pub struct ReconcileGuard {
    metrics: ControllerMetrics,
    start: Instant,
    finished: bool,
}

impl ReconcileGuard {
    /// Records the reconcile's result and duration.
    pub fn finish(mut self, result: ReconcileResult) {
        self.finished = true;
        self.metrics.worker_finished();
        self.metrics
            .record(result, self.start.elapsed().as_secs_f64());
    }

    /// Records a panic caught around the reconcile (`controller_runtime_reconcile_panics_total`, and an error).
    pub fn panicked(mut self) {
        self.finished = true;
        self.metrics.worker_finished();
        self.metrics
            .record_panic(self.start.elapsed().as_secs_f64());
    }
}

impl Drop for ReconcileGuard {
    fn drop(&mut self) {
        if self.finished {
            return;
        }
        self.metrics.worker_finished();
        if std::thread::panicking() {
            self.metrics
                .record_panic(self.start.elapsed().as_secs_f64());
        }
    }
}

/// The content type of [`to_text_format`]'s output: Prometheus' classic text format, which controller-runtime serves.
pub const TEXT_CONTENT_TYPE: &str = "text/plain; version=0.0.4; charset=utf-8";

/// Whether a scraper's `Accept` header asks for OpenMetrics (Prometheus does); anything else (curl, older agents)
/// gets the classic text format, as from controller-runtime.
pub fn wants_openmetrics(accept: Option<&str>) -> bool {
    accept.is_some_and(|a| a.contains("application/openmetrics-text"))
}

/// Rewrites OpenMetrics text from [`Metrics::encode`] in Prometheus' text format 0.0.4: counter families are named
/// with their `_total` suffix in `# HELP`/`# TYPE`, and the `# EOF` and `# UNIT` lines go. Samples are unchanged.
pub fn to_text_format(openmetrics: &str) -> String {
    let counters: std::collections::HashSet<&str> = openmetrics
        .lines()
        .filter_map(|l| l.strip_prefix("# TYPE "))
        .filter_map(|rest| rest.strip_suffix(" counter"))
        .collect();
    let mut out = String::with_capacity(openmetrics.len());
    for line in openmetrics.lines() {
        if line == "# EOF" || line.starts_with("# UNIT ") {
            continue;
        }
        let header = ["# HELP ", "# TYPE "]
            .into_iter()
            .find_map(|p| line.strip_prefix(p).map(|rest| (p, rest)));
        match header {
            Some((prefix, rest)) => {
                let (name, tail) = rest.split_once(' ').unwrap_or((rest, ""));
                let suffix = if counters.contains(name) {
                    "_total"
                } else {
                    ""
                };
                out.push_str(&format!("{prefix}{name}{suffix} {tail}\n"));
            }
            None => {
                out.push_str(line);
                out.push('\n');
            }
        }
    }
    out
}

/// One webhook request being served: in flight until [`Self::finish`] (or drop, which counts it as a 500).
pub(crate) struct WebhookRequest {
    metrics: Metrics,
    labels: WebhookLabels,
    started: Instant,
    recorded: bool,
}

impl WebhookRequest {
    pub(crate) fn finish(mut self, code: u16) {
        self.record(code);
    }

    fn record(&mut self, code: u16) {
        if std::mem::replace(&mut self.recorded, true) {
            return;
        }
        let m = &self.metrics;
        m.webhook_in_flight.get_or_create(&self.labels).dec();
        m.webhook_latency
            .get_or_create(&self.labels)
            .observe(self.started.elapsed().as_secs_f64());
        m.webhook_requests
            .get_or_create(&WebhookCodeLabels {
                code: code.to_string(),
                webhook: self.labels.webhook.clone(),
            })
            .inc();
    }
}

impl Drop for WebhookRequest {
    /// A request dropped before its reply (the connection went away, or the handler panicked) counts as a 500.
    fn drop(&mut self) {
        self.record(500);
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
    use std::panic::AssertUnwindSafe;

    use super::*;

    #[test]
    fn the_text_format_names_counters_with_total_and_has_no_eof() {
        let m = Metrics::new();
        m.controller("configmap", 1)
            .reconcile()
            .finish(ReconcileResult::Success);
        let om = m.encode();
        assert!(
            om.contains("# TYPE controller_runtime_reconcile counter\n"),
            "{om}"
        );
        assert!(om.trim_end().ends_with("# EOF"), "{om}");
        let text = to_text_format(&om);
        assert!(
            text.contains("# TYPE controller_runtime_reconcile_total counter\n"),
            "{text}"
        );
        assert!(
            text.contains("# HELP controller_runtime_reconcile_total Total number"),
            "{text}"
        );
        assert!(
            text.contains("# TYPE controller_runtime_active_workers gauge\n"),
            "{text}"
        );
        assert!(!text.contains("# EOF"), "{text}");
        let cm = ("controller", "configmap");
        assert_eq!(
            sample(
                &text,
                "controller_runtime_reconcile_total",
                &[cm, ("result", "success")]
            ),
            Some(1.0)
        );
        assert!(wants_openmetrics(Some(
            "application/openmetrics-text;version=1.0.0,text/plain;version=0.0.4;q=0.5"
        )));
        assert!(!wants_openmetrics(Some("*/*")));
        assert!(!wants_openmetrics(None));
    }

    #[test]
    fn names_match_controller_runtime() {
        let m = Metrics::new();
        let c = m.controller("configmap", 1);
        c.reconcile().finish(ReconcileResult::Success);
        c.reconcile().finish(ReconcileResult::Error);
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
            sample(
                &text,
                "controller_runtime_reconcile_total",
                &[cm, ("result", "requeue")]
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
        // Both took well under 5 ms.
        assert_eq!(
            sample(
                &text,
                "controller_runtime_reconcile_time_seconds_bucket",
                &[cm, ("le", "0.005")]
            ),
            Some(2.0)
        );
        assert_eq!(
            sample(&text, "leader_election_master_status", &[("name", "demo")]),
            Some(1.0)
        );
        assert!(text.contains("# TYPE controller_runtime_reconcile_time_seconds histogram"));
    }

    #[test]
    fn guards_count_active_workers_panics_and_cancellations() {
        let m = Metrics::new();
        let c = m.controller("queue", 4);
        let active = |m: &Metrics| {
            sample(
                &m.encode(),
                "controller_runtime_active_workers",
                &[("controller", "queue")],
            )
        };
        let first = c.reconcile();
        let second = c.reconcile();
        assert_eq!(active(&m), Some(2.0));
        first.finish(ReconcileResult::Requeue);
        second.panicked();
        assert_eq!(active(&m), Some(0.0));

        // Unwinding through a guard counts as a panic; dropping one otherwise records no result.
        let unwound = std::panic::catch_unwind(AssertUnwindSafe(|| {
            let _guard = c.reconcile();
            panic!("boom");
        }));
        assert!(unwound.is_err());
        drop(c.reconcile());
        assert_eq!(active(&m), Some(0.0));

        let text = m.encode();
        let q = ("controller", "queue");
        let total = |result| {
            sample(
                &text,
                "controller_runtime_reconcile_total",
                &[q, ("result", result)],
            )
        };
        assert_eq!(total("requeue"), Some(1.0));
        assert_eq!(total("error"), Some(2.0));
        assert_eq!(
            sample(&text, "controller_runtime_reconcile_panics_total", &[q]),
            Some(2.0)
        );
        assert_eq!(
            sample(&text, "controller_runtime_reconcile_errors_total", &[q]),
            Some(2.0)
        );
        assert_eq!(
            sample(
                &text,
                "controller_runtime_reconcile_time_seconds_count",
                &[q]
            ),
            Some(3.0)
        );
        assert_eq!(
            sample(&text, "controller_runtime_max_concurrent_reconciles", &[q]),
            Some(4.0)
        );
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
