//! The worker loop of an informer-driven controller, client-go style: informers' event handlers put keys on a
//! [`WorkQueue`], and N workers pop a key, sync it, and forget it or queue it again with its backoff. For controllers
//! written the way client-go writes them (sample-controller); [`crate::Controller`] needs none of this.
//!
//! Flow of [`Workers::run`]:
//! 1. [`Workers::new`] (before the controller function's first wait) gates /readyz on this controller and exports
//!    the queue's workqueue_* metrics under its name; the controller registers its event handlers with
//!    [`Workers::queue`];
//! 2. `run` starts the informer factory and waits for its caches (returning at once if the manager shuts down
//!    first); once they synced, /readyz passes for this controller;
//! 3. it waits for leadership (followers keep their caches warm), then starts the workers;
//! 4. each worker pops a key and waits while the API server is down (outage.rs) and while this manager does not
//!    lead, then runs `sync(key)`, records it in controller_runtime_* (as [`crate::Controller`] does), and:
//!    - `Ok`: forgets the key's failures;
//!    - an `Err` saying the API server cannot be reached: marks it down (the prober starts) and queues the key
//!      again after [`crate::outage::RETRY_AFTER`], charging nothing to its backoff;
//!    - any other `Err`, or a panic: queues the key again after its backoff (the queue's rate limiter), logged as an
//!      error with the error's whole chain. A 409 Conflict on a stale resourceVersion is logged at info (an expected
//!      race) until it persists (the same rule as [`crate::Controller`]);
//! 5. at shutdown the queue stops handing out keys, in-flight syncs finish, and the informers stop.
//!
//! Errors are read as [`crate::Controller`] reads them (failure.rs): `sync` returns any error type that converts
//! into a [`crate::BoxError`], and the first `kube::Error` of its `source()` chain decides.
//!
//! Guarantees: a key is never synced by two workers at once, and a change that arrives while it is synced is synced
//! again after (the queue's guarantees); a panic costs the key a retry, never a worker.
//!
//! Caveat: `run` ends with an error when an informer stops before its first list; the manager then stops.

use std::fmt::Debug;
use std::hash::Hash;
use std::sync::Arc;

use tracing::Instrument;

use crate::context::Context;
use crate::error::{BoxError, Error};
use crate::failure::{Failure, PERSISTENT_CONFLICT, ReconcileError};
use crate::informer::SharedInformerFactory;
use crate::metrics::{ControllerMetrics, ReconcileResult};
use crate::workqueue::WorkQueue;

/// Runs the workers of one informer-driven controller. See the module docs for the flow.
#[must_use]
pub struct Workers<Key> {
    ctx: Context,
    name: String,
    queue: WorkQueue<Key>,
    count: usize,
}

impl<Key> Workers<Key>
where
    Key: Hash + Eq + Clone + Debug + Send + Sync + 'static,
{
    /// The workers of the controller `name` (logs, readiness, the `controller` and `name` labels of the metrics),
    /// taking keys from `queue` (a new queue: its metrics are registered here). One worker unless [`Self::count`].
    pub fn new(ctx: &Context, name: &str, queue: WorkQueue<Key>) -> Self {
        ctx.set_controller_name(name);
        // /readyz waits for this controller's caches (marked ready in `run`, once they sync).
        ctx.gate_readiness();
        Self {
            ctx: ctx.clone(),
            name: name.to_string(),
            queue: queue.with_metrics(ctx.metrics(), name),
            count: 1,
        }
    }

    /// The queue the event handlers add keys to.
    pub fn queue(&self) -> &WorkQueue<Key> {
        &self.queue
    }

    /// How many keys are synced at once (at least 1); the same key never twice at once.
    pub fn count(mut self, workers: usize) -> Self {
        self.count = workers.max(1);
        self
    }

    /// Starts `factory`'s informers and, once their caches synced and this manager leads, the workers, which call
    /// `sync` for each key until the manager shuts down.
    pub async fn run<F, Fut, E>(self, factory: &SharedInformerFactory, sync: F) -> Result<(), Error>
    where
        F: Fn(Key) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<(), E>> + Send + 'static,
        E: Into<BoxError> + Send + 'static,
    {
        factory.start();
        let synced = tokio::select! {
            synced = factory.wait_for_cache_sync() => synced,
            () = self.ctx.shutdown_signal() => {
                factory.shutdown().await;
                return Ok(());
            }
        };
        if !synced {
            factory.shutdown().await;
            return Err(Error::Controller {
                name: self.name,
                source: "an informer stopped before its cache synced".into(),
            });
        }
        tracing::info!(controller = %self.name, "cache synced");
        self.ctx.mark_ready(&self.name);
        if self.ctx.wait_for_leadership().await {
            let worker = Arc::new(Worker {
                metrics: self.ctx.metrics().controller(&self.name, self.count),
                ctx: self.ctx.clone(),
                name: self.name.clone(),
                queue: self.queue.clone(),
                sync,
            });
            let tasks: Vec<_> = (0..self.count)
                .map(|_| tokio::spawn(worker.clone().work()))
                .collect();
            tracing::info!(controller = %self.name, workers = self.count, "workers started");
            self.ctx.shutdown_signal().await;
            // In-flight syncs finish; nothing new starts.
            self.queue.shut_down();
            for task in tasks {
                let _ = task.await;
            }
        }
        factory.shutdown().await;
        Ok(())
    }
}

