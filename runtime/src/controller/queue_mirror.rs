//! The `workqueue_*` families for [`crate::Controller`], which kubebuilder's dashboards and alerts read.
//!
//! kube-runtime's scheduler holds the queue of keys a controller will reconcile and does not show it, so the
//! controller mirrors it from outside: it reports each reconcile request its watches produce
//! ([`QueueMirror::added`]), each requeue a reconcile asks for ([`QueueMirror::requeued`]), and when a worker
//! takes a key and finishes with it. The families then mean what client-go's mean for controller-runtime's queue:
//! - `workqueue_adds_total`: a key becoming due while it is not already waiting. A second request for a waiting
//!   key is merged into the first, by client-go's dirty set as by kube's scheduler. A requeue counts when its
//!   delay has passed (it is noticed then, at the next scrape or when a worker takes the key).
//! - `workqueue_depth`: keys due and not yet taken by a worker (a key changed while it reconciles is one of them).
//! - `workqueue_queue_duration_seconds`: from a key becoming due to a worker taking it.
//! - `workqueue_work_duration_seconds`, `workqueue_unfinished_work_seconds`,
//!   `workqueue_longest_running_processor_seconds`: from a worker taking a key to the end of its reconcile.
//! - `workqueue_retries_total`: requeues after a failed or panicked reconcile (controller-runtime's
//!   `AddRateLimited`); a requeue the reconciler asked for is not a retry.
//!
//! Caveats: a worker takes a key once this manager leads and the API server answers (controller.rs waits for
//! both), so keys queued on a follower count in the depth, where controller-runtime, which starts no controller
//! on a follower, has none. A requeue overtaken by an earlier request for the same key is dropped when the key is
//! taken, as kube's scheduler drops it (one entry per key, the earliest wins).

use std::collections::HashMap;
use std::hash::Hash;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

use tokio::time::Instant;

use crate::metrics::{Metrics, QueueMetrics};

/// The keys the scheduler holds and the workers run, as far as the `workqueue_*` families need them.
struct Keys<K> {
    /// Keys due and not yet taken, with when each became due.
    waiting: HashMap<K, Instant>,
    /// Requeued keys, with when each falls due.
    delayed: HashMap<K, Instant>,
    /// Keys a worker holds, with when it took each.
    running: HashMap<K, Instant>,
}

/// One controller's queue as its `workqueue_*` series see it. Cheap to clone.
pub(crate) struct QueueMirror<K> {
    keys: Arc<Mutex<Keys<K>>>,
    metrics: QueueMetrics,
}

impl<K> Clone for QueueMirror<K> {
    fn clone(&self) -> Self {
        Self {
            keys: self.keys.clone(),
            metrics: self.metrics.clone(),
        }
    }
}

impl<K: Clone + Eq + Hash + Send + 'static> QueueMirror<K> {
    /// The mirror of the queue `name`, exported into `metrics` (every series scraped from now on).
    pub(crate) fn new(metrics: &Metrics, name: &str) -> Self {
        let mirror = Self {
            keys: Arc::new(Mutex::new(Keys {
                waiting: HashMap::new(),
                delayed: HashMap::new(),
                running: HashMap::new(),
            })),
            metrics: metrics.workqueue(name),
        };
        // Requeues fall due and work runs between scrapes: both are read when scraped.
        let (keys, queue) = (Arc::downgrade(&mirror.keys), mirror.metrics.clone());
        metrics.workqueue_progress(name, move || {
            let keys = keys.upgrade()?;
            let mut keys = keys.lock().unwrap_or_else(|e| e.into_inner());
            let now = Instant::now();
            promote_due(&mut keys, &queue, now);
            let running = keys.running.values().map(|t| (now - *t).as_secs_f64());
            Some(running.fold((0.0, 0.0), |(sum, max), d| (sum + d, f64::max(max, d))))
        });
        mirror
    }

    fn keys(&self) -> MutexGuard<'_, Keys<K>> {
        // Nothing panics while holding the lock, so a poisoned lock still guards whole data.
        self.keys.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// A watch asked to reconcile `key` now.
    pub(crate) fn added(&self, key: &K) {
        let mut keys = self.keys();
        let now = Instant::now();
        promote_due(&mut keys, &self.metrics, now);
        wait(&mut keys, &self.metrics, key.clone(), now);
    }

    /// A reconcile of `key` asked to run again after `delay`; `retry` when it failed.
    pub(crate) fn requeued(&self, key: &K, delay: Duration, retry: bool) {
        if retry {
            self.metrics.retries.inc();
        }
        let due = Instant::now() + delay;
        let mut keys = self.keys();
        let earliest = keys.delayed.entry(key.clone()).or_insert(due);
        *earliest = (*earliest).min(due);
    }

    /// A worker took `key`: it leaves the queue (and its pending requeue, which the scheduler merged) and runs.
    pub(crate) fn taken(&self, key: &K) {
        let mut keys = self.keys();
        let now = Instant::now();
        promote_due(&mut keys, &self.metrics, now);
        keys.delayed.remove(key);
        if let Some(since) = keys.waiting.remove(key) {
            self.metrics.depth.dec();
            self.metrics
                .queue_duration
                .observe((now - since).as_secs_f64());
        }
        keys.running.insert(key.clone(), now);
    }

    /// The worker holding `key` finished with it.
    pub(crate) fn finished(&self, key: &K) {
        let started = self.keys().running.remove(key);
        if let Some(started) = started {
            self.metrics
                .work_duration
                .observe(started.elapsed().as_secs_f64());
        }
    }

    /// `key`'s object is gone before a worker took it: nothing will run for it.
    pub(crate) fn gone(&self, key: &K) {
        let mut keys = self.keys();
        keys.delayed.remove(key);
        if keys.waiting.remove(key).is_some() {
            self.metrics.depth.dec();
        }
    }
}

