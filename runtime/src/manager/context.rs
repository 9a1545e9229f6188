//! What every controller function receives: the client, the watch scope, metrics, events, and the manager's
//! leadership and shutdown signals.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

use kube::runtime::events::{Event, EventType, Recorder, Reporter};
use kube::{Api, Client, Resource};
use tokio::sync::watch;

use crate::leader::wait_true;
use crate::metrics::Metrics;
use crate::scope::KindScope;

/// Handed to each controller added to a manager (and on to its reconcile function). Cheap to clone.
#[derive(Clone)]
pub struct Context {
    shared: Arc<Shared>,
    ready: Option<Arc<ReadySlot>>,
}

pub(crate) struct Shared {
    pub(crate) client: Client,
    pub(crate) name: String,
    /// The watched namespaces; empty for all (options.rs: WATCH_NAMESPACE).
    pub(crate) namespaces: Vec<String>,
    pub(crate) metrics: Metrics,
    pub(crate) leader: watch::Receiver<crate::leader::Term>,
    pub(crate) shutdown: watch::Receiver<bool>,
    pub(crate) readiness: Readiness,
    pub(crate) recorder: Recorder,
    /// Whether the API server answers (see outage.rs), shared by the manager's controllers.
    pub(crate) outage: crate::outage::Outage,
    /// Whether watches ask for streaming lists, or list (told so, or the API server refused or stalled one:
    /// initial_list.rs); shared by the manager's watches.
    pub(crate) streaming_lists: Arc<crate::initial_list::StreamingLists>,
    /// This replica's membership of the shard ring under --sharded (shard/membership.rs); None without it.
    pub(crate) shard: Option<Arc<crate::shard::membership::Member>>,
}

impl std::fmt::Debug for Context {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Context")
            .field("manager", &self.shared.name)
            .field("namespaces", &self.shared.namespaces)
            .finish_non_exhaustive()
    }
}

impl Context {
    /// A context whose controller must report readiness before /readyz succeeds.
    pub(crate) fn for_controller(shared: Arc<Shared>) -> Self {
        let ready = Some(shared.readiness.slot());
        Self { shared, ready }
    }

    /// A context that takes no part in readiness.
    pub(crate) fn detached(shared: Arc<Shared>) -> Self {
        Self {
            shared,
            ready: None,
        }
    }

    /// The manager's view of the API server's availability (outage.rs).
    pub(crate) fn outage(&self) -> &crate::outage::Outage {
        &self.shared.outage
    }

    /// What the manager's watches know of the API server's streaming lists (initial_list.rs).
    pub(crate) fn streaming_lists(&self) -> Arc<crate::initial_list::StreamingLists> {
        self.shared.streaming_lists.clone()
    }

    /// This replica's membership of the shard ring when the manager runs with --sharded.
    pub(crate) fn shard_member(&self) -> Option<&Arc<crate::shard::membership::Member>> {
        self.shared.shard.as_ref()
    }

    /// A receiver of the manager's shutdown flag.
    pub(crate) fn shutdown_receiver(&self) -> watch::Receiver<bool> {
        self.shared.shutdown.clone()
    }

    /// The Kubernetes client.
    pub fn client(&self) -> Client {
        self.shared.client.clone()
    }

    /// The manager's name; also the field manager for server-side apply and the events' reporting controller.
    pub fn name(&self) -> &str {
        &self.shared.name
    }

    /// The field manager for server-side apply.
    pub fn field_manager(&self) -> &str {
        &self.shared.name
    }

    /// The namespace watched when there is exactly one (--namespaced with WATCH_NAMESPACE naming one); None when
    /// all namespaces are watched, or several ([`Context::namespaces`]).
    pub fn namespace(&self) -> Option<&str> {
        match self.shared.namespaces.as_slice() {
            [only] => Some(only),
            _ => None,
        }
    }

    /// The namespaces watched (WATCH_NAMESPACE's list under --namespaced), in the order listed; empty when all
    /// namespaces are.
    pub fn namespaces(&self) -> &[String] {
        &self.shared.namespaces
    }

