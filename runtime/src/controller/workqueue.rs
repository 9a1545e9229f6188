//! A rate-limited work queue of keys: client-go's `workqueue.RateLimitingInterface`, for controllers built on
//! informers and listers (event handlers add keys, workers pop them). [`crate::Controller`] needs none of this;
//! it is for hand-written controllers.
//!
//! Retries use [`RateLimiter`], the same per-key exponential backoff max'ed with an overall token bucket that
//! [`crate::Controller`] uses. The guarantees controllers rely on, as in client-go:
//! - a key is queued at most once however often it is added before a worker takes it (dedup);
//! - a key is never handed to two workers at once: added while a worker holds it, it is marked dirty and queued
//!   again when that worker calls [`WorkQueue::done`], so the change is never lost;
//! - [`WorkQueue::add_rate_limited`] delays a retry by the key's own exponential backoff, which
//!   [`WorkQueue::forget`] resets after a success;
//! - after [`WorkQueue::shut_down`], [`WorkQueue::get`] returns `None` at once (queued keys are dropped: an operator
//!   stopping must not start new work) and no add has any effect.
//!
//! Delayed adds ([`WorkQueue::add_after`], [`WorkQueue::add_rate_limited`]) spawn a timer task, so they must be
//! called within a tokio runtime.
//!
//! [`WorkQueue::with_metrics`] exports client-go's workqueue metrics with their names, as controller-runtime does
//! for each controller: `workqueue_depth`, `workqueue_adds_total`, `workqueue_queue_duration_seconds`,
//! `workqueue_work_duration_seconds`, `workqueue_unfinished_work_seconds`,
//! `workqueue_longest_running_processor_seconds` and `workqueue_retries_total`, labelled `{name}` (the last two are
//! computed when scraped).
//!
//! ```no_run
//! # async fn sync(_: &str) -> Result<(), std::io::Error> { Ok(()) }
//! # async fn example() {
//! let queue = rkb_runtime::workqueue::WorkQueue::<String>::default();
//! queue.add("a".to_string()); // from an informer's event handler
//! while let Some(key) = queue.get().await {
//!     match sync(&key).await {
//!         Ok(()) => queue.forget(&key),
//!         Err(_) => {
//!             queue.add_rate_limited(key.clone());
//!         }
//!     }
//!     queue.done(&key);
//! }
//! # }
//! ```

use std::collections::{HashMap, HashSet, VecDeque};
use std::hash::Hash;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

use crate::backoff::{DEFAULT_BURST, DEFAULT_QPS, RateLimiter};
use crate::metrics::QueueMetrics;
use tokio::sync::Notify;
use tokio::time::Instant;

/// A queue of keys shared by event handlers (producers) and workers (consumers). Cheap to clone.
pub struct WorkQueue<K> {
    inner: Arc<Inner<K>>,
}

impl<K> std::fmt::Debug for WorkQueue<K> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let state = self.inner.state.lock().unwrap_or_else(|e| e.into_inner());
        f.debug_struct("WorkQueue")
            .field("queued", &state.queue.len())
            .field("processing", &state.processing.len())
            .field("waiting", &state.waiting.len())
            .field("shutting_down", &state.shutting_down)
            .finish()
    }
}

impl<K> Clone for WorkQueue<K> {
    fn clone(&self) -> Self {
        Self {
            inner: self.inner.clone(),
        }
    }
}

struct Inner<K> {
    state: Mutex<State<K>>,
    /// Wakes workers waiting in `get` (one per added key; all of them on shutdown).
    ready: Notify,
    limiter: RateLimiter<K>,
    metrics: Option<QueueMetrics>,
}

struct State<K> {
    /// Keys ready for a worker, in order.
    queue: VecDeque<K>,
    /// Keys that need processing: those in `queue`, and those added again while a worker holds them.
    dirty: HashSet<K>,
    /// Keys a worker holds (between `get` and `done`).
    processing: HashSet<K>,
    /// Delayed adds: when each key becomes ready. An earlier add_after replaces a later one.
    waiting: HashMap<K, Instant>,
    /// When each queued key was queued, and when each held key was taken (for the duration metrics).
    queued_at: HashMap<K, Instant>,
    taken_at: HashMap<K, Instant>,
    shutting_down: bool,
}

impl<K> Default for WorkQueue<K>
where
    K: Hash + Eq + Clone + Send + Sync + 'static,
{
    /// controller-runtime's defaults: 5 ms doubling to 1000 s per key, 10 qps burst 100 overall.
    fn default() -> Self {
        Self::with_limiter(RateLimiter::default())
    }
}

