//! The per-kind controller every generated operator uses: kube-runtime's Controller plus what controller-runtime
//! adds around a reconcile: leader gating, per-object exponential backoff with an overall rate limit, metrics,
//! panic recovery, readiness after the cache syncs, and graceful shutdown.

use std::collections::HashMap;
use std::fmt::{Debug, Display};
use std::hash::Hash;
use std::panic::AssertUnwindSafe;
use std::sync::{Arc, Mutex};

use futures::{FutureExt, StreamExt};
use kube::Resource;
use kube::runtime::controller::{self as kc, Action};
use kube::runtime::reflector::{ObjectRef, Store};
use kube::runtime::watcher;
use serde::de::DeserializeOwned;
use tracing::Instrument;

use crate::Error;
use crate::backoff::RateLimiter;
use crate::context::Context;
use crate::metrics::{ControllerMetrics, ReconcileResult};
use crate::scope::WatchScope;

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
    inner: kc::Controller<K>,
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
        Self {
            ctx: ctx.clone(),
            name,
            inner: kc::Controller::new(api, config),
            concurrency: 1,
            rate_limiter: RateLimiter::default(),
        }
    }

    /// Also reconciles the owner (controller reference) of each changed `C` in the watch scope.
    pub fn owns<C>(mut self) -> Self
    where
        C: Resource<DynamicType = ()> + Clone + DeserializeOwned + Debug + Send + 'static,
        C::Scope: WatchScope,
    {
        self.inner = self
            .inner
            .owns(self.ctx.api::<C>(), watcher::Config::default());
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
        self.inner = self
            .inner
            .watches(self.ctx.api::<O>(), watcher::Config::default(), mapper);
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

    /// Escape hatch: adjusts the underlying kube-runtime controller (extra streams, triggers...).
    pub fn with(mut self, f: impl FnOnce(kc::Controller<K>) -> kc::Controller<K>) -> Self {
        self.inner = f(self.inner);
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
            inner,
            concurrency,
            rate_limiter,
        } = self;
        let store = inner.store();
        let worker = Arc::new(Worker {
            ctx: ctx.clone(),
            name: name.clone(),
            metrics: ctx.metrics().controller(&name, usize::from(concurrency)),
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
        let main = inner
            .with_config(kc::Config::default().concurrency(concurrency))
            .graceful_shutdown_on(ctx.shutdown_signal())
            .run(
                |obj, worker: Arc<Worker<K, F>>| {
                    let worker = worker.clone();
                    async move { Ok::<_, std::convert::Infallible>(worker.reconcile(obj).await) }
                },
                |_, never, _| match *never {},
                worker.clone(),
            )
            .for_each(|result| {
                match result {
                    // kube-runtime does not call the reconciler for an object gone from the cache; it says so
                    // here. Its failure count must go too, or a deleted failing object stays in the limiter
                    // forever and a new object of the same name starts at the grown delay.
                    Err(kc::Error::ObjectNotFound(gone)) => {
                        let mut key = ObjectRef::<K>::new(&gone.name);
                        key.namespace = gone.namespace.clone();
                        worker.forget(&key);
                        tracing::debug!(controller = %name, object = %gone, "object gone before its reconcile");
                    }
                    // Watch errors are retried by the watcher's own backoff; they are worth a warning only.
                    Err(e) => tracing::warn!(controller = %name, error = %e, "controller stream error"),
                    Ok(_) => {}
                }
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
            return Action::await_change();
        };
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
                action
            }
            Ok(Err(error)) if crate::outage::is_unavailable(&error) => {
                // Not the object's failure: no backoff charged; the retry waits for the server (outage.rs).
                recording.finish(ReconcileResult::Error);
                let (client, shutdown) = (self.ctx.client(), self.ctx.shutdown_receiver());
                self.ctx.outage().begin(&client, shutdown);
                tracing::debug!(%error, "reconcile failed: the API server does not answer");
                Action::requeue(crate::outage::RETRY_AFTER)
            }
            Ok(Err(error)) => {
                recording.finish(ReconcileResult::Error);
                let delay = self.failed(key, uid);
                tracing::error!(%error, retry_in = ?delay, "reconciler error");
                Action::requeue(delay)
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
                Action::requeue(delay)
            }
        }
    }
}
