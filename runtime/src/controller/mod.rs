//! The per-kind controller every generated operator uses: kube-runtime's applier plus what controller-runtime
//! adds around a reconcile: leader gating, per-object exponential backoff with an overall rate limit, metrics
//! (controller_runtime_* and, through [`crate::queue_mirror`], workqueue_*), panic recovery, readiness after the
//! cache syncs, and graceful shutdown.
//!
//! The builder assembles the trigger streams itself (the object's watch, metadata-only watches of owned kinds,
//! mapped watches, the owner requests of child indexes) instead of using kube-runtime's `Controller`, so that every
//! reconcile request passes where the queue mirror can count it. It also runs the watches of the child indexes given
//! to [`ControllerBuilder::owns_indexed`] (child_index.rs) for as long as the controller runs: a controller is
//! one builder chain and a reconcile function, with no tasks of its own to drive. Its reconciles start once those
//! watches have listed (or failed), as controller-runtime's start once every watch's cache has synced.
//!
//! What follows a reconcile, by its outcome:
//! - `Ok(action)`: counted a success; the object's failure count is forgotten; `action` says when to reconcile it
//!   again without a change.
//! - an `Err` saying the API server cannot be reached: every reconcile waits for the server (outage.rs), nothing
//!   is charged to the object.
//! - an `Err` that is a 409 Conflict on a stale resourceVersion or precondition ("the object has been
//!   modified", e.g. `update_status` with the version read from the cache while something else wrote the
//!   object): an expected race, not a failure of the object. It is counted as a reconcile error
//!   (`controller_runtime_reconcile_errors_total` and `workqueue_retries_total`, as controller-runtime counts it)
//!   but logged at info, one line without a stack. When the cache already holds a newer version of the object
//!   than the one reconciled, the retry runs at once and is charged neither to the object's backoff nor to the
//!   overall bucket: it reads the version the write lost to, so it is fast and correct, and each such retry uses
//!   up a version the watch delivered, so these retries cannot outnumber the object's changes. Otherwise (the
//!   watch has not delivered the newer version yet, or the conflict was on another object the reconcile wrote)
//!   the retry waits for the object's backoff like any failure, so a conflict that never clears cannot hot-loop;
//!   the newer version's watch event, when it comes, reconciles the object at once anyway. From the
//!   [`PERSISTENT_CONFLICT`]th failure in a row a conflict is logged as an error: a conflict that lasts is a bug
//!   (a write whose resourceVersion is never refreshed), not a race. Server-side apply's field-ownership conflicts
//!   (409 Conflict with `FieldManagerConflict` causes) are not races: another manager owns the field and retrying
//!   changes nothing, so they stay reconciler errors.
//! - any other `Err`, or a panic: logged as an error, counted, and retried after the object's backoff (5 ms
//!   doubling per failure in a row, within an overall 10 qps bucket; backoff.rs).
//!
//! The reconciler's error type is its own: anything that converts into a [`crate::BoxError`] (a thiserror enum,
//! `anyhow::Error`, `kube::Error`). Outages and conflicts are told by the first `kube::Error` in its `source()`
//! chain (failure.rs), and errors are logged with their whole chain.

pub mod backoff;
pub mod panics;
pub mod predicate;
pub(crate) mod queue_mirror;
pub mod storage_migration;
pub mod worker;
pub mod workqueue;

use std::collections::HashMap;
use std::convert::Infallible;
use std::fmt::Debug;
use std::hash::Hash;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use futures::future::BoxFuture;
use futures::stream::{BoxStream, SelectAll};
use futures::{Stream, StreamExt, TryStreamExt};
use kube::Resource;
use kube::api::PartialObjectMeta;
use kube::runtime::controller::{self as kc, Action, ReconcileReason, ReconcileRequest};
use kube::runtime::reflector::{self, ObjectRef, Store};
use kube::runtime::utils::CancelableJoinHandle;
use kube::runtime::{WatchStreamExt, watcher};
use serde::de::DeserializeOwned;
use tracing::Instrument;

