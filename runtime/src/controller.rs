//! The per-kind controller every generated operator uses: kube-runtime's applier plus what controller-runtime
//! adds around a reconcile: leader gating, per-object exponential backoff with an overall rate limit, metrics
//! (controller_runtime_* and, through [`crate::queue_mirror`], workqueue_*), panic recovery, readiness after the
//! cache syncs, and graceful shutdown.
//!
//! The builder assembles the trigger streams itself (the object's watch, metadata-only watches of owned kinds,
//! mapped watches) instead of using kube-runtime's `Controller`, so that every reconcile request passes where the
//! queue mirror can count it.

use std::collections::HashMap;
use std::convert::Infallible;
use std::fmt::{Debug, Display};
use std::hash::Hash;
use std::panic::AssertUnwindSafe;
use std::sync::{Arc, Mutex};

use futures::stream::{BoxStream, SelectAll};
use futures::{FutureExt, Stream, StreamExt, TryStreamExt};
use kube::Resource;
use kube::api::PartialObjectMeta;
use kube::runtime::controller::{self as kc, Action, ReconcileReason, ReconcileRequest};
use kube::runtime::reflector::{self, ObjectRef, Store};
use kube::runtime::utils::{CancelableJoinHandle, StreamBackoff};
use kube::runtime::{WatchStreamExt, watcher};
use serde::de::DeserializeOwned;
use tracing::Instrument;

use crate::Error;
use crate::backoff::RateLimiter;
use crate::context::Context;
use crate::metrics::{ControllerMetrics, ReconcileResult};
use crate::queue_mirror::{QueueMirror, requeue_delay};
use crate::scope::WatchScope;

/// The reconcile requests of one controller, from all its watches.
type Triggers<K> = SelectAll<BoxStream<'static, Result<ReconcileRequest<K>, watcher::Error>>>;

/// Entry point: `Controller::for_kind::<K>(&ctx)` starts a [`ControllerBuilder`] for kind K.
#[derive(Clone, Copy, Debug)]
pub struct Controller;

impl Controller {
    /// A controller reconciling every K in the manager's watch scope.
    pub fn for_kind<K>(ctx: &Context) -> ControllerBuilder<K>
    where
        K: Resource<DynamicType = ()> + Clone + DeserializeOwned + Debug + Send + Sync + 'static,
        K::Scope: WatchScope,
    {
        ControllerBuilder::new(ctx, watcher::Config::default())
    }

    /// A controller reconciling the K selected by `config` (label/field selectors) in the manager's watch scope.
    pub fn for_kind_with<K>(ctx: &Context, config: watcher::Config) -> ControllerBuilder<K>
    where
        K: Resource<DynamicType = ()> + Clone + DeserializeOwned + Debug + Send + Sync + 'static,
        K::Scope: WatchScope,
    {
        ControllerBuilder::new(ctx, config)
    }
}

/// Builds and runs the controller of one kind. See the crate docs for the shape of a controller file.
#[must_use]
pub struct ControllerBuilder<K>
where
    K: Resource<DynamicType = ()> + Clone + DeserializeOwned + Debug + Send + Sync + 'static,
{
    ctx: Context,
    name: String,
    /// The cache of K the object's watch fills, read by each reconcile.
    store: Store<K>,
    triggers: Triggers<K>,
    concurrency: u16,
    rate_limiter: RateLimiter<ObjectRef<K>>,
}