impl<K> WorkQueue<K>
where
    K: Hash + Eq + Clone + Send + Sync + 'static,
{
    /// A queue whose retries back off per key from `base` doubling up to `max`, and together at most 10 per second
    /// after a burst of 100 (controller-runtime's defaults for the overall bucket).
    pub fn new(base: Duration, max: Duration) -> Self {
        Self::with_limiter(RateLimiter::new(base, max, DEFAULT_QPS, DEFAULT_BURST))
    }

    /// A queue with its own rate limiter.
    pub fn with_limiter(limiter: RateLimiter<K>) -> Self {
        Self {
            inner: Arc::new(Inner {
                state: Mutex::new(State {
                    queue: VecDeque::new(),
                    dirty: HashSet::new(),
                    processing: HashSet::new(),
                    waiting: HashMap::new(),
                    queued_at: HashMap::new(),
                    taken_at: HashMap::new(),
                    shutting_down: false,
                }),
                ready: Notify::new(),
                limiter,
                metrics: None,
            }),
        }
    }

    /// This queue, exporting client-go's workqueue metrics as `{name}` into `metrics` (the manager's, e.g.
    /// `ctx.metrics()`). Call it on a new queue, before it is cloned.
    ///
    /// # Panics
    /// When the queue was cloned already (its clones would not be measured).
    pub fn with_metrics(mut self, metrics: &crate::metrics::Metrics, name: &str) -> Self {
        Arc::get_mut(&mut self.inner)
            .expect("with_metrics is called on a new queue, before it is cloned")
            .metrics = Some(metrics.workqueue(name));
        // Unfinished work is measured when scraped, from the keys held right then.
        let queue = Arc::downgrade(&self.inner);
        metrics.workqueue_progress(name, move || {
            let inner = queue.upgrade()?;
            let state = inner.state.lock().unwrap_or_else(|e| e.into_inner());
            let now = Instant::now();
            let running = state.taken_at.values().map(|t| (now - *t).as_secs_f64());
            Some(running.fold((0.0, 0.0), |(sum, max), d| (sum + d, f64::max(max, d))))
        });
        self
    }

    fn state(&self) -> MutexGuard<'_, State<K>> {
        // Nothing panics while holding the lock, so a poisoned lock still guards whole data.
        self.inner.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Queues `key` now, unless it is already queued (or held by a worker: then it is queued again on `done`).
    pub fn add(&self, key: K) {
        let mut state = self.state();
        if state.shutting_down || !state.dirty.insert(key.clone()) {
            return;
        }
        if let Some(m) = &self.inner.metrics {
            m.adds.inc();
        }
        if state.processing.contains(&key) {
            return;
        }
        self.enqueue(&mut state, key);
        drop(state);
        self.inner.ready.notify_one();
    }

    /// Puts `key` at the back of the queue, noting when (for workqueue_queue_duration_seconds).
    fn enqueue(&self, state: &mut State<K>, key: K) {
        if let Some(m) = &self.inner.metrics {
            state.queued_at.insert(key.clone(), Instant::now());
            m.depth.inc();
        }
        state.queue.push_back(key);
    }

    /// Queues `key` once `delay` has passed. Of several pending delayed adds of one key the earliest wins.
    pub fn add_after(&self, key: K, delay: Duration) {
        if delay.is_zero() {
            self.add(key);
            return;
        }
        let at = Instant::now() + delay;
        {
            let mut state = self.state();
            if state.shutting_down {
                return;
            }
            match state.waiting.get(&key) {
                Some(existing) if *existing <= at => return,
                _ => {
                    state.waiting.insert(key.clone(), at);
                }
            }
        }
        let queue = self.clone();
        tokio::spawn(async move {
            tokio::time::sleep_until(at).await;
            let due = {
                let mut state = queue.state();
                // A later, earlier-due add_after replaced this one: it does the add.
                if state.waiting.get(&key) == Some(&at) {
                    state.waiting.remove(&key);
                    true
                } else {
                    false
                }
            };
            if due {
                queue.add(key);
            }
        });
    }

    /// Queues `key` after its next backoff delay (and the overall bucket's), and returns that delay.
    pub fn add_rate_limited(&self, key: K) -> Duration {
        if let Some(m) = &self.inner.metrics {
            m.retries.inc();
        }
        let delay = self.inner.limiter.when(&key);
        self.add_after(key, delay);
        delay
    }

    /// Resets the backoff of `key` (call it when processing succeeded).
    pub fn forget(&self, key: &K) {
        self.inner.limiter.forget(key);
    }

    /// How many rate-limited retries `key` has had since it was last forgotten.
    pub fn num_requeues(&self, key: &K) -> u32 {
        self.inner.limiter.num_requeues(key)
    }

    /// Waits for the next key and marks it held by the caller, who must call [`done`](Self::done) with it.
    /// `None` once the queue shuts down.
    pub async fn get(&self) -> Option<K> {
        loop {
            // Registered before looking at the queue, so an add between the look and the wait still wakes us.
            let notified = self.inner.ready.notified();
            tokio::pin!(notified);
            notified.as_mut().enable();
            {
                let mut state = self.state();
                if state.shutting_down {
                    return None;
                }
                if let Some(key) = state.queue.pop_front() {
                    state.dirty.remove(&key);
                    state.processing.insert(key.clone());
                    if let Some(m) = &self.inner.metrics {
                        m.depth.dec();
                        if let Some(queued) = state.queued_at.remove(&key) {
                            m.queue_duration
                                .observe((Instant::now() - queued).as_secs_f64());
                        }
                        state.taken_at.insert(key.clone(), Instant::now());
                    }
                    return Some(key);
                }
            }
            notified.await;
        }
    }

    /// Releases `key` after processing; if it was added meanwhile it is queued again.
    pub fn done(&self, key: &K) {
        let mut state = self.state();
        state.processing.remove(key);
        if let Some(m) = &self.inner.metrics
            && let Some(taken) = state.taken_at.remove(key)
        {
            m.work_duration
                .observe((Instant::now() - taken).as_secs_f64());
        }
        if state.dirty.contains(key) && !state.shutting_down {
            self.enqueue(&mut state, key.clone());
            drop(state);
            self.inner.ready.notify_one();
        }
    }

    /// Keys waiting for a worker (not counting held or delayed ones).
    pub fn len(&self) -> usize {
        self.state().queue.len()
    }

    /// Whether no key waits for a worker.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Stops the queue: waiting and future `get` calls return `None`, adds are ignored.
    pub fn shut_down(&self) {
        let mut state = self.state();
        state.shutting_down = true;
        if let Some(m) = &self.inner.metrics {
            m.depth.set(0);
        }
        state.queue.clear();
        state.dirty.clear();
        state.waiting.clear();
        state.queued_at.clear();
        drop(state);
        self.inner.ready.notify_waiters();
    }

    /// Whether [`shut_down`](Self::shut_down) was called.
    pub fn is_shutting_down(&self) -> bool {
        self.state().shutting_down
    }
}

