//! The shared informer factory: one watch per kind, shared by every caller that asks for it
//! (client-go's SharedInformerFactory).

use std::any::{Any, TypeId};
use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use futures::future::{BoxFuture, join_all};
use kube::Client;
use kube::runtime::watcher;

use super::{Informer, InformerKind, lock};
use crate::Context;
use crate::client::{KindScope, scoped_api};

type Tweak = Arc<dyn Fn(watcher::Config) -> watcher::Config + Send + Sync>;

/// Hands out one [`Informer`] per kind and starts, syncs and stops them together.
#[derive(Clone)]
pub struct SharedInformerFactory {
    inner: Arc<Inner>,
}

struct Inner {
    client: Client,
    namespace: Option<String>,
    tweak: Option<Tweak>,
    resync: Option<Duration>,
    strip_managed_fields: bool,
    manager: Option<Context>,
    informers: Mutex<HashMap<TypeId, Entry>>,
    shut_down: Mutex<bool>,
}

struct Entry {
    typed: Box<dyn Any + Send + Sync>,
    erased: Box<dyn Erased>,
}

/// What the factory does with an informer without knowing its kind.
trait Erased: Send + Sync {
    fn start(&self);
    fn has_synced(&self) -> bool;
    fn wait_for_sync(&self) -> BoxFuture<'static, bool>;
    fn stop(&self) -> BoxFuture<'static, ()>;
}

impl<K: InformerKind> Erased for Informer<K> {
    fn start(&self) {
        Informer::start(self)
    }
    fn has_synced(&self) -> bool {
        Informer::has_synced(self)
    }
    fn wait_for_sync(&self) -> BoxFuture<'static, bool> {
        let me = self.clone();
        Box::pin(async move { me.wait_for_sync().await })
    }
    fn stop(&self) -> BoxFuture<'static, ()> {
        let me = self.clone();
        Box::pin(async move { me.stop().await })
    }
}

/// Options of a [`SharedInformerFactory`].
pub struct SharedInformerFactoryBuilder {
    client: Client,
    namespace: Option<String>,
    tweak: Option<Tweak>,
    resync: Option<Duration>,
    strip_managed_fields: bool,
    manager: Option<Context>,
}

impl SharedInformerFactoryBuilder {
    /// Watch only this namespace (cluster-scoped kinds ignore it).
    pub fn namespace(mut self, namespace: impl Into<String>) -> Self {
        self.namespace = Some(namespace.into());
        self
    }

    /// Adjust the list/watch options of every informer (label or field selector, page size).
    pub fn tweak_list_options(
        mut self,
        tweak: impl Fn(watcher::Config) -> watcher::Config + Send + Sync + 'static,
    ) -> Self {
        self.tweak = Some(Arc::new(tweak));
        self
    }

    /// Default resync period of every informer; none by default.
    pub fn resync(mut self, period: Duration) -> Self {
        self.resync = Some(period);
        self
    }

    /// Cache objects without `metadata.managedFields` (see [`Informer::strip_managed_fields`]).
    pub fn strip_managed_fields(mut self) -> Self {
        self.strip_managed_fields = true;
        self
    }

    /// Every informer retries its watch the way the manager of `ctx` retries its controllers'
    /// watches: through an API server outage it waits for the manager's outage prober instead of
    /// its own backoff (see [`Informer::retry_with_manager`] and the
    /// [module docs](crate::informer)). Without it, kube-runtime's default backoff.
    pub fn retry_with_manager(mut self, ctx: &Context) -> Self {
        self.manager = Some(ctx.clone());
        self
    }

    /// The factory.
    pub fn build(self) -> SharedInformerFactory {
        SharedInformerFactory {
            inner: Arc::new(Inner {
                client: self.client,
                namespace: self.namespace,
                tweak: self.tweak,
                resync: self.resync,
                strip_managed_fields: self.strip_managed_fields,
                manager: self.manager,
                informers: Mutex::new(HashMap::new()),
                shut_down: Mutex::new(false),
            }),
        }
    }
}

impl SharedInformerFactory {
    /// A factory watching all namespaces, without resync.
    pub fn new(client: Client) -> Self {
        Self::builder(client).build()
    }

    /// A factory with options.
    pub fn builder(client: Client) -> SharedInformerFactoryBuilder {
        SharedInformerFactoryBuilder {
            client,
            namespace: None,
            tweak: None,
            resync: None,
            strip_managed_fields: false,
            manager: None,
        }
    }

    /// The informer for `K`: created on first request, the same one afterwards. It runs once
    /// [`start`](Self::start) is called (again) after the request.
    pub fn informer<K>(&self) -> Informer<K>
    where
        K: InformerKind,
        K::Scope: KindScope,
    {
        let mut informers = lock(&self.inner.informers);
        let entry = informers.entry(TypeId::of::<K>()).or_insert_with(|| {
            let api = scoped_api::<K>(self.inner.client.clone(), self.inner.namespace.as_deref());
            let config = watcher::Config::default();
            let config = match &self.inner.tweak {
                Some(tweak) => tweak(config),
                None => config,
            };
            let mut informer = Informer::<K>::new(api, config, self.inner.resync);
            if self.inner.strip_managed_fields {
                informer = informer.strip_managed_fields();
            }
            if let Some(ctx) = &self.inner.manager {
                informer = informer.retry_with_manager(ctx);
            }
            Entry {
                typed: Box::new(informer.clone()),
                erased: Box::new(informer),
            }
        });
        entry
            .typed
            .downcast_ref::<Informer<K>>()
            .expect("entries are keyed by their TypeId")
            .clone()
    }

    /// Starts every informer requested so far that is not running. Needs a Tokio runtime.
    pub fn start(&self) {
        if *lock(&self.inner.shut_down) {
            return;
        }
        for entry in lock(&self.inner.informers).values() {
            entry.erased.start();
        }
    }

    /// Whether every informer requested so far has synced.
    pub fn has_synced(&self) -> bool {
        lock(&self.inner.informers)
            .values()
            .all(|e| e.erased.has_synced())
    }

    /// Waits until every started informer has synced; false if one stopped before syncing.
    /// Bound it with `tokio::time::timeout`.
    pub async fn wait_for_cache_sync(&self) -> bool {
        let waits: Vec<_> = lock(&self.inner.informers)
            .values()
            .map(|e| e.erased.wait_for_sync())
            .collect();
        join_all(waits).await.into_iter().all(|ok| ok)
    }

    /// Stops every informer and waits for their tasks; the factory starts nothing afterwards.
    pub async fn shutdown(&self) {
        *lock(&self.inner.shut_down) = true;
        let stops: Vec<_> = lock(&self.inner.informers)
            .values()
            .map(|e| e.erased.stop())
            .collect();
        join_all(stops).await;
    }
}