impl<K> ControllerBuilder<K>
where
    K: Resource<DynamicType = ()> + Clone + DeserializeOwned + Debug + Send + Sync + 'static,
    K::Scope: WatchScope,
{
    fn new(ctx: &Context, config: watcher::Config) -> Self {
        let api = ctx.api::<K>();
        let name = K::kind(&()).to_ascii_lowercase();
        ctx.set_controller_name(&name);
        // /readyz waits for this controller's cache (marked ready once it syncs, in `run`).
        ctx.gate_readiness();
        let writer = reflector::store::Writer::<K>::default();
        let store = writer.as_reader();
        let own = reflector::reflector(writer, watcher(api, config)).applied_objects();
        let mut triggers = Triggers::<K>::new();
        triggers.push(kc::trigger_self(own, ()).boxed());
        Self {
            ctx: ctx.clone(),
            name,
            store,
            triggers,
            concurrency: 1,
            rate_limiter: RateLimiter::default(),
        }
    }

    /// Also reconciles the owner (controller reference) of each changed `C` in the watch scope. The watch is
    /// metadata-only: owner references are all it needs.
    pub fn owns<C>(mut self) -> Self
    where
        C: Resource<DynamicType = ()> + Clone + DeserializeOwned + Debug + Send + 'static,
        C::Scope: WatchScope,
    {
        // An Api of PartialObjectMeta makes metadata-only requests.
        let children = watcher(
            self.ctx.api::<PartialObjectMeta<C>>(),
            watcher::Config::default(),
        );
        let owners = kc::trigger_owners(children.touched_objects(), (), ());
        self.triggers.push(owners.boxed());
        self
    }

    /// Also reconciles the K objects that `mapper` returns for each changed `O` in the watch scope.
    pub fn watches<O, I>(mut self, mapper: impl Fn(O) -> I + Send + Sync + 'static) -> Self
    where
        O: Resource<DynamicType = ()> + Clone + DeserializeOwned + Debug + Send + 'static,
        O::Scope: WatchScope,
        I: IntoIterator<Item = ObjectRef<K>> + 'static,
        I::IntoIter: Send,
    {
        let others = watcher(self.ctx.api::<O>(), watcher::Config::default()).touched_objects();
        let requests = kc::trigger_with(others, move |other: O| {
            let related = ObjectRef::from_obj(&other).erase();
            mapper(other)
                .into_iter()
                .map(move |obj_ref| ReconcileRequest {
                    obj_ref,
                    reason: ReconcileReason::RelatedObjectUpdated {
                        obj_ref: Box::new(related.clone()),
                    },
                })
        });
        self.triggers.push(requests.boxed());
        self
    }

    /// Also reconciles each K that `requests` names (a timer, a channel, an external system's events).
    pub fn reconciles_on(
        mut self,
        requests: impl Stream<Item = ObjectRef<K>> + Send + 'static,
    ) -> Self {
        self.triggers
            .push(requests.map(|obj_ref| Ok(obj_ref.into())).boxed());
        self
    }

    /// The name used in metrics and logs (default: the lowercase kind).
    pub fn named(mut self, name: impl Into<String>) -> Self {
        self.name = name.into();
        self.ctx.set_controller_name(&self.name);
        self
    }

    /// How many objects reconcile at once (default 1, controller-runtime's MaxConcurrentReconciles).
    /// The same object never reconciles twice at once.
    pub fn concurrency(mut self, n: u16) -> Self {
        self.concurrency = n.max(1);
        self
    }

    /// Replaces the error backoff (default: 5 ms doubling to 1000 s per object, 10 qps burst 100 overall).
    pub fn rate_limiter(mut self, limiter: RateLimiter<ObjectRef<K>>) -> Self {
        self.rate_limiter = limiter;
        self
    }

    /// Runs until the manager shuts down. `reconcile` is called only while this manager leads, with the
    /// latest cached object; an `Err` is logged, counted and retried with backoff; `Ok(action)` says when to
    /// reconcile again without a change (`Action::await_change()` or `Action::requeue(d)`).
    pub async fn run<F, Fut, E>(self, reconcile: F) -> Result<(), Error>
    where
        F: Fn(Arc<K>, Context) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<Action, E>> + Send + 'static,
        E: Display + Send + 'static,
    {
        let Self {
            ctx,
            name,
            store,
            triggers,
            concurrency,
            rate_limiter,
        } = self;
        let queue = QueueMirror::new(ctx.metrics(), &name);
        let worker = Arc::new(Worker {
            ctx: ctx.clone(),
            name: name.clone(),
            metrics: ctx.metrics().controller(&name, usize::from(concurrency)),
            queue: queue.clone(),
            limiter: rate_limiter,
            failing_uids: Mutex::default(),
            store: store.clone(),
            reconcile,
        });
        let ready = {
            let (ctx, name, store) = (ctx.clone(), name.clone(), store.clone());
            async move {
                if store.wait_until_ready().await.is_ok() {
                    tracing::info!(controller = %name, "cache synced");
                    ctx.mark_ready(&name);
                }
            }
        };
        // Watch errors back off (kube-runtime's default); at shutdown the requests end and running reconciles finish.
        let requests = StreamBackoff::new(triggers, watcher::DefaultBackoff::default())
            .take_until(ctx.shutdown_signal())
            .inspect_ok(move |request| queue.added(&request.obj_ref));
        let main = kc::applier(
            // Each reconcile is a task of its own, so reconciles run on every core; dropped, it is cancelled.
            |obj, worker: Arc<Worker<K, F>>| {
                let reconcile = async move { Ok::<_, Infallible>(worker.reconcile(obj).await) };
                CancelableJoinHandle::spawn(
                    reconcile.in_current_span(),
                    &tokio::runtime::Handle::current(),
                )
            },
            |_, never, _| match *never {},
            worker.clone(),
            store,
            requests,
            kc::Config::default().concurrency(concurrency),
        )
        .for_each(|result| {
            worker.report(result);
            futures::future::ready(())
        });
        tracing::info!(controller = %name, "starting controller");
        // The readiness task ends when the cache syncs, or with the controller (the store's writer is dropped).
        let ((), ()) = futures::join!(main, ready);
        Ok(())
    }
}

struct Worker<K: Resource<DynamicType = ()> + Clone + 'static, F> {
    ctx: Context,
    name: String,
    metrics: ControllerMetrics,
    queue: QueueMirror<ObjectRef<K>>,
    limiter: RateLimiter<ObjectRef<K>>,
    /// The uid of the object each failure count belongs to: kube-runtime does not reconcile deletions, so a
    /// new object under a failing object's name is recognised by its uid and starts with a clean count.
    failing_uids: Mutex<HashMap<ObjectRef<K>, Option<String>>>,
    store: Store<K>,
    reconcile: F,
}

