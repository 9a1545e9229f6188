//! Informers: a watch of one kind kept in a local cache (kube-runtime's watcher and reflector
//! store), with client-go's add/update/delete handlers, resync and `has_synced`.
//!
//! The watcher reconnects on its own when the watch breaks or the API server restarts: it resumes
//! from the last resourceVersion, or relists when that is too old (410). A relist is diffed
//! against the cache so handlers still see adds, updates and deletes.
//!
//! How it waits between attempts depends on whether the informer runs under a manager:
//! - by default, on kube-runtime's default backoff (`WatchStreamExt::default_backoff`: 0.8 s
//!   doubling to 30 s, one schedule per informer), with a warning per failed attempt;
//! - built with the manager's [`Context`]
//!   ([`SharedInformerFactoryBuilder::retry_with_manager`], [`Informer::retry_with_manager`]), the
//!   way the manager's controllers and child index retry (see [`crate::outage`]): a failure to
//!   reach the API server (no connection, a transport error) marks it down, which starts the
//!   manager's one outage prober, and the informer then sends nothing until that prober gets an
//!   answer. It resumes within one [`PROBE_INTERVAL`](crate::outage::PROBE_INTERVAL) of the server
//!   answering, with one warning per outage instead of one per attempt. A 410 Gone relists at once
//!   without a warning; other errors (403, a 5xx from a server that answers) still wait on the
//!   default backoff and are logged each time.
//!
//! ```no_run
//! # use k8s_openapi::api::core::v1::ConfigMap;
//! # use rkb_runtime::informer::SharedInformerFactory;
//! async fn controller(ctx: rkb_runtime::Context) -> Result<(), rkb_runtime::Error> {
//!     let factory = SharedInformerFactory::builder(ctx.client())
//!         .retry_with_manager(&ctx)
//!         .build();
//!     let config_maps = factory.informer::<ConfigMap>().lister();
//!     factory.start();
//!     factory.wait_for_cache_sync().await;
//!     tracing::info!(cached = config_maps.list_all().len(), "config maps synced");
//!     ctx.shutdown_signal().await;
//!     factory.shutdown().await;
//!     Ok(())
//! }
//! ```
//!
//! The context is the one a controller function receives, or
//! [`Manager::context`](crate::Manager::context) for informers started outside a controller. The
//! option ties only the retries to the manager: the informer still starts and stops when its
//! owner says, not with the manager. Once the manager has shut down there is no prober to wait
//! for, and an informer that outlives it retries on the default backoff again.

mod factory;
mod handler;
pub(crate) mod initial_list;
pub(crate) mod scope_watch;
pub(crate) mod watch_retry;

use std::collections::HashMap;
use std::fmt::Debug;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use futures::StreamExt;
use kube::runtime::WatchStreamExt;
use kube::runtime::reflector::{self, ObjectRef, Store};
use kube::runtime::watcher::{self, Event};
use kube::{Api, Resource};
use serde::de::DeserializeOwned;
use tokio::sync::watch;
use tokio::task::JoinHandle;

use crate::Context;
use crate::lister::Lister;

pub use factory::{SharedInformerFactory, SharedInformerFactoryBuilder};
pub use handler::{EventHandler, HandlerFuncs, HandlerRegistration};
use handler::{Listener, Notification, spawn_listener};

/// What an informer needs of a kind.
pub trait InformerKind:
    Resource<DynamicType = ()> + Clone + DeserializeOwned + Debug + Send + Sync + 'static
{
}
impl<K> InformerKind for K where
    K: Resource<DynamicType = ()> + Clone + DeserializeOwned + Debug + Send + Sync + 'static
{
}

/// A cached watch of one kind. Cheap to clone; clones share the cache and the watch.
pub struct Informer<K: InformerKind> {
    shared: Arc<Shared<K>>,
}

impl<K: InformerKind> Clone for Informer<K> {
    fn clone(&self) -> Self {
        Informer {
            shared: self.shared.clone(),
        }
    }
}

struct Shared<K: InformerKind> {
    api: Api<K>,
    config: watcher::Config,
    resync: Option<Duration>,
    store: Store<K>,
    /// Taken by the task that runs the watch; `None` once started.
    writer: Mutex<Option<reflector::store::Writer<K>>>,
    /// Held while the cache changes and events are queued, so a handler added concurrently gets
    /// either the object in its synthetic initial adds or the event, never both or neither.
    listeners: Mutex<Vec<Listener<K>>>,
    next_id: AtomicU64,
    synced: watch::Sender<bool>,
    stop: watch::Sender<bool>,
    task: Mutex<Option<JoinHandle<()>>>,
    stopped: AtomicBool,
    /// Drop `metadata.managedFields` before caching (controller-runtime's
    /// `TransformStripManagedFields`): it is most of a small object's memory and few read it.
    strip_managed_fields: AtomicBool,
    /// The manager whose outage prober the watch waits for; `None`: kube-runtime's default backoff.
    manager: Mutex<Option<Context>>,
}