// Tests that wait run on tokio's paused clock (`start_paused`): time moves only when every task is idle, straight to
// the next timer, so a sleep there lets the other tasks reach their await points and the waits are exact instead of
// machine-dependent.
#[cfg(test)]
mod tests {
    use super::*;

    fn queue() -> WorkQueue<&'static str> {
        WorkQueue::new(Duration::from_millis(100), Duration::from_secs(10))
    }

    async fn next(q: &WorkQueue<&'static str>) -> Option<&'static str> {
        tokio::time::timeout(Duration::from_secs(5), q.get())
            .await
            .expect("a key within 5s")
    }

    #[tokio::test]
    async fn adds_of_a_queued_key_collapse() {
        let q = queue();
        q.add("a");
        q.add("b");
        q.add("a");
        assert_eq!(q.len(), 2);
        assert_eq!(next(&q).await, Some("a"));
        assert_eq!(next(&q).await, Some("b"));
        assert!(q.is_empty());
    }

    #[tokio::test(start_paused = true)]
    async fn a_key_added_while_held_comes_back_after_done_only() {
        let q = queue();
        q.add("a");
        let held = next(&q).await.unwrap();
        q.add("a");
        q.add("a");
        // Not handed to a second worker while held.
        assert!(q.is_empty());
        assert!(
            tokio::time::timeout(Duration::from_millis(100), q.get())
                .await
                .is_err()
        );
        q.done(&held);
        assert_eq!(next(&q).await, Some("a"));
        q.done(&"a");
        assert!(q.is_empty());
    }

    #[tokio::test(start_paused = true)]
    async fn a_waiting_worker_wakes_on_add() {
        let q = queue();
        let worker = tokio::spawn({
            let q = q.clone();
            async move { q.get().await }
        });
        tokio::time::sleep(Duration::from_millis(50)).await;
        q.add("a");
        let got = tokio::time::timeout(Duration::from_secs(5), worker).await;
        assert_eq!(got.unwrap().unwrap(), Some("a"));
    }

    #[tokio::test(start_paused = true)]
    async fn rate_limited_retries_double_per_key_and_forget_resets() {
        let q = WorkQueue::new(Duration::from_millis(20), Duration::from_secs(10));
        let mut delays = Vec::new();
        for _ in 0..4 {
            let start = Instant::now();
            let delay = q.add_rate_limited("a");
            assert_eq!(next(&q).await, Some("a"));
            assert_eq!(Instant::now() - start, delay);
            q.done(&"a");
            delays.push(delay);
        }
        assert_eq!(delays, [20, 40, 80, 160].map(Duration::from_millis));
        assert_eq!(q.num_requeues(&"a"), 4);
        // Another key starts at the base.
        assert_eq!(q.add_rate_limited("b"), Duration::from_millis(20));
        q.forget(&"a");
        assert_eq!(q.num_requeues(&"a"), 0);
        assert_eq!(q.add_rate_limited("a"), Duration::from_millis(20));
    }

    #[tokio::test]
    async fn the_default_backs_off_like_controller_runtime() {
        let q = WorkQueue::<&str>::default();
        assert_eq!(q.add_rate_limited("a"), Duration::from_millis(5));
        assert_eq!(q.add_rate_limited("a"), Duration::from_millis(10));
        assert_eq!(next(&q).await, Some("a"));
    }

    /// On the paused clock the queue's timers fire in order at their exact instants, so the wait is the earliest
    /// delay to the millisecond, whatever the machine's load.
    #[tokio::test(start_paused = true)]
    async fn the_earliest_delayed_add_wins() {
        let q = queue();
        let start = Instant::now();
        q.add_after("a", Duration::from_millis(300));
        q.add_after("a", Duration::from_millis(50));
        q.add_after("a", Duration::from_millis(200));
        assert_eq!(next(&q).await, Some("a"));
        assert_eq!(Instant::now() - start, Duration::from_millis(50));
        q.done(&"a");
        // The superseded timer (300 ms) fires on the way without queueing the key again.
        tokio::time::sleep(Duration::from_millis(400)).await;
        assert!(q.is_empty());
    }

    #[tokio::test(start_paused = true)]
    async fn shut_down_releases_waiting_workers_and_ignores_adds() {
        let q = queue();
        let worker = tokio::spawn({
            let q = q.clone();
            async move { q.get().await }
        });
        tokio::time::sleep(Duration::from_millis(50)).await;
        q.shut_down();
        let released = tokio::time::timeout(Duration::from_secs(5), worker).await;
        assert_eq!(released.unwrap().unwrap(), None);
        q.add("b");
        q.add_after("c", Duration::from_millis(10));
        assert!(q.is_shutting_down());
        assert!(q.is_empty());
        assert_eq!(next(&q).await, None);
    }

    #[tokio::test(start_paused = true)]
    async fn metrics_follow_adds_waits_work_and_retries() {
        let metrics = crate::metrics::Metrics::new();
        let q = queue().with_metrics(&metrics, "widgets");
        let value = |name: &str| {
            crate::metrics::sample(&metrics.encode(), name, &[("name", "widgets")]).unwrap_or(-1.0)
        };
        q.add("a");
        q.add("b");
        q.add("a");
        assert_eq!(value("workqueue_depth"), 2.0);
        assert_eq!(value("workqueue_adds_total"), 2.0);
        let held = next(&q).await.unwrap();
        assert_eq!(value("workqueue_depth"), 1.0);
        assert_eq!(value("workqueue_queue_duration_seconds_count"), 1.0);
        tokio::time::sleep(Duration::from_millis(30)).await;
        let unfinished = value("workqueue_unfinished_work_seconds");
        assert!(unfinished >= 0.03, "{unfinished}");
        assert!(value("workqueue_longest_running_processor_seconds") >= 0.03);
        q.done(&held);
        assert_eq!(value("workqueue_work_duration_seconds_count"), 1.0);
        assert_eq!(value("workqueue_unfinished_work_seconds"), 0.0);
        q.add_rate_limited("c");
        assert_eq!(value("workqueue_retries_total"), 1.0);
    }

    #[tokio::test]
    async fn shut_down_drops_queued_keys() {
        let q = queue();
        q.add("a");
        q.shut_down();
        assert_eq!(next(&q).await, None);
    }
}