impl<K, F, Fut, E> Worker<K, F>
where
    K: Resource<DynamicType = ()> + Clone + Debug + Send + Sync + 'static,
    ObjectRef<K>: Hash + Eq,
    F: Fn(Arc<K>, Context) -> Fut + Send + Sync + 'static,
    Fut: Future<Output = Result<Action, E>> + Send + 'static,
    E: Display + Send + 'static,
{
    fn failing_uids(&self) -> std::sync::MutexGuard<'_, HashMap<ObjectRef<K>, Option<String>>> {
        self.failing_uids.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Counts one more failure of the object `key` names now (uid `uid`); returns the delay before its retry.
    fn failed(&self, key: ObjectRef<K>, uid: Option<String>) -> std::time::Duration {
        let delay = self.limiter.when(&key);
        self.failing_uids().insert(key, uid);
        delay
    }

    /// Drops what is remembered of `key`'s failures (after a success, or once the object is gone).
    fn forget(&self, key: &ObjectRef<K>) {
        self.limiter.forget(key);
        self.failing_uids().remove(key);
    }

    /// What the applier reports of each request: a reconcile's end, an object gone before its reconcile, or a
    /// watch error.
    fn report(
        &self,
        result: Result<(ObjectRef<K>, Action), kc::Error<Infallible, watcher::Error>>,
    ) {
        match result {
            // kube-runtime does not call the reconciler for an object gone from the cache; it says so here. Its
            // failure count must go too, or a deleted failing object stays in the limiter forever and a new
            // object of the same name starts at the grown delay.
            Err(kc::Error::ObjectNotFound(gone)) => {
                let mut key = ObjectRef::<K>::new(&gone.name);
                key.namespace = gone.namespace.clone();
                self.forget(&key);
                self.queue.gone(&key);
                tracing::debug!(controller = %self.name, object = %gone, "object gone before its reconcile");
            }
            // Watch errors are retried by the watcher's own backoff; they are worth a warning only.
            Err(e) => {
                tracing::warn!(controller = %self.name, error = %e, "controller stream error")
            }
            Ok(_) => {}
        }
    }

    /// Reconciles the object `obj` names once this manager leads and the API server answers; returns when to
    /// reconcile it again.
    async fn reconcile(&self, obj: Arc<K>) -> Action {
        let key = ObjectRef::from_obj(&*obj);
        if !self.ctx.wait_for_leadership().await {
            return Action::await_change();
        }
        // While the API server does not answer, nothing reconciles (outage.rs); at shutdown, nothing new starts.
        tokio::select! {
            biased;
            () = self.ctx.outage().wait() => {}
            () = self.ctx.shutdown_signal() => return Action::await_change(),
        }
        // A follower may have waited long for leadership: reconcile what the cache holds now.
        let Some(obj) = self.store.get(&key) else {
            self.forget(&key);
            self.queue.gone(&key);
            return Action::await_change();
        };
        self.queue.taken(&key);
        let (action, failed) = self.run_reconciler(key.clone(), obj).await;
        self.queue.finished(&key);
        if let Some(delay) = requeue_delay(&action) {
            self.queue.requeued(&key, delay, failed);
        }
        action
    }

    /// Runs the reconciler on `obj` (key `key`), logging and counting its outcome; returns the action and whether
    /// it failed (an error or a panic).
    async fn run_reconciler(&self, key: ObjectRef<K>, obj: Arc<K>) -> (Action, bool) {
        let uid = obj.meta().uid.clone();
        if self
            .failing_uids()
            .get(&key)
            .is_some_and(|failed| *failed != uid)
        {
            self.forget(&key);
        }
        // `object` is namespace/name as kubectl prints it; `name` would clash with the span's own name in JSON logs.
        let object = match &key.namespace {
            Some(ns) => format!("{ns}/{}", key.name),
            None => key.name.clone(),
        };
        let span = tracing::info_span!(
            "reconcile",
            controller = %self.name,
            namespace = key.namespace.as_deref().unwrap_or(""),
            object = %object,
        );
        let recording = self.metrics.reconcile();
        let outcome =
            AssertUnwindSafe((self.reconcile)(obj, self.ctx.clone()).instrument(span.clone()))
                .catch_unwind()
                .await;
        let _entered = span.enter();
        match outcome {
            Ok(Ok(action)) => {
                self.forget(&key);
                let result = if action == Action::await_change() {
                    ReconcileResult::Success
                } else {
                    ReconcileResult::RequeueAfter
                };
                recording.finish(result);
                tracing::debug!(?action, "reconciled");
                (action, false)
            }
            Ok(Err(error)) if crate::outage::is_unavailable(&error) => {
                // Not the object's failure: no backoff charged; the retry waits for the server (outage.rs).
                recording.finish(ReconcileResult::Error);
                let (client, shutdown) = (self.ctx.client(), self.ctx.shutdown_receiver());
                self.ctx.outage().begin(&client, shutdown);
                tracing::debug!(%error, "reconcile failed: the API server does not answer");
                (Action::requeue(crate::outage::RETRY_AFTER), true)
            }
            Ok(Err(error)) => {
                recording.finish(ReconcileResult::Error);
                let delay = self.failed(key, uid);
                tracing::error!(%error, retry_in = ?delay, "reconciler error");
                (Action::requeue(delay), true)
            }
            Err(panic) => {
                recording.panicked();
                let delay = self.failed(key, uid);
                let message = panic
                    .downcast_ref::<&str>()
                    .map(|s| s.to_string())
                    .or_else(|| panic.downcast_ref::<String>().cloned())
                    .unwrap_or_else(|| "unknown panic".into());
                tracing::error!(panic = %message, retry_in = ?delay, "reconciler panicked");
                (Action::requeue(delay), true)
            }
        }
    }
}