use crate::backoff::RateLimiter;
use crate::child_index::ChildIndex;
use crate::context::Context;
use crate::error::{BoxError, Error};
use crate::failure::{Failure, PERSISTENT_CONFLICT, ReconcileError};
use crate::metrics::{ControllerMetrics, Metrics, ReconcileResult};
use crate::queue_mirror::{QueueMirror, requeue_delay};
use crate::scope::KindScope;
use crate::scope_watch::{Events, watches};
use crate::shard::gate::{Gate, Verdict};
use predicate::{Predicate, filtered};

/// The reconcile requests of one controller, from all its watches.
type Triggers<K> = SelectAll<BoxStream<'static, Result<ReconcileRequest<K>, watcher::Error>>>;

/// An owned kind's watch, made once the controller knows whether it is sharded: the gate narrows its selector.
type OwnedWatch<K> = Box<
    dyn FnOnce(Option<&Gate>) -> BoxStream<'static, Result<ReconcileRequest<K>, watcher::Error>>
        + Send,
>;

/// A child index's watch, made as [`OwnedWatch`] is.
type IndexWatch = Box<dyn FnOnce(Option<&Gate>) -> BoxFuture<'static, ()> + Send>;

/// `config` narrowed to this replica's shard by `gate`; unchanged for a controller that is not sharded.
fn narrowed(gate: Option<&Gate>, config: watcher::Config) -> watcher::Config {
    match gate {
        Some(gate) => gate.narrowed(config),
        None => config,
    }
}

/// Entry point: `Controller::for_kind::<K>(&ctx)` starts a [`ControllerBuilder`] for kind K.
#[derive(Clone, Copy, Debug)]
pub struct Controller;

impl Controller {
    /// A controller reconciling every K in the manager's watch scope.
    pub fn for_kind<K>(ctx: &Context) -> ControllerBuilder<K>
    where
        K: Resource<DynamicType = ()> + Clone + DeserializeOwned + Debug + Send + Sync + 'static,
        K::Scope: KindScope,
    {
        ControllerBuilder::new(ctx, watcher::Config::default())
    }

    /// A controller reconciling the K selected by `config` (label/field selectors) in the manager's watch scope.
    pub fn for_kind_with<K>(ctx: &Context, config: watcher::Config) -> ControllerBuilder<K>
    where
        K: Resource<DynamicType = ()> + Clone + DeserializeOwned + Debug + Send + Sync + 'static,
        K::Scope: KindScope,
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
    /// What fills it; taken by `run`, which starts the object's watch.
    writer: reflector::store::Writer<K>,
    /// The object's watch's selectors; `run` narrows them to this replica's shard when the controller is sharded.
    own_config: watcher::Config,
    /// Which of the object's own events queue a reconcile (all without one).
    predicate: Option<Predicate<K>>,
    triggers: Triggers<K>,
    /// The watches of owned kinds (`owns`), made by `run` with the shard's selector when the controller is sharded.
    owned: Vec<OwnedWatch<K>>,
    /// The child indexes whose owner requests are among the triggers.
    indexes: Vec<ChildIndex>,
    /// Their watches, run beside the controller, made by `run` (narrowed to the shard as `owned` is).
    index_watches: Vec<IndexWatch>,
    concurrency: u16,
    rate_limiter: RateLimiter<ObjectRef<K>>,
    /// [`Self::sharded`] was called.
    sharded: bool,
}