/// Queues `key` as due since `since`, unless it is waiting already.
fn wait<K: Eq + Hash>(keys: &mut Keys<K>, metrics: &QueueMetrics, key: K, since: Instant) {
    if let std::collections::hash_map::Entry::Vacant(slot) = keys.waiting.entry(key) {
        slot.insert(since);
        metrics.adds.inc();
        metrics.depth.inc();
    }
}

/// Moves every requeue whose time has come into the waiting keys, as due since its time.
fn promote_due<K: Clone + Eq + Hash>(keys: &mut Keys<K>, metrics: &QueueMetrics, now: Instant) {
    let due: Vec<(K, Instant)> = keys
        .delayed
        .iter()
        .filter(|(_, at)| **at <= now)
        .map(|(key, at)| (key.clone(), *at))
        .collect();
    for (key, at) in due {
        keys.delayed.remove(&key);
        wait(keys, metrics, key, at);
    }
}

/// The delay a reconcile's [`kube::runtime::controller::Action`] asks for, `None` for "await a change".
///
/// kube keeps the delay private and offers no getter; its `Debug` form (`Action { requeue_after: Some(1.5s) }`)
/// prints the `Duration`'s own `Debug`, which is read back here. A unit test holds this to `Action::requeue`, so a
/// kube release that changes the form fails it.
pub(crate) fn requeue_delay(action: &kube::runtime::controller::Action) -> Option<Duration> {
    if *action == kube::runtime::controller::Action::await_change() {
        return None;
    }
    let debug = format!("{action:?}");
    let inner = debug.split_once("Some(")?.1.split_once(')')?.0;
    let (number, scale) = [("ns", 1e-9), ("µs", 1e-6), ("ms", 1e-3), ("s", 1.0)]
        .into_iter()
        .find_map(|(unit, scale)| Some((inner.strip_suffix(unit)?, scale)))?;
    let seconds = number.parse::<f64>().ok()? * scale;
    Duration::try_from_secs_f64(seconds).ok()
}

#[cfg(test)]
mod tests {
    use super::*;
    use kube::runtime::controller::Action;

    #[test]
    fn the_requeue_delay_is_read_back_from_any_action() {
        assert_eq!(requeue_delay(&Action::await_change()), None);
        for delay in [
            Duration::ZERO,
            Duration::from_nanos(7),
            Duration::from_micros(250),
            Duration::from_millis(5),
            Duration::from_millis(1500),
            Duration::from_secs(300),
            Duration::from_secs(3600 * 24 * 365),
        ] {
            let read = requeue_delay(&Action::requeue(delay)).expect("a requeue");
            let error = read.abs_diff(delay).as_secs_f64();
            assert!(
                error <= delay.as_secs_f64() * 1e-9,
                "{delay:?} read as {read:?}"
            );
        }
    }

    fn value(metrics: &Metrics, family: &str) -> f64 {
        crate::metrics::sample(&metrics.encode(), family, &[("name", "q")])
            .unwrap_or_else(|| panic!("{family} not exported"))
    }

    #[tokio::test(start_paused = true)]
    async fn the_families_follow_adds_requeues_and_work() {
        let metrics = Metrics::new();
        let mirror = QueueMirror::<&str>::new(&metrics, "q");
        mirror.added(&"a");
        mirror.added(&"a"); // merged with the waiting one
        mirror.added(&"b");
        assert_eq!(value(&metrics, "workqueue_adds_total"), 2.0);
        assert_eq!(value(&metrics, "workqueue_depth"), 2.0);

        tokio::time::advance(Duration::from_millis(40)).await;
        mirror.taken(&"a");
        assert_eq!(value(&metrics, "workqueue_depth"), 1.0);
        assert_eq!(
            value(&metrics, "workqueue_queue_duration_seconds_count"),
            1.0
        );
        assert!(value(&metrics, "workqueue_queue_duration_seconds_sum") >= 0.04);
        mirror.added(&"a"); // changed while it runs: waits again
        assert_eq!(value(&metrics, "workqueue_depth"), 2.0);
        tokio::time::advance(Duration::from_millis(30)).await;
        assert!(value(&metrics, "workqueue_longest_running_processor_seconds") >= 0.03);
        mirror.finished(&"a");
        assert_eq!(
            value(&metrics, "workqueue_work_duration_seconds_count"),
            1.0
        );
        assert_eq!(value(&metrics, "workqueue_unfinished_work_seconds"), 0.0);

        // A failed reconcile: a retry, counted as an add once its delay has passed.
        mirror.taken(&"b");
        mirror.finished(&"b");
        mirror.requeued(&"b", Duration::from_secs(1), true);
        assert_eq!(value(&metrics, "workqueue_retries_total"), 1.0);
        assert_eq!(value(&metrics, "workqueue_adds_total"), 3.0);
        tokio::time::advance(Duration::from_secs(1)).await;
        assert_eq!(value(&metrics, "workqueue_adds_total"), 4.0);
        assert_eq!(value(&metrics, "workqueue_depth"), 2.0);

        // A requeue the reconciler asked for is no retry; a key gone before it ran leaves the queue.
        mirror.requeued(&"c", Duration::from_secs(5), false);
        mirror.gone(&"b");
        mirror.gone(&"c");
        tokio::time::advance(Duration::from_secs(5)).await;
        assert_eq!(value(&metrics, "workqueue_retries_total"), 1.0);
        assert_eq!(value(&metrics, "workqueue_depth"), 1.0);
        assert_eq!(value(&metrics, "workqueue_adds_total"), 4.0);
    }
}