impl<K: InformerKind> Informer<K> {
    /// An informer over `api` (which fixes the namespace), listing and watching with `config`
    /// (label and field selectors, page size). `resync`, when set, replays every cached object
    /// to the handlers as an update with old == new at that period.
    pub fn new(api: Api<K>, config: watcher::Config, resync: Option<Duration>) -> Self {
        let writer = reflector::store::Writer::<K>::default();
        let store = writer.as_reader();
        Informer {
            shared: Arc::new(Shared {
                api,
                config,
                resync: resync.filter(|d| !d.is_zero()),
                store,
                writer: Mutex::new(Some(writer)),
                listeners: Mutex::new(Vec::new()),
                next_id: AtomicU64::new(0),
                synced: watch::channel(false).0,
                stop: watch::channel(false).0,
                task: Mutex::new(None),
                stopped: AtomicBool::new(false),
                strip_managed_fields: AtomicBool::new(false),
                manager: Mutex::new(None),
            }),
        }
    }

    /// Registers a handler. Added to a running informer, it first gets an add for every cached
    /// object (`is_in_initial_list = true`). Needs a Tokio runtime.
    pub fn add_event_handler(&self, handler: impl EventHandler<K>) -> HandlerRegistration {
        let id = self.shared.next_id.fetch_add(1, Ordering::Relaxed);
        let (listener, synced) = spawn_listener(id, handler);
        let mut listeners = lock(&self.shared.listeners);
        if self.has_synced() {
            for obj in self.shared.store.state() {
                listener.send(Notification::Add(obj, true));
            }
            listener.send(Notification::Synced);
        }
        listeners.push(listener);
        HandlerRegistration { id, synced }
    }

    /// Unregisters a handler; it gets no further events (queued ones are still delivered).
    pub fn remove_event_handler(&self, registration: &HandlerRegistration) {
        lock(&self.shared.listeners).retain(|l| l.id != registration.id);
    }

    /// Drops `metadata.managedFields` from cached objects (and so from what handlers and listers
    /// see), which roughly halves the memory of small objects. Set it before [`start`](Self::start).
    pub fn strip_managed_fields(self) -> Self {
        self.shared
            .strip_managed_fields
            .store(true, Ordering::Release);
        self
    }

    /// Retries the watch the way the manager of `ctx` retries its controllers' watches: through an
    /// API server outage it waits for the manager's outage prober instead of its own backoff (see
    /// the [module docs](self)). Set it before [`start`](Self::start); without it the watch keeps
    /// kube-runtime's default backoff.
    pub fn retry_with_manager(self, ctx: &Context) -> Self {
        *lock(&self.shared.manager) = Some(ctx.clone());
        self
    }

    /// Whether `self` and `other` are the same informer (one watch, one cache).
    pub fn ptr_eq(&self, other: &Self) -> bool {
        Arc::ptr_eq(&self.shared, &other.shared)
    }

    /// A lister over this informer's cache.
    pub fn lister(&self) -> Lister<K> {
        Lister::new(self.shared.store.clone())
    }

    /// The reflector store behind the cache.
    pub fn store(&self) -> Store<K> {
        self.shared.store.clone()
    }

    /// True once the first full list is in the cache and queued to the handlers.
    pub fn has_synced(&self) -> bool {
        *self.shared.synced.borrow()
    }

    /// Waits until [`has_synced`](Self::has_synced); returns false if the informer stopped first.
    pub async fn wait_for_sync(&self) -> bool {
        let mut rx = self.shared.synced.subscribe();
        let mut stop = self.shared.stop.subscribe();
        tokio::select! {
            r = rx.wait_for(|s| *s) => r.is_ok(),
            _ = stop.wait_for(|s| *s) => self.has_synced(),
        }
    }

    /// Starts the watch on a Tokio task. Idempotent; a stopped informer does not start again.
    pub fn start(&self) {
        if self.shared.stopped.load(Ordering::Acquire) {
            return;
        }
        let Some(writer) = lock(&self.shared.writer).take() else {
            return;
        };
        let shared = self.shared.clone();
        let handle = tokio::spawn(async move { shared.run(writer).await });
        *lock(&self.shared.task) = Some(handle);
    }