impl<K> ControllerBuilder<K>
where
    K: Resource<DynamicType = ()> + Clone + DeserializeOwned + Debug + Send + Sync + 'static,
    K::Scope: KindScope,
{
    fn new(ctx: &Context, config: watcher::Config) -> Self {
        let name = K::kind(&()).to_ascii_lowercase();
        ctx.set_controller_name(&name);
        // /readyz waits for this controller's cache (marked ready once it syncs, in `run`).
        ctx.gate_readiness();
        let writer = reflector::store::Writer::<K>::default();
        let store = writer.as_reader();
        Self {
            ctx: ctx.clone(),
            name,
            store,
            writer,
            own_config: config,
            predicate: None,
            triggers: Triggers::<K>::new(),
            owned: Vec::new(),
            indexes: Vec::new(),
            index_watches: Vec::new(),
            concurrency: 1,
            rate_limiter: RateLimiter::default(),
            sharded: false,
        }
    }

    /// Reconciles the object only on the events of its own watch that `predicate` passes (controller-runtime's
    /// `For(obj, builder.WithPredicates(predicate))`; see [`predicate`](crate::predicate)). The cache still
    /// follows every event: a reconcile reads the latest object. Called again, both must pass.
    pub fn with_predicate(mut self, predicate: Predicate<K>) -> Self {
        self.predicate = Some(match self.predicate.take() {
            Some(before) => before.and(predicate),
            None => predicate,
        });
        self
    }

    /// Also reconciles the owner (controller reference) of each changed `C` in the watch scope. The watch is
    /// metadata-only: owner references are all it needs.
    pub fn owns<C>(self) -> Self
    where
        C: Resource<DynamicType = ()> + Clone + DeserializeOwned + Debug + Send + Sync + 'static,
        C::Scope: KindScope,
    {
        self.owns_where::<C>(None)
    }

    /// [`Self::owns`] for the changes of `C` that `predicate` passes (controller-runtime's
    /// `Owns(obj, builder.WithPredicates(predicate))`). The watch is metadata-only, so the predicate sees
    /// `PartialObjectMeta<C>`: `Predicate::generation_changed()` and the other built-in ones work as they are.
    pub fn owns_with<C>(self, predicate: Predicate<PartialObjectMeta<C>>) -> Self
    where
        C: Resource<DynamicType = ()> + Clone + DeserializeOwned + Debug + Send + Sync + 'static,
        C::Scope: KindScope,
    {
        self.owns_where::<C>(Some(predicate))
    }

    fn owns_where<C>(mut self, predicate: Option<Predicate<PartialObjectMeta<C>>>) -> Self
    where
        C: Resource<DynamicType = ()> + Clone + DeserializeOwned + Debug + Send + Sync + 'static,
        C::Scope: KindScope,
    {
        let ctx = self.ctx.clone();
        self.owned.push(Box::new(move |gate| {
            // An Api of PartialObjectMeta makes metadata-only requests.
            let config = narrowed(gate, watcher::Config::default());
            let children = watches::<PartialObjectMeta<C>>(&ctx, &config)
                .merged(|events| passed(events, predicate.as_ref()));
            kc::trigger_owners(children.touched_objects(), (), ()).boxed()
        }));
        self
    }

    /// Also reconciles the owner of each changed `C` that `config` selects (a label the controller sets on its
    /// children), through `index`: the controller runs the index's metadata-only watch of C beside itself, so its
    /// reconciles can skip the writes that would change nothing (child_index.rs), and counts the index's writes. It
    /// replaces `.owns::<C>()`: one watch per child kind, not two.
    pub fn owns_indexed<C>(mut self, index: &ChildIndex, config: watcher::Config) -> Self
    where
        C: Resource<DynamicType = ()> + Clone + DeserializeOwned + Debug + Send + 'static,
        C::Scope: KindScope,
    {
        if !self.indexes.iter().any(|known| known.ptr_eq(index)) {
            let owners = index.owner_requests::<K>().map(|owner| Ok(owner.into()));
            self.triggers.push(owners.boxed());
            self.indexes.push(index.clone());
        }
        let (index, ctx) = (index.clone(), self.ctx.clone());
        self.index_watches.push(Box::new(move |gate| {
            Box::pin(index.watch::<C>(ctx, narrowed(gate, config)))
        }));
        self
    }

    /// Also reconciles the K objects that `mapper` returns for each changed `O` in the watch scope.
    pub fn watches<O, I>(self, mapper: impl Fn(O) -> I + Send + Sync + 'static) -> Self
    where
        O: Resource<DynamicType = ()> + Clone + DeserializeOwned + Debug + Send + Sync + 'static,
        O::Scope: KindScope,
        I: IntoIterator<Item = ObjectRef<K>> + 'static,
        I::IntoIter: Send,
    {
        self.watches_where(None, mapper)
    }

    /// [`Self::watches`] for the changes of `O` that `predicate` passes (controller-runtime's
    /// `Watches(obj, handler, builder.WithPredicates(predicate))`).
    pub fn watches_with<O, I>(
        self,
        predicate: Predicate<O>,
        mapper: impl Fn(O) -> I + Send + Sync + 'static,
    ) -> Self
    where
        O: Resource<DynamicType = ()> + Clone + DeserializeOwned + Debug + Send + Sync + 'static,
        O::Scope: KindScope,
        I: IntoIterator<Item = ObjectRef<K>> + 'static,
        I::IntoIter: Send,
    {
        self.watches_where(Some(predicate), mapper)
    }

    fn watches_where<O, I>(
        mut self,
        predicate: Option<Predicate<O>>,
        mapper: impl Fn(O) -> I + Send + Sync + 'static,
    ) -> Self
    where
        O: Resource<DynamicType = ()> + Clone + DeserializeOwned + Debug + Send + Sync + 'static,
        O::Scope: KindScope,
        I: IntoIterator<Item = ObjectRef<K>> + 'static,
        I::IntoIter: Send,
    {
        let others = watches::<O>(&self.ctx, &watcher::Config::default())
            .merged(|events| passed(events, predicate.as_ref()))
            .touched_objects();
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

    /// Splits this controller's objects across the manager's replicas when the manager runs with `--sharded` (see
    /// the `shard` module): every replica reconciles the objects assigned to it, and caches only those (and their
    /// children). Without `--sharded` it changes nothing.
    pub fn sharded(mut self) -> Self {
        self.sharded = true;
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
    /// latest cached object; an `Err` is logged, counted and retried with backoff (an outage and a 409 Conflict
    /// apart: module docs); `Ok(action)` says when to reconcile again without a change (`Action::await_change()`
    /// or `Action::requeue(d)`).
    pub async fn run<F, Fut, E>(mut self, reconcile: F) -> Result<(), Error>
    where
        F: Fn(Arc<K>, Context) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<Action, E>> + Send + 'static,
        E: Into<BoxError> + Send + 'static,
    {
        // Without --sharded there is no member, and a sharded controller runs as any other.
        let gate = self
            .sharded
            .then(|| self.ctx.shard_member().cloned())
            .flatten()
            .map(Gate::new);
        let background = self.background(gate.as_ref());
        let own = self.own_requests(gate.as_ref());
        let Self {
            ctx,
            name,
            store,
            mut triggers,
            owned,
            indexes,
            concurrency,
            rate_limiter,
            ..
        } = self;
        for index in &indexes {
            index.count_as(ctx.metrics(), &name);
        }
        triggers.push(own);
        for watch in owned {
            triggers.push(watch(gate.as_ref()));
        }
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
            gate,
            indexes,
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
        // Each watch retries on its own (watch_retry.rs); at shutdown the requests end and running reconciles finish.
        let requests = triggers
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
        let main = async {
            tokio::select! {
                () = main => {}
                () = background => {}
            }
        };
        tracing::info!(controller = %name, "starting controller");
        // The readiness task ends when the cache syncs, or with the controller (the store's writer is dropped).
        let ((), ()) = futures::join!(main, ready);
        Ok(())
    }
}

impl<K> ControllerBuilder<K>
where
    K: Resource<DynamicType = ()> + Clone + DeserializeOwned + Debug + Send + Sync + 'static,
    K::Scope: KindScope,
{
    /// The object's own reconcile requests: its watch (narrowed to the shard by `gate`) through the cache and the
    /// predicate. A sharded controller also passes every event that asks for a drain, whatever the predicate says,
    /// and counts the objects its cache holds (`rkb_shard_objects`).
    fn own_requests(
        &mut self,
        gate: Option<&Gate>,
    ) -> BoxStream<'static, Result<ReconcileRequest<K>, watcher::Error>> {
        let writer = std::mem::take(&mut self.writer);
        let config = narrowed(gate, self.own_config.clone());
        // Nobody reconciles on managedFields (a few KiB per object, most of a small object's cache); a reconcile
        // that needs them GETs the object.
        let events = watches::<K>(&self.ctx, &config)
            .modify(|obj: &mut K| obj.meta_mut().managed_fields = None)
            .for_cache(self.store.clone());
        let mut events = without_status_echoes(
            reflector::reflector(writer, events).boxed(),
            self.indexes.clone(),
        );
        let mut predicate = self.predicate.take();
        if let Some(gate) = gate {
            let asks = gate.clone();
            let drains = Predicate::filter(move |obj: &K| asks.drain_requested(obj.meta()));
            predicate = predicate.map(|p| p.or(drains));
            events = counted(events, self.store.clone(), gate, self.ctx.metrics());
        }
        let own = passed(events, predicate.as_ref()).applied_objects();
        kc::trigger_self(own, ()).boxed()
    }

    /// What runs beside the reconciles: the child indexes' watches, and on the leader the sharder of a sharded
    /// controller. They end at shutdown; the controller ends once its reconciles have drained: it decides.
    fn background(&mut self, gate: Option<&Gate>) -> BoxFuture<'static, ()> {
        let watches: Vec<_> = self
            .index_watches
            .drain(..)
            .map(|watch| watch(gate))
            .collect();
        let sharder = gate.map(|gate| {
            crate::shard::sharder::run::<K>(
                self.ctx.clone(),
                gate.member().clone(),
                self.own_config.clone(),
            )
        });
        Box::pin(async move {
            let sharder = async {
                if let Some(sharder) = sharder {
                    sharder.await;
                }
            };
            futures::join!(futures::future::join_all(watches), sharder);
            std::future::pending::<()>().await
        })
    }
}

/// `events` without the echoes of the status writes of `indexes` (child_index.rs, "Echoes"): an object's event
/// that shows it exactly as an index's status write left it. Called after the reflector, so the cache holds them.
fn without_status_echoes<K>(events: Events<K>, indexes: Vec<ChildIndex>) -> Events<K>
where
    K: Resource<DynamicType = ()> + Send + 'static,
{
    if indexes.is_empty() {
        return events;
    }
    events
        .filter(move |event| {
            let echo = matches!(event, Ok(watcher::Event::Apply(obj))
                if indexes.iter().any(|index| index.is_status_echo(obj)));
            futures::future::ready(!echo)
        })
        .boxed()
}

/// `events`, with `rkb_shard_objects` following the number of objects `store` holds after each.
fn counted<K>(events: Events<K>, store: Store<K>, gate: &Gate, metrics: &Metrics) -> Events<K>
where
    K: Resource<DynamicType = ()> + Clone + Send + Sync + 'static,
{
    let (metrics, member) = (metrics.shard().clone(), gate.member().clone());
    let mut counted = 0_i64;
    events
        .inspect(move |_| {
            let now = i64::try_from(store.len()).unwrap_or(i64::MAX);
            metrics.add_objects(&member.ring, &member.identity, now - counted);
            counted = now;
        })
        .boxed()
}

/// `events` with the events `predicate` drops taken out; all of them without one.
fn passed<K>(events: Events<K>, predicate: Option<&Predicate<K>>) -> Events<K>
where
    K: Resource + Send + 'static,
{
    match predicate {
        Some(predicate) => filtered(events, predicate).boxed(),
        None => events,
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
    /// This replica's shard gate, for a sharded controller under --sharded.
    gate: Option<Gate>,
    /// The child indexes whose watches this controller runs: reconciles start once they have listed.
    indexes: Vec<ChildIndex>,
}

impl<K, F, Fut, E> Worker<K, F>
where
    K: Resource<DynamicType = ()> + Clone + DeserializeOwned + Debug + Send + Sync + 'static,
    K::Scope: KindScope,
    ObjectRef<K>: Hash + Eq,
    F: Fn(Arc<K>, Context) -> Fut + Send + Sync + 'static,
    Fut: Future<Output = Result<Action, E>> + Send + 'static,
    E: Into<BoxError> + Send + 'static,
{
    fn failing_uids(&self) -> std::sync::MutexGuard<'_, HashMap<ObjectRef<K>, Option<String>>> {
        self.failing_uids.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Counts one more failure of the object `key` names now (uid `uid`); returns the delay before its retry.
    fn failed(&self, key: ObjectRef<K>, uid: Option<String>) -> Duration {
        let delay = self.limiter.when(&key);
        self.failing_uids().insert(key, uid);
        delay
    }

    /// Drops what is remembered of `key`'s failures (after a success, or once the object is gone).
    fn forget(&self, key: &ObjectRef<K>) {
        self.limiter.forget(key);
        self.failing_uids().remove(key);
    }

    /// When to retry `key` after the conflict `error` (module docs): at once and uncharged when the cache already
    /// holds another version of the object than `version`, the one reconciled; otherwise after its backoff.
    fn conflicted(
        &self,
        key: ObjectRef<K>,
        version: Option<String>,
        uid: Option<String>,
        error: &ReconcileError,
    ) -> Action {
        const RETRYING: &str = "conflict: the object changed since it was read; reconciling again";
        let cached = self
            .store
            .get(&key)
            .and_then(|obj| obj.meta().resource_version.clone());
        // resourceVersions are opaque, but the cache only moves forward: another version there is newer. An object
        // gone from the cache is retried at once too, and that retry forgets it (`report`).
        if cached != version {
            tracing::info!(error = %error.chain(), "{RETRYING}");
            return Action::requeue(Duration::ZERO);
        }
        let in_a_row = self.limiter.num_requeues(&key) + 1;
        let delay = self.failed(key, uid);
        if in_a_row < PERSISTENT_CONFLICT {
            tracing::info!(error = %error.chain(), retry_in = ?delay, "{RETRYING}");
        } else {
            tracing::error!(
                error = %error.chain(),
                retry_in = ?delay,
                failures = in_a_row,
                "reconciler error: the conflict persists"
            );
        }
        Action::requeue(delay)
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
            // Watch errors are retried by each watch (watch_retry.rs); they are worth a warning only.
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
        // Nothing reconciles until the child indexes have listed (as controller-runtime's controllers start once
        // every watch's cache has synced): a reconcile before would decide on children not known yet, and the
        // index reconciles each listed child's owner again after its list (child_index.rs). While the API server
        // does not answer, nothing reconciles (outage.rs); at shutdown, nothing new starts.
        let listed = async {
            for index in &self.indexes {
                index.listed_all().await;
            }
            self.ctx.outage().wait().await;
        };
        tokio::select! {
            biased;
            () = listed => {}
            () = self.ctx.shutdown_signal() => return Action::await_change(),
        }
        // Leadership (for a sharded controller: this replica's shard term) is asked last: from here to the
        // reconciler nothing waits, so a reconcile that waited out an outage, or was frozen with its process, starts
        // only while this manager's term runs (leader.rs, shard/membership.rs).
        let may_run = match &self.gate {
            Some(gate) => {
                gate.member()
                    .wait_for_term(self.ctx.shutdown_receiver())
                    .await
            }
            None => self.ctx.wait_for_leadership().await,
        };
        if !may_run {
            return Action::await_change();
        }
        // A follower may have waited long for leadership: reconcile what the cache holds now.
        let Some(obj) = self.store.get(&key) else {
            self.forget(&key);
            self.queue.gone(&key);
            return Action::await_change();
        };
        if let Some(gate) = &self.gate {
            match gate.verdict(obj.meta()) {
                Verdict::Reconcile => {}
                Verdict::Refuse => {
                    self.queue.gone(&key);
                    return Action::await_change();
                }
                Verdict::Drain => return self.drain(gate, key, &obj).await,
            }
        }
        self.queue.taken(&key);
        let (action, failed) = self.run_reconciler(key.clone(), obj).await;
        self.queue.finished(&key);
        if let Some(delay) = requeue_delay(&action) {
            self.queue.requeued(&key, delay, failed);
        }
        action
    }

    /// Hands `obj` (key `key`) back to the sharder instead of reconciling it (shard/gate.rs). A conflict (the object
    /// changed since the cache showed it) runs again at once on the newer version; another failure after the
    /// object's backoff.
    async fn drain(&self, gate: &Gate, key: ObjectRef<K>, obj: &K) -> Action {
        let api: kube::Api<K> =
            <K::Scope as KindScope>::api(self.ctx.client(), obj.meta().namespace.as_deref());
        self.queue.taken(&key);
        let action = match gate.drain(&api, obj.meta()).await {
            Ok(()) => {
                self.forget(&key);
                let store = &self.store;
                gate.forget_released(|namespace, name| {
                    let mut cached = ObjectRef::<K>::new(name);
                    cached.namespace = namespace.map(String::from);
                    store.get(&cached).is_some()
                });
                Action::await_change()
            }
            Err(error) if crate::shard::changed_meanwhile(&error) => {
                Action::requeue(Duration::ZERO)
            }
            Err(error) => {
                let delay = self.failed(key.clone(), obj.meta().uid.clone());
                tracing::error!(controller = %self.name, %error, retry_in = ?delay, "cannot drain the object");
                Action::requeue(delay)
            }
        };
        self.queue.finished(&key);
        if let Some(delay) = requeue_delay(&action) {
            self.queue.requeued(&key, delay, false);
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
        // The version reconciled, to tell after a conflict whether the cache has seen a newer one.
        let version = obj.meta().resource_version.clone();
        let recording = self.metrics.reconcile();
        span.in_scope(|| tracing::debug!("reconcile started"));
        let run = (self.reconcile)(obj.clone(), self.ctx.clone()).instrument(span.clone());
        let outcome = match &self.gate {
            // The children it applies take the object's shard label (shard/mod.rs).
            Some(_) => {
                let run = crate::shard::labelling_children::<K, _>(obj.meta(), run);
                crate::panics::catch(run).await
            }
            None => crate::panics::catch(run).await,
        };
        let _entered = span.enter();
        let error = match outcome {
            Ok(Ok(action)) => {
                self.forget(&key);
                let result = if action == Action::await_change() {
                    ReconcileResult::Success
                } else {
                    ReconcileResult::RequeueAfter
                };
                recording.finish(result);
                tracing::debug!(?action, "reconciled");
                return (action, false);
            }
            Ok(Err(error)) => ReconcileError::new(error),
            Err(panic) => {
                recording.panicked();
                let delay = self.failed(key, uid);
                tracing::error!(panic = %panic, retry_in = ?delay, "reconciler panicked");
                return (Action::requeue(delay), true);
            }
        };
        recording.finish(ReconcileResult::Error);
        let action = match error.failure() {
            Failure::Outage => {
                // Not the object's failure: no backoff charged; the retry waits for the server (outage.rs).
                let (client, shutdown) = (self.ctx.client(), self.ctx.shutdown_receiver());
                self.ctx.outage().begin(&client, shutdown);
                tracing::debug!(error = %error.chain(), "reconcile failed: the API server does not answer");
                Action::requeue(crate::outage::RETRY_AFTER)
            }
            Failure::RaceConflict => self.conflicted(key, version, uid, &error),
            Failure::Object => {
                let delay = self.failed(key, uid);
                tracing::error!(error = %error.chain(), retry_in = ?delay, "reconciler error");
                Action::requeue(delay)
            }
        };
        (action, true)
    }
}