/// What every worker of one controller shares.
struct Worker<Key, F> {
    ctx: Context,
    name: String,
    queue: WorkQueue<Key>,
    metrics: ControllerMetrics,
    sync: F,
}

impl<Key, F, Fut, E> Worker<Key, F>
where
    Key: Hash + Eq + Clone + Debug + Send + Sync + 'static,
    F: Fn(Key) -> Fut + Send + Sync + 'static,
    Fut: Future<Output = Result<(), E>> + Send + 'static,
    E: Into<BoxError> + Send + 'static,
{
    /// Pops keys until the queue shuts down.
    async fn work(self: Arc<Self>) {
        while let Some(key) = self.queue.get().await {
            // While the API server is down nothing syncs (outage.rs); a follower (a lost term) syncs nothing.
            tokio::select! {
                biased;
                () = self.ctx.outage().wait() => {}
                () = self.ctx.shutdown_signal() => {}
            }
            if !self.ctx.is_shutting_down() && self.ctx.wait_for_leadership().await {
                let span = tracing::info_span!("sync", controller = %self.name, key = ?key);
                self.sync(key.clone()).instrument(span).await;
            }
            self.queue.done(&key);
        }
    }

    /// Syncs `key` once and queues it again as its outcome says (module docs).
    async fn sync(&self, key: Key) {
        let recording = self.metrics.reconcile();
        let error = match crate::panics::catch((self.sync)(key.clone())).await {
            Ok(Ok(())) => {
                recording.finish(ReconcileResult::Success);
                self.queue.forget(&key);
                return;
            }
            Ok(Err(error)) => {
                recording.finish(ReconcileResult::Error);
                ReconcileError::new(error)
            }
            Err(panic) => {
                recording.panicked();
                let delay = self.queue.add_rate_limited(key);
                tracing::error!(panic = %panic, retry_in = ?delay, "sync panicked");
                return;
            }
        };
        match error.failure() {
            Failure::Outage => {
                let (client, shutdown) = (self.ctx.client(), self.ctx.shutdown_receiver());
                self.ctx.outage().begin(&client, shutdown);
                tracing::debug!(error = %error.chain(), "sync failed: the API server does not answer");
                self.queue.add_after(key, crate::outage::RETRY_AFTER);
            }
            Failure::RaceConflict if self.queue.num_requeues(&key) + 1 < PERSISTENT_CONFLICT => {
                let delay = self.queue.add_rate_limited(key);
                tracing::info!(error = %error.chain(), retry_in = ?delay, "conflict: the object changed since it was read; syncing again");
            }
            Failure::RaceConflict | Failure::Object => {
                let failures = self.queue.num_requeues(&key) + 1;
                let delay = self.queue.add_rate_limited(key);
                tracing::error!(error = %error.chain(), failures, retry_in = ?delay, "sync failed");
            }
        }
    }
}