    /// Whether [`start`](Self::start) has been called (and [`stop`](Self::stop) has not).
    pub fn is_running(&self) -> bool {
        lock(&self.shared.task).is_some()
    }

    /// Stops the watch and waits for its task to end. Handlers get no more events.
    pub async fn stop(&self) {
        self.shared.stopped.store(true, Ordering::Release);
        self.shared.stop.send_replace(true);
        let task = lock(&self.shared.task).take();
        if let Some(task) = task {
            let _ = task.await;
        }
        lock(&self.shared.listeners).clear();
    }
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    // A handler cannot panic while we hold these locks (handlers run on their own tasks), so a
    // poisoned lock only means a panic in our own short critical section: the data is still whole.
    m.lock().unwrap_or_else(|e| e.into_inner())
}

impl<K: InformerKind> Shared<K> {
    async fn run(self: Arc<Self>, mut writer: reflector::store::Writer<K>) {
        let watch = watcher::watcher(self.api.clone(), self.config.clone());
        let manager = lock(&self.manager).clone();
        let mut events = match manager {
            Some(ctx) => crate::watch_retry::retrying(watch, &ctx).boxed(),
            None => watch.default_backoff().boxed(),
        };
        let mut stop = self.stop.subscribe();
        let mut resync = self.resync.map(|period| {
            let mut i = tokio::time::interval_at(tokio::time::Instant::now() + period, period);
            i.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
            i
        });
        loop {
            tokio::select! {
                _ = stop.wait_for(|s| *s) => break,
                _ = async { resync.as_mut().expect("guarded").tick().await }, if resync.is_some() => {
                    self.resync();
                }
                event = events.next() => match event {
                    Some(Ok(event)) => self.process(&mut writer, event),
                    // The stream retries (after its backoff, or once the manager's prober gets an
                    // answer); the error is only worth a log line.
                    Some(Err(err)) => tracing::warn!(
                        kind = %K::kind(&()), error = %err, "informer watch failed; retrying"
                    ),
                    None => break,
                },
            }
        }
    }

    fn process(&self, writer: &mut reflector::store::Writer<K>, mut event: Event<K>) {
        if self.strip_managed_fields.load(Ordering::Acquire) {
            match &mut event {
                Event::Apply(o) | Event::Delete(o) | Event::InitApply(o) => {
                    o.meta_mut().managed_fields = None
                }
                Event::Init | Event::InitDone => {}
            }
        }
        let listeners = lock(&self.listeners);
        let notify = |n: &dyn Fn() -> Notification<K>| {
            for l in listeners.iter() {
                l.send(n());
            }
        };
        match &event {
            Event::Apply(obj) => {
                let key = ObjectRef::from_obj(obj);
                let old = self.store.get(&key);
                writer.apply_watcher_event(&event);
                let new = self.store.get(&key).expect("just inserted");
                match old {
                    Some(old) => notify(&|| Notification::Update(old.clone(), new.clone())),
                    None => notify(&|| Notification::Add(new.clone(), false)),
                }
            }
            Event::Delete(obj) => {
                writer.apply_watcher_event(&event);
                let last = Arc::new(obj.clone());
                notify(&|| Notification::Delete(last.clone()));
            }
            Event::Init | Event::InitApply(_) => writer.apply_watcher_event(&event),
            Event::InitDone => {
                let mut before: HashMap<ObjectRef<K>, Arc<K>> = self
                    .store
                    .state()
                    .into_iter()
                    .map(|o| (ObjectRef::from_obj(&*o), o))
                    .collect();
                writer.apply_watcher_event(&event);
                let initial = !*self.synced.borrow();
                for new in self.store.state() {
                    match before.remove(&ObjectRef::from_obj(&*new)) {
                        None => notify(&|| Notification::Add(new.clone(), initial)),
                        Some(old) => {
                            // A relist returns every object; only real changes are updates.
                            if old.meta().resource_version != new.meta().resource_version {
                                notify(&|| Notification::Update(old.clone(), new.clone()));
                            }
                        }
                    }
                }
                // Gone while we were not watching: client-go's DeletedFinalStateUnknown.
                for (_, old) in before {
                    notify(&|| Notification::Delete(old.clone()));
                }
                if initial {
                    notify(&|| Notification::Synced);
                    self.synced.send_replace(true);
                }
            }
        }
    }