    /// An Api for K within the watch scope: the watched namespace for namespaced kinds under --namespaced with one
    /// namespace, all objects otherwise (list/watch only for namespaced kinds; use [`Context::api_in`] to write).
    /// With several watched namespaces it spans all of them, which needs cluster-wide rights to list or watch:
    /// [`Context::apis`] gives one Api per watched namespace.
    pub fn api<K>(&self) -> Api<K>
    where
        K: Resource<DynamicType = ()>,
        K::Scope: KindScope,
    {
        <K::Scope as KindScope>::api(self.client(), self.namespace())
    }

    /// The Apis that cover K's watch scope: one per watched namespace for a namespaced kind under --namespaced,
    /// otherwise the one cluster-wide Api. The manager's controllers watch through these.
    pub fn apis<K>(&self) -> Vec<Api<K>>
    where
        K: Resource<DynamicType = ()>,
        K::Scope: KindScope,
    {
        if self.shared.namespaces.is_empty() || !<K::Scope as KindScope>::NAMESPACED {
            return vec![<K::Scope as KindScope>::api(self.client(), None)];
        }
        self.shared
            .namespaces
            .iter()
            .map(|ns| <K::Scope as KindScope>::api(self.client(), Some(ns)))
            .collect()
    }

    /// An Api for namespaced K in `namespace`.
    pub fn api_in<K>(&self, namespace: &str) -> Api<K>
    where
        K: Resource<DynamicType = (), Scope = kube::core::NamespaceResourceScope>,
    {
        Api::namespaced(self.client(), namespace)
    }

    /// The manager's metrics; register an operator's own metrics here to have them served on /metrics.
    pub fn metrics(&self) -> &Metrics {
        &self.shared.metrics
    }

    /// The events recorder (events.k8s.io/v1), reporting as the manager's name and this pod.
    pub fn recorder(&self) -> Recorder {
        self.shared.recorder.clone()
    }

    /// Publishes an event about `obj`. Failures are logged, not returned: events are best effort.
    pub async fn publish_event<K>(
        &self,
        obj: &K,
        type_: EventType,
        reason: &str,
        action: &str,
        note: Option<String>,
    ) where
        K: Resource<DynamicType = ()>,
    {
        let event = Event {
            type_,
            reason: reason.to_string(),
            note,
            action: action.to_string(),
            secondary: None,
        };
        if let Err(e) = self
            .shared
            .recorder
            .publish(&event, &obj.object_ref(&()))
            .await
        {
            tracing::warn!(reason, error = %e, "cannot publish event");
        }
    }

    /// Whether this manager currently leads (always true without --leader-elect): it holds the lease and its
    /// term has not run out on the clock (see [`crate::leader::Term`]).
    pub fn is_leader(&self) -> bool {
        self.shared
            .leader
            .borrow()
            .leads_at(std::time::Instant::now())
    }

    /// Waits until this manager leads; false if the manager shuts down first.
    pub async fn wait_for_leadership(&self) -> bool {
        let mut leader = self.shared.leader.clone();
        let mut shutdown = self.shared.shutdown.clone();
        if *shutdown.borrow() {
            return false;
        }
        tokio::select! {
            biased;
            _ = wait_true(&mut shutdown) => false,
            // A term run out (the process was frozen) waits for the election task's next word: renewed or lost.
            r = leader.wait_for(|term| term.leads_at(std::time::Instant::now())) => r.is_ok(),
        }
    }

    /// Whether graceful shutdown has begun.
    pub fn is_shutting_down(&self) -> bool {
        *self.shared.shutdown.borrow()
    }

    /// Resolves when graceful shutdown begins: stop taking new work, finish what is in flight.
    pub fn shutdown_signal(&self) -> impl Future<Output = ()> + Send + Sync + 'static {
        let mut shutdown = self.shared.shutdown.clone();
        async move { wait_true(&mut shutdown).await }
    }

    /// Says this controller has caches to sync: from now on /readyz fails until [`Context::mark_ready`].
    /// [`crate::Controller`] does this itself. A controller that never calls it (a `kube::runtime::Controller` run
    /// by hand, say) does not hold /readyz back, as controller-runtime's default readiness check does not.
    pub fn gate_readiness(&self) {
        if let Some(slot) = &self.ready {
            slot.gated.store(true, Ordering::Release);
        }
    }

    /// Marks this controller's caches as synced: /readyz succeeds once every gated controller
    /// ([`Context::gate_readiness`]) has done so. [`crate::Controller`] calls it itself.
    pub fn mark_ready(&self, name: &str) {
        if let Some(slot) = &self.ready {
            *slot.name.lock().unwrap_or_else(|e| e.into_inner()) = name.to_string();
            slot.ready.store(true, Ordering::Release);
        }
    }

    /// Called by the manager once the controller's future has been polled the first time: it has run up to its
    /// first wait, so a controller that gates readiness has done so.
    pub(crate) fn mark_started(&self) {
        if let Some(slot) = &self.ready {
            slot.started.store(true, Ordering::Release);
        }
    }

    pub(crate) fn controller_name(&self) -> String {
        self.ready.as_ref().map_or_else(
            || "controller".to_string(),
            |slot| slot.name.lock().unwrap_or_else(|e| e.into_inner()).clone(),
        )
    }

    pub(crate) fn set_controller_name(&self, name: &str) {
        if let Some(slot) = &self.ready {
            *slot.name.lock().unwrap_or_else(|e| e.into_inner()) = name.to_string();
        }
    }
}

/// Readiness of each controller of a manager.
#[derive(Clone, Default)]
pub(crate) struct Readiness {
    slots: Arc<Mutex<Vec<Arc<ReadySlot>>>>,
}

#[derive(Default)]
pub(crate) struct ReadySlot {
    name: Mutex<String>,
    /// The controller's function has run up to its first wait (so it has said whether to gate).
    started: AtomicBool,
    /// The controller has caches that /readyz waits for.
    gated: AtomicBool,
    ready: AtomicBool,
}

impl ReadySlot {
    pub(crate) fn set_ready(&self) {
        self.ready.store(true, Ordering::Release);
    }
}

impl Readiness {
    fn slot(&self) -> Arc<ReadySlot> {
        let slot = Arc::new(ReadySlot::default());
        let mut slots = self.slots.lock().unwrap_or_else(|e| e.into_inner());
        *slot.name.lock().unwrap_or_else(|e| e.into_inner()) =
            format!("controller-{}", slots.len());
        slots.push(slot.clone());
        slot
    }

    /// A readiness condition of the manager itself (e.g. the webhook server listening): /readyz fails, naming it,
    /// until [`ReadySlot::set_ready`].
    pub(crate) fn gate(&self, name: &str) -> Arc<ReadySlot> {
        let slot = self.slot();
        *slot.name.lock().unwrap_or_else(|e| e.into_inner()) = name.to_string();
        slot.gated.store(true, Ordering::Release);
        slot.started.store(true, Ordering::Release);
        slot
    }

    /// Ok when every gated controller has synced; otherwise the names still syncing.
    pub(crate) fn check(&self) -> Result<(), Vec<String>> {
        let slots = self.slots.lock().unwrap_or_else(|e| e.into_inner());
        let waiting: Vec<String> = slots
            .iter()
            .filter(|s| {
                !s.started.load(Ordering::Acquire)
                    || (s.gated.load(Ordering::Acquire) && !s.ready.load(Ordering::Acquire))
            })
            .map(|s| s.name.lock().unwrap_or_else(|e| e.into_inner()).clone())
            .collect();
        if waiting.is_empty() {
            Ok(())
        } else {
            Err(waiting)
        }
    }
}

pub(crate) fn reporter(name: &str) -> Reporter {
    Reporter {
        controller: name.to_string(),
        instance: std::env::var("POD_NAME").ok(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn readyz_waits_only_for_gated_controllers() {
        let readiness = Readiness::default();
        let by_hand = readiness.slot();
        let with_cache = readiness.slot();
        assert_eq!(
            readiness.check(),
            Err(vec!["controller-0".to_string(), "controller-1".to_string()]),
            "not started: not known yet whether they gate"
        );
        by_hand.started.store(true, Ordering::Release);
        with_cache.started.store(true, Ordering::Release);
        assert_eq!(readiness.check(), Ok(()), "started, nothing gated");
        with_cache.gated.store(true, Ordering::Release);
        *with_cache.name.lock().unwrap() = "cluster".into();
        assert_eq!(readiness.check(), Err(vec!["cluster".to_string()]));
        with_cache.ready.store(true, Ordering::Release);
        assert_eq!(readiness.check(), Ok(()));
        assert!(!by_hand.gated.load(Ordering::Acquire));
    }
}