    fn resync(&self) {
        let listeners = lock(&self.listeners);
        for obj in self.store.state() {
            for l in listeners.iter() {
                l.send(Notification::Update(obj.clone(), obj.clone()));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    //! The relist diff, fed synthetic watcher events: no API server can be made to answer a resumed
    //! watch with 410 on demand, so this is where that path is pinned down.

    use super::*;
    use k8s_openapi::api::core::v1::ConfigMap;
    use kube::api::ObjectMeta;
    use tokio::sync::mpsc;

    fn cm(name: &str, resource_version: &str) -> ConfigMap {
        ConfigMap {
            metadata: ObjectMeta {
                name: Some(name.into()),
                namespace: Some("t".into()),
                resource_version: Some(resource_version.into()),
                ..ObjectMeta::default()
            },
            ..ConfigMap::default()
        }
    }

    fn name(c: &ConfigMap) -> &str {
        c.metadata.name.as_deref().unwrap()
    }

    /// An informer whose API server is never contacted: events are fed to `process` directly.
    fn offline_informer() -> Informer<ConfigMap> {
        let config = kube::Config::new("http://127.0.0.1:9".parse().unwrap());
        let client = kube::Client::try_from(config).unwrap();
        Informer::new(
            Api::namespaced(client, "t"),
            watcher::Config::default(),
            None,
        )
    }

    #[tokio::test]
    async fn a_relist_becomes_adds_updates_and_deletes_of_what_changed() {
        let informer = offline_informer();
        let (tx, mut rx) = mpsc::unbounded_channel::<String>();
        let (t1, t2, t3) = (tx.clone(), tx.clone(), tx);
        informer.add_event_handler(
            HandlerFuncs::new()
                .on_add(move |c: &Arc<ConfigMap>, initial| {
                    let _ = t1.send(format!("add {} initial={initial}", name(c)));
                })
                .on_update(move |old: &Arc<ConfigMap>, new: &Arc<ConfigMap>| {
                    let rv = |c: &ConfigMap| c.metadata.resource_version.clone().unwrap();
                    let _ = t2.send(format!("update {} {}->{}", name(new), rv(old), rv(new)));
                })
                .on_delete(move |c: &Arc<ConfigMap>| {
                    let _ = t3.send(format!("delete {}", name(c)));
                }),
        );
        let shared = &informer.shared;
        let mut writer = lock(&shared.writer).take().unwrap();
        let mut list = |objects: &[ConfigMap]| {
            shared.process(&mut writer, Event::Init);
            for o in objects {
                shared.process(&mut writer, Event::InitApply(o.clone()));
            }
            shared.process(&mut writer, Event::InitDone);
        };

        list(&[cm("a", "1"), cm("b", "1"), cm("c", "1")]);
        assert!(informer.has_synced());
        // After a broken watch: a changed, b unchanged, c gone, d new.
        list(&[cm("a", "2"), cm("b", "1"), cm("d", "3")]);

        let mut got = Vec::new();
        while let Ok(Some(e)) = tokio::time::timeout(Duration::from_millis(200), rx.recv()).await {
            got.push(e);
        }
        let (initial, relist) = got.split_at(3.min(got.len()));
        let mut initial = initial.to_vec();
        initial.sort();
        assert_eq!(
            initial,
            [
                "add a initial=true",
                "add b initial=true",
                "add c initial=true"
            ],
            "{got:?}"
        );
        let mut relist = relist.to_vec();
        relist.sort();
        assert_eq!(
            relist,
            ["add d initial=false", "delete c", "update a 1->2"],
            "{got:?}"
        );
        let lister = informer.lister();
        let mut cached: Vec<String> = lister
            .list_all()
            .iter()
            .map(|c| name(c).to_string())
            .collect();
        cached.sort();
        assert_eq!(cached, ["a", "b", "d"]);
    }

    #[tokio::test]
    async fn a_removed_handler_gets_no_further_events() {
        let informer = offline_informer();
        let (tx, mut rx) = mpsc::unbounded_channel::<&'static str>();
        let (kept, removed) = (tx.clone(), tx);
        informer.add_event_handler(HandlerFuncs::new().on_add(move |_: &Arc<ConfigMap>, _| {
            let _ = kept.send("kept");
        }));
        let registration =
            informer.add_event_handler(HandlerFuncs::new().on_add(move |_: &Arc<ConfigMap>, _| {
                let _ = removed.send("removed");
            }));
        informer.remove_event_handler(&registration);
        let mut writer = lock(&informer.shared.writer).take().unwrap();
        informer
            .shared
            .process(&mut writer, Event::Apply(cm("a", "1")));
        let mut got = Vec::new();
        while let Ok(Some(e)) = tokio::time::timeout(Duration::from_millis(200), rx.recv()).await {
            got.push(e);
        }
        assert_eq!(got, ["kept"]);
    }
}
