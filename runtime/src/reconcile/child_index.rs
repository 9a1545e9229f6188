//! What a controller knows about the children it writes, without asking the API server: for each child, its
//! resourceVersion and controller (from a metadata-only watch), and what this process last applied to it. With it a
//! reconcile skips the server-side apply of a child that is already as desired.
//!
//! Why: an owner's reconcile re-applies every child, and each apply is an event that reconciles the owner again
//! (`.owns()`), so with many owners most applies change nothing and still cost the API server a write. The index
//! skips an apply whose desired content is what this process last applied, when no event since showed another
//! resourceVersion than the one that apply returned.
//!
//! Expected flow:
//! 1. one [`ChildIndex`] per controller, shared by its reconciles (it is cheap to clone);
//! 2. [`crate::ControllerBuilder::owns_indexed`] for each child kind, with a selector that matches the children (a
//!    label the controller sets on them): the controller runs the index's watch of that kind beside itself, until it
//!    ends, starts its reconciles once the watch has listed (or failed), and reconciles the children's owners on
//!    its events (in place of `.owns()`);
//! 3. reconciles write children with [`ChildIndex::apply`] (or [`ChildIndex::is_current`] and
//!    [`ChildIndex::record_applied`] around their own write), delete them with [`ChildIndex::delete`], and write
//!    their own object's status with [`ChildIndex::apply_status`];
//! 4. the controller counts what the index sent and spared: `rkb_child_writes_total{controller, kind, outcome}`,
//!    outcome "applied", "deleted" or "skipped" (kind `"<Kind>/status"` for statuses).
//!
//! Guarantees: a change by anyone else (an edit, a deletion, another field manager) arrives as a watch event with a
//! later resourceVersion, marks the child dirty and reconciles the owner again (through `.owns()`), whose apply
//! then goes through. After a relist (a watch that could not resume) whatever changed meanwhile is dirty and
//! whatever is gone is forgotten. So a skipped apply is one that would have changed nothing.
//!
//! After a restart: [`ChildIndex::apply`] writes the fingerprint of what it applies into the child's
//! [`CONTENT_ANNOTATION`], so a process started later (a new version, a crash, another replica taking over) learns
//! from the watch what is already applied. It takes a child as applied with that content when the annotation is
//! there and this controller's field manager made the last write to the child's content: its `Apply` entry in
//! `metadata.managedFields` is later than every other manager's entry outside subresources (a status written by
//! another controller does not count; an entry from the same second does, to be safe). The same rule keeps a
//! child current when another controller only updates its status.
//!
//! One watch per child kind: [`ChildIndex::owner_requests`] turns the index's watch events into reconcile requests
//! for the children's owners, in place of the controller's own `.owns()` watches of the same children (the API
//! server then serves one watch per child kind, not two). A request is sent after the index has taken the event in,
//! so the reconcile it starts sees the change. Under a WATCH_NAMESPACE list that is one watch per watched namespace
//! ([`Context::apis`]), as for the controller's own kind, so a Role in each namespace is all the index needs; a
//! namespace's relist replaces what the index knows of that namespace only.
//!
//! Echoes: the watch event of this index's own write (a child's apply, or the owner's status through
//! [`ChildIndex::apply_status`]) does not reconcile the owner again. The event carries the resourceVersion that the
//! write returned, so it shows the object exactly as the reconcile that wrote it left it: reconciling again would
//! compute the same content and skip every write. (controller-runtime's `Owns()` and `For()` reconcile on these
//! events; at 10,000 owners that doubled the reconciles for the same writes, docs/benchmarks.md.) Only events of a
//! running watch count as echoes: after a relist every listed child's owners are reconciled, since events may have
//! been missed. So a reconcile that writes a child or its status and wants to run again afterwards (a step-by-step
//! state machine) returns `Action::requeue`, rather than waiting for the event of its own write.
//!
//! Status writes: [`ChildIndex::apply_status`] skips a status the object already shows (as
//! [`crate::apply::apply_status_if_changed`]), and also one this index wrote while the object's copy in the cache is
//! older than that write: a reconcile that a child's event started before the status write's own event arrived
//! computes the same status from the older copy. Once the cache holds the write (or anything later), the object's
//! copy alone decides again, so a status someone else changed since is written back.
//!
//! Caveats: the watch's selector must cover every child written through the index; a child outside it is never
//! seen, so its edits by others are not noticed until this process applies other content to it. resourceVersions
//! are compared as integers (etcd revisions, on every kube-apiserver); should they not be, any difference counts as
//! a change, which costs an apply, never a missed one. Another controller updating a child outside the status
//! subresource (a Deployment's revision annotation) makes the next apply go through once, changing nothing.

use std::collections::{HashMap, HashSet};
use std::hash::Hash;
use std::sync::{Arc, Mutex, MutexGuard, OnceLock};

use futures::{FutureExt, StreamExt};
use k8s_openapi::apimachinery::pkg::apis::meta::v1::{ManagedFieldsEntry, OwnerReference};
use kube::api::PartialObjectMeta;
use kube::runtime::watcher;
use kube::{Api, Resource, ResourceExt};
use serde::Serialize;
use serde::de::DeserializeOwned;

pub use crate::apply::{Write, fingerprint};
use crate::metrics::Metrics;
use crate::{Context, Error};

/// The annotation in which [`ChildIndex::apply`] records the fingerprint of the content it applied (hexadecimal).
pub const CONTENT_ANNOTATION: &str = "rkb.dev/applied-content";

/// A child: kind, namespace, name.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Key {
    kind: &'static str,
    namespace: String,
    name: String,
}

impl Key {
    /// The key of a child of kind K.
    pub fn of<K: Resource<DynamicType = ()>>(namespace: &str, name: &str) -> Self {
        Self {
            kind: kind_name::<K>(),
            namespace: namespace.to_string(),
            name: name.to_string(),
        }
    }
}

/// A static name per kind, so keys need no allocation for it.
fn kind_name<K: Resource<DynamicType = ()>>() -> &'static str {
    std::any::type_name::<K>()
}

#[derive(Clone, Debug, PartialEq, Eq)]
struct Seen {
    resource_version: String,
    controller_uid: Option<String>,
    /// The content this controller's field manager applied, when its apply is still the last write to the child's
    /// content (see the module docs).
    applied_last: Option<u64>,
}

#[derive(Clone, Debug)]
struct Applied {
    content: u64,
    resource_version: String,
    /// An event showed another resourceVersion after this apply: someone else may have changed the child.
    dirty: bool,
}

#[derive(Default)]
struct State {
    seen: HashMap<Key, Seen>,
    applied: HashMap<Key, Applied>,
    /// The last status written per object, until the cache shows that write (module docs).
    statuses: HashMap<Key, StatusWritten>,
    /// Writes sent and not answered yet, each with the first event of its object that arrived meanwhile.
    flights: HashMap<(Key, Target), Option<Held>>,
}

/// What of an object a write of this index changes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
enum Target {
    /// A child's content ([`ChildIndex::apply`]).
    Content,
    /// An object's status ([`ChildIndex::apply_status`]).
    Status,
}

/// An event that arrived while a write to its object was in flight: it may be the write's echo, which only the
/// write's answer (its resourceVersion) can tell.
#[derive(Clone, Debug)]
struct Held {
    resource_version: String,
    /// Whom the event reconciles, unless it is the echo.
    requests: Owners,
}

/// A status [`ChildIndex::apply_status`] wrote.
#[derive(Clone, Debug, PartialEq, Eq)]
struct StatusWritten {
    uid: Option<String>,
    content: u64,
    resource_version: String,
}

/// Where the index counts its writes: set by the controller that runs it.
struct Counting {
    metrics: Metrics,
    controller: String,
}

/// Where [`ChildIndex::owner_requests`] sends the owners of changed children of one owner kind.
struct OwnerSink {
    api_version: String,
    kind: String,
    /// (namespace, name) of each owner to reconcile.
    requests: tokio::sync::mpsc::UnboundedSender<(Option<String>, String)>,
}

/// One watch of the index: a kind, and the namespace it watches (None: the whole watch scope).
type Listing = (&'static str, Option<String>);

/// Shared by the reconciles and the watches of one controller. Cheap to clone.
#[derive(Clone)]
pub struct ChildIndex {
    state: Arc<Mutex<State>>,
    owner_sinks: Arc<Mutex<Vec<OwnerSink>>>,
    counting: Arc<OnceLock<Counting>>,
    /// The watches (kind, namespace or None for one of the whole scope) that started and have not yet listed
    /// (nor failed): applies of their kind wait for the lists, which may show children applied already (by an
    /// earlier process).
    listing: Arc<tokio::sync::watch::Sender<HashSet<Listing>>>,
}

impl Default for ChildIndex {
    fn default() -> Self {
        Self {
            state: Arc::default(),
            owner_sinks: Arc::default(),
            counting: Arc::default(),
            listing: Arc::new(tokio::sync::watch::Sender::new(HashSet::new())),
        }
    }
}

impl ChildIndex {
    fn lock(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Whether `self` and `other` are clones of one index.
    pub fn ptr_eq(&self, other: &ChildIndex) -> bool {
        Arc::ptr_eq(&self.state, &other.state)
    }

    /// Counts this index's writes as `controller`'s (the first controller that runs it).
    pub(crate) fn count_as(&self, metrics: &Metrics, controller: &str) {
        let _ = self.counting.set(Counting {
            metrics: metrics.clone(),
            controller: controller.to_string(),
        });
    }

    fn count(&self, kind: &str, outcome: &str) {
        if let Some(c) = self.counting.get() {
            c.metrics.count_child_write(&c.controller, kind, outcome);
        }
    }

    fn count_write(&self, kind: &str, write: Write) {
        let outcome = match write {
            Write::Applied => "applied",
            Write::Skipped => "skipped",
        };
        self.count(kind, outcome);
    }

    /// Whether the child was last applied with `content` and no event since shows another change. The event of
    /// the apply itself may not have arrived yet: a change by someone else comes after it, marks the child dirty
    /// and reconciles the owner again, so skipping now misses nothing.
    pub fn is_current(&self, key: &Key, content: u64) -> bool {
        self.lock()
            .applied
            .get(key)
            .is_some_and(|a| a.content == content && !a.dirty)
    }

    /// Records what was applied and the resourceVersion the API server returned for it.
    pub fn record_applied(&self, key: Key, content: u64, resource_version: Option<String>) {
        self.lock().record_applied(key, content, resource_version);
    }

    /// Server-side applies `obj` as `field_manager` (see [`crate::apply::apply`]) unless it is exactly what was
    /// last applied and nothing changed it since; records what was applied.
    pub async fn apply<K>(&self, api: &Api<K>, obj: &K, field_manager: &str) -> Result<Write, Error>
    where
        K: Resource<DynamicType = ()> + Serialize + DeserializeOwned + Clone + std::fmt::Debug,
    {
        let name = crate::error::required_name(obj)?;
        let key = Key::of::<K>(&obj.namespace().unwrap_or_default(), name);
        let content = fingerprint(obj);
        self.listed(key.kind).await;
        if self.is_current(&key, content) {
            self.count_write(&K::kind(&()), Write::Skipped);
            return Ok(Write::Skipped);
        }
        let mut obj = obj.clone();
        let annotations = obj
            .meta_mut()
            .annotations
            .get_or_insert_with(Default::default);
        annotations.insert(CONTENT_ANNOTATION.to_string(), format!("{content:016x}"));
        let flight = self.take_off(key.clone(), Target::Content);
        // Only the resourceVersion of the answer is kept: ask for metadata alone.
        let applied = crate::apply::apply_answering_metadata(api, &obj, field_manager).await?;
        let version = applied.metadata.resource_version;
        flight.land(version.as_deref(), |state| {
            state.record_applied(key, content, version.clone());
        });
        self.count_write(&K::kind(&()), Write::Applied);
        Ok(Write::Applied)
    }

    /// Deletes the child `name` of kind K (see [`crate::apply::delete_if_exists`]) when the index has seen it, and
    /// forgets what was applied to it; `Ok(false)` when there was nothing to delete. A child created but not yet
    /// seen is not deleted now: its event reconciles the owner again, which deletes it then.
    pub async fn delete<K>(&self, api: &Api<K>, name: &str) -> Result<bool, Error>
    where
        K: Resource<DynamicType = ()> + Clone + DeserializeOwned + std::fmt::Debug,
    {
        let key = Key::of::<K>(api.namespace().unwrap_or_default(), name);
        if !self.exists(&key) {
            return Ok(false);
        }
        let deleted = crate::apply::delete_if_exists(api, name).await?;
        self.forget(&key);
        if deleted {
            self.count(&K::kind(&()), "deleted");
        }
        Ok(deleted)
    }

    /// Server-side applies `status` as the status of `obj` (as the cache holds it) unless `obj` already shows it,
    /// or this index wrote it and the cache does not show that write yet (module docs).
    pub async fn apply_status<K, S>(
        &self,
        api: &Api<K>,
        obj: &K,
        status: &S,
        field_manager: &str,
    ) -> Result<Write, Error>
    where
        K: Resource<DynamicType = ()> + Serialize + DeserializeOwned + Clone + std::fmt::Debug,
        S: Serialize,
    {
        let kind = format!("{}/status", K::kind(&()));
        let key = Key::of::<K>(
            &obj.namespace().unwrap_or_default(),
            crate::error::required_name(obj)?,
        );
        let desired = serde_json::to_value(status)?;
        let content = crate::apply::status_fingerprint(&desired);
        let (uid, cached_version) = (obj.meta().uid.clone(), obj.resource_version());
        if self.status_pending(&key, uid.as_deref(), cached_version.as_deref(), content) {
            self.count_write(&kind, Write::Skipped);
            return Ok(Write::Skipped);
        }
        let flight = self.take_off(key.clone(), Target::Status);
        let written =
            crate::apply::apply_status_value_if_changed(api, obj, desired, field_manager).await?;
        let Some(stored) = written else {
            self.count_write(&kind, Write::Skipped);
            return Ok(Write::Skipped);
        };
        let version = stored.resource_version();
        flight.land(version.as_deref(), |state| {
            if let Some(resource_version) = version.clone() {
                let written = StatusWritten {
                    uid,
                    content,
                    resource_version,
                };
                state.statuses.insert(key, written);
            }
        });
        self.count_write(&kind, Write::Applied);
        Ok(Write::Applied)
    }

    /// Whether the controller's watch event of `obj` reconciles nothing now: it shows the object exactly as this
    /// index's last status write to it left it (same uid and resourceVersion), the echo of that write, which the
    /// reconcile that wrote it knew; or it came while a status write to the object is in flight, and is held until
    /// the write's answer tells whether it is the echo (module docs, "Echoes").
    pub(crate) fn is_status_echo<K: Resource<DynamicType = ()>>(&self, obj: &K) -> bool {
        let meta = obj.meta();
        let (Some(name), Some(version)) = (meta.name.as_deref(), meta.resource_version.as_deref())
        else {
            return false;
        };
        let key = Key::of::<K>(meta.namespace.as_deref().unwrap_or_default(), name);
        let mut state = self.lock();
        let echo = state
            .statuses
            .get(&key)
            .is_some_and(|written| written.resource_version == version && written.uid == meta.uid);
        let requests = || {
            let itself = OwnerReference {
                api_version: K::api_version(&()).into_owned(),
                kind: K::kind(&()).into_owned(),
                name: name.to_string(),
                ..OwnerReference::default()
            };
            (meta.namespace.clone(), vec![itself])
        };
        echo || state.hold(key, Target::Status, version, requests)
    }

    /// Marks a write to `key`'s `target` as sent: until [`Landing::land`], the first event of the object is held.
    fn take_off(&self, key: Key, target: Target) -> Landing<'_> {
        self.lock().flights.insert((key.clone(), target), None);
        Landing {
            index: self,
            flight: Some((key, target)),
        }
    }

    /// Whether the status `content` of the object `key` (uid `uid`, cached at `cached_version`) is one this index
    /// wrote after the cached copy. A remembered write the cache has caught up with is dropped.
    fn status_pending(
        &self,
        key: &Key,
        uid: Option<&str>,
        cached_version: Option<&str>,
        content: u64,
    ) -> bool {
        let mut state = self.lock();
        let Some(written) = state.statuses.get(key) else {
            return false;
        };
        let cache_is_older = written.uid.as_deref() == uid
            && cached_version.is_some_and(|cached| newer(&written.resource_version, cached));
        if !cache_is_older {
            state.statuses.remove(key);
            return false;
        }
        written.content == content
    }

    /// Reconcile requests for the owners of kind O (any owner reference naming O's apiVersion and kind) of every
    /// child the index's watches see created, changed, listed or deleted: pass it to
    /// [`crate::ControllerBuilder::reconciles_on`] instead of `.owns()` for the kinds the index watches.
    pub fn owner_requests<O: Resource<DynamicType = ()>>(
        &self,
    ) -> impl futures::Stream<Item = kube::runtime::reflector::ObjectRef<O>> + Send + 'static {
        let (requests, mut received) = tokio::sync::mpsc::unbounded_channel();
        self.owner_sinks
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .push(OwnerSink {
                api_version: O::api_version(&()).into_owned(),
                kind: O::kind(&()).into_owned(),
                requests,
            });
        futures::stream::poll_fn(move |cx| received.poll_recv(cx)).map(|(namespace, name)| {
            let owner = kube::runtime::reflector::ObjectRef::<O>::new(&name);
            match namespace {
                Some(namespace) => owner.within(&namespace),
                None => owner,
            }
        })
    }

    /// Asks for a reconcile of each of a child's owners that an [`Self::owner_requests`] stream wants.
    fn request_owners(&self, (namespace, owners): Owners) {
        if owners.is_empty() {
            return;
        }
        let mut sinks = self.owner_sinks.lock().unwrap_or_else(|e| e.into_inner());
        // A dropped stream (its controller ended) wants nothing more.
        sinks.retain(|sink| !sink.requests.is_closed());
        for owner in owners {
            let wanted = sinks
                .iter()
                .filter(|s| s.api_version == owner.api_version && s.kind == owner.kind);
            for sink in wanted {
                let _ = sink.requests.send((namespace.clone(), owner.name.clone()));
            }
        }
    }

    /// Waits until every watch of `kind`, if any started, has listed it or failed.
    async fn listed(&self, kind: &'static str) {
        self.until_listing(|watches| !watches.iter().any(|(k, _)| *k == kind))
            .await;
    }

    /// Waits until every watch started so far has listed or failed (the controller's reconciles wait for it).
    pub(crate) async fn listed_all(&self) {
        self.until_listing(HashSet::is_empty).await;
    }

    /// Waits until the watches still listing pass `done`.
    async fn until_listing(&self, done: impl FnMut(&HashSet<Listing>) -> bool) {
        let mut listing = self.listing.subscribe();
        // The sender lives as long as `self`: waiting cannot fail.
        let _ = listing.wait_for(done).await;
    }

    fn done_listing(&self, watch: &Listing) {
        self.listing
            .send_if_modified(|watches| watches.remove(watch));
    }

    /// Forgets what was applied to a child (after deleting it).
    pub fn forget(&self, key: &Key) {
        self.lock().applied.remove(key);
    }

    /// Whether the child is known to exist.
    pub fn exists(&self, key: &Key) -> bool {
        self.lock().seen.contains_key(key)
    }

    /// The uid of the child's controller: `None` when the child is not known, `Some(None)` when nothing controls it.
    pub fn controller_uid(&self, key: &Key) -> Option<Option<String>> {
        self.lock().seen.get(key).map(|s| s.controller_uid.clone())
    }

    /// Keeps the index current for the children of kind K that `config` selects (usually a label selector) in the
    /// controller's watch scope, until the manager shuts down ([`crate::ControllerBuilder::owns_indexed`] runs it):
    /// one watch per Api of [`Context::apis`] (each watched namespace of a WATCH_NAMESPACE list, so the rights of a
    /// Role in each suffice), each relist replacing only what is known of its own namespace. Children applied by
    /// `ctx.field_manager()` in an earlier process are taken as applied (module docs), so from this call until
    /// every watch's first list, applies of K wait for them. Watch errors are retried with backoff; meanwhile the
    /// index only lags (and applies stop waiting for the list), which costs extra applies, never wrong ones.
    pub fn watch<K>(self, ctx: Context, config: watcher::Config) -> impl Future<Output = ()> + Send
    where
        K: Resource<DynamicType = ()> + Clone + DeserializeOwned + std::fmt::Debug + Send + 'static,
        K::Scope: crate::scope::KindScope,
    {
        let apis = ctx.apis::<PartialObjectMeta<K>>();
        let namespaces: Vec<Option<String>> = if apis.len() > 1 {
            ctx.namespaces().iter().cloned().map(Some).collect()
        } else {
            vec![None]
        };
        let watches: Vec<Listing> = namespaces
            .into_iter()
            .map(|namespace| (kind_name::<K>(), namespace))
            .collect();
        self.listing
            .send_modify(|listing| listing.extend(watches.iter().cloned()));
        let each = apis.into_iter().zip(watches).map(|(api, watch)| {
            self.clone()
                .watch_listed::<K>(ctx.clone(), api, config.clone(), watch)
        });
        futures::future::join_all(each).map(|_| ())
    }

    /// The watch `watch` of K through `api`, until the manager shuts down.
    async fn watch_listed<K>(
        self,
        ctx: Context,
        // An Api of PartialObjectMeta makes metadata-only requests: no spec or status is transferred or decoded.
        api: Api<PartialObjectMeta<K>>,
        config: watcher::Config,
        watch: Listing,
    ) where
        K: Resource<DynamicType = ()> + Clone + DeserializeOwned + std::fmt::Debug + Send + 'static,
    {
        // However this ends before its first list (shutdown, the task aborted), applies of K wait no more.
        let _listed = ListedOnDrop(self.clone(), watch.clone());
        let manager = ctx.field_manager().to_string();
        // Streaming its initial state where the server can (initial_list.rs); on the API server's clock during an
        // outage, relisting at once after 410 (watch_retry.rs).
        let events = crate::initial_list::initial_sync(api, config, ctx.streaming_lists());
        let events = crate::watch_retry::retrying(events, &ctx);
        let mut events = std::pin::pin!(events.take_until(ctx.shutdown_signal()));
        // A relist (Init .. InitDone) replaces everything known of K in the watch's namespace; its children's
        // owners are asked for after.
        let mut relisted: Option<Vec<(Key, Seen)>> = None;
        let mut listed_owners: Vec<Owners> = Vec::new();
        while let Some(event) = events.next().await {
            let event = match event {
                Ok(event) => event,
                Err(e) => {
                    tracing::warn!(kind = watch.0, namespace = ?watch.1, error = %e, "child index watch failed, retrying");
                    self.done_listing(&watch);
                    continue;
                }
            };
            match event {
                watcher::Event::Init => {
                    relisted = Some(Vec::new());
                    listed_owners.clear();
                }
                watcher::Event::InitApply(obj) => {
                    relisted
                        .get_or_insert_with(Vec::new)
                        .extend(entry(&obj, &manager));
                    listed_owners.push(owners_of(&obj));
                }
                watcher::Event::InitDone => {
                    self.relisted(&watch, relisted.take().unwrap_or_default());
                    self.done_listing(&watch);
                    // Only now that the list is taken in: a reconcile started earlier could skip an apply on
                    // what the index knew before the list.
                    for owners in listed_owners.drain(..) {
                        self.request_owners(owners);
                    }
                }
                watcher::Event::Apply(obj) => {
                    let owners = owners_of(&obj);
                    let requests = match entry(&obj, &manager) {
                        Some((key, seen)) => self.applied_event(key, seen, owners),
                        None => Some(owners),
                    };
                    if let Some(owners) = requests {
                        self.request_owners(owners);
                    }
                }
                watcher::Event::Delete(obj) => {
                    if let Some((key, _)) = entry(&obj, &manager) {
                        self.deleted_event(&key);
                    }
                    self.request_owners(owners_of(&obj));
                }
            }
        }
    }

    /// A child was created or changed: returns the owners to reconcile, none for the echo of this index's own
    /// apply (the resourceVersion that apply returned) nor while an apply to the child is in flight (the event is
    /// held until its answer: module docs, "Echoes").
    fn applied_event(&self, key: Key, seen: Seen, owners: Owners) -> Option<Owners> {
        let mut state = self.lock();
        let held = state.hold(key.clone(), Target::Content, &seen.resource_version, || {
            owners.clone()
        });
        let mut echo = false;
        match state.applied.get_mut(&key) {
            // Events come in resourceVersion order: ours clears what came before it, a later one is someone
            // else's change (unless it left our apply the last write to the content), an earlier one was
            // overwritten by ours.
            Some(applied) if seen.resource_version == applied.resource_version => {
                applied.dirty = false;
                echo = true;
            }
            Some(applied) if newer(&seen.resource_version, &applied.resource_version) => {
                applied.dirty = seen.applied_last != Some(applied.content);
                if !applied.dirty {
                    applied.resource_version = seen.resource_version.clone();
                }
            }
            Some(_) => {}
            None => adopt(&mut state.applied, &key, &seen),
        }
        state.seen.insert(key, seen);
        (!echo && !held).then_some(owners)
    }

    /// A child is gone.
    fn deleted_event(&self, key: &Key) {
        let mut state = self.lock();
        state.seen.remove(key);
        state.applied.remove(key);
    }

    /// A relist by watch `watch` (after a watch could not resume) replaces everything known of its kind in its
    /// namespace (in every namespace for a watch of the whole scope).
    fn relisted(&self, watch: &Listing, fresh: Vec<(Key, Seen)>) {
        let (kind, namespace) = watch;
        let listed_by =
            |k: &Key| k.kind == *kind && namespace.as_ref().is_none_or(|ns| k.namespace == *ns);
        let mut state = self.lock();
        state.seen.retain(|k, _| !listed_by(k));
        state.seen.extend(fresh);
        // Events may have been missed: whatever is newer than what was applied is suspect, whatever is gone is
        // forgotten.
        let State { seen, applied, .. } = &mut *state;
        applied.retain(|k, a| {
            if !listed_by(k) {
                return true;
            }
            let Some(now) = seen.get(k) else { return false };
            a.dirty |= newer(&now.resource_version, &a.resource_version)
                && now.applied_last != Some(a.content);
            true
        });
        for (key, now) in seen.iter().filter(|(k, _)| listed_by(k)) {
            if !applied.contains_key(key) {
                adopt(applied, key, now);
            }
        }
    }
}

impl State {
    /// Records what was applied to a child and the resourceVersion the API server returned for it.
    fn record_applied(&mut self, key: Key, content: u64, resource_version: Option<String>) {
        let Some(resource_version) = resource_version else {
            self.applied.remove(&key);
            return;
        };
        // An event newer than this apply may already be in (its trigger then finds the child dirty).
        let dirty = self
            .seen
            .get(&key)
            .is_some_and(|s| newer(&s.resource_version, &resource_version));
        let applied = Applied {
            content,
            resource_version,
            dirty,
        };
        self.applied.insert(key, applied);
    }

    /// Holds the event (`resource_version`, reconciling `requests`) of an object while a write to its `target` is
    /// in flight, if no other event is held for it yet (a second one cannot be the echo: it passes). Returns whether
    /// it was held.
    fn hold(
        &mut self,
        key: Key,
        target: Target,
        resource_version: &str,
        requests: impl FnOnce() -> Owners,
    ) -> bool {
        match self.flights.get_mut(&(key, target)) {
            Some(slot @ None) => {
                *slot = Some(Held {
                    resource_version: resource_version.to_string(),
                    requests: requests(),
                });
                true
            }
            _ => false,
        }
    }
}

/// A write of the index in flight. Landed with the write's answer, it releases the event held meanwhile unless
/// that event was the write's echo; dropped (the write failed or was cancelled), it releases the event.
struct Landing<'a> {
    index: &'a ChildIndex,
    flight: Option<(Key, Target)>,
}

impl Landing<'_> {
    /// Ends the flight with the resourceVersion the write returned, recording the write by `record` under the
    /// same lock (so an event arriving meanwhile sees either the flight or the record).
    fn land(mut self, resource_version: Option<&str>, record: impl FnOnce(&mut State)) {
        self.end(resource_version, record);
    }

    /// Ends the flight (once): records the write, then releases the held event unless it carries
    /// `resource_version`, the write's answer (none: the write failed, whatever was held is released).
    fn end(&mut self, resource_version: Option<&str>, record: impl FnOnce(&mut State)) {
        let Some(flight) = self.flight.take() else {
            return;
        };
        let held = {
            let mut state = self.index.lock();
            record(&mut state);
            state.flights.remove(&flight).flatten()
        };
        if let Some(held) = held
            && resource_version != Some(held.resource_version.as_str())
        {
            self.index.request_owners(held.requests);
        }
    }
}

impl Drop for Landing<'_> {
    fn drop(&mut self) {
        self.end(None, |_| {});
    }
}

/// A child's namespace and owner references.
type Owners = (Option<String>, Vec<OwnerReference>);

fn owners_of<K: Resource>(child: &PartialObjectMeta<K>) -> Owners {
    (child.namespace(), child.owner_references().to_vec())
}

/// Ends the wait for a watch's first list when dropped.
struct ListedOnDrop(ChildIndex, Listing);

impl Drop for ListedOnDrop {
    fn drop(&mut self) {
        self.0.done_listing(&self.1);
    }
}

/// Whether resourceVersion `a` is later than `b`. They are etcd revisions (integers) on every kube-apiserver; should
/// one not be, any difference counts as later, which only costs an extra apply.
fn newer(a: &str, b: &str) -> bool {
    match (a.parse::<u64>(), b.parse::<u64>()) {
        (Ok(a), Ok(b)) => a > b,
        _ => a != b,
    }
}

/// Takes a child this index has no apply of as applied, when the watch shows an earlier process applied it.
fn adopt(applied: &mut HashMap<Key, Applied>, key: &Key, seen: &Seen) {
    if let Some(content) = seen.applied_last {
        let adopted = Applied {
            content,
            resource_version: seen.resource_version.clone(),
            dirty: false,
        };
        applied.insert(key.clone(), adopted);
    }
}

/// The content `manager` applied to `obj` (its [`CONTENT_ANNOTATION`]) when its `Apply` is the last write to the
/// object's content: later than every other manager's entry outside subresources.
fn applied_last<K>(obj: &PartialObjectMeta<K>, manager: &str) -> Option<u64> {
    let content = obj.metadata.annotations.as_ref()?.get(CONTENT_ANNOTATION)?;
    let entries = obj.metadata.managed_fields.as_deref()?;
    let is_ours = |e: &&ManagedFieldsEntry| {
        e.manager.as_deref() == Some(manager) && e.operation.as_deref() == Some("Apply")
    };
    let on_content = |e: &&ManagedFieldsEntry| e.subresource.as_deref().unwrap_or("").is_empty();
    let ours = entries
        .iter()
        .filter(on_content)
        .find(is_ours)?
        .time
        .as_ref()?;
    let others_before = entries
        .iter()
        .filter(on_content)
        .filter(|e| !is_ours(e))
        .all(|e| e.time.as_ref().is_some_and(|t| t.0 < ours.0));
    others_before
        .then(|| u64::from_str_radix(content, 16).ok())
        .flatten()
}

fn entry<K: Resource<DynamicType = ()>>(
    obj: &PartialObjectMeta<K>,
    manager: &str,
) -> Option<(Key, Seen)> {
    let key = Key::of::<K>(
        &obj.namespace().unwrap_or_default(),
        obj.metadata.name.as_deref()?,
    );
    let controller_uid = obj
        .owner_references()
        .iter()
        .find(|r| r.controller == Some(true))
        .map(|r| r.uid.clone());
    let seen = Seen {
        resource_version: obj.resource_version()?,
        controller_uid,
        applied_last: applied_last(obj, manager),
    };
    Some((key, seen))
}

#[cfg(test)]
mod tests {
    use k8s_openapi::api::core::v1::ConfigMap;

    use super::*;

    fn seen(rv: &str) -> Seen {
        Seen {
            resource_version: rv.into(),
            controller_uid: Some("owner".into()),
            applied_last: None,
        }
    }

    fn key() -> Key {
        Key::of::<ConfigMap>("ns", "cm")
    }

    /// Feeds a watch event of `key` to `index`: whether it reconciles the child's owners.
    fn event(index: &ChildIndex, key: Key, seen: Seen) -> bool {
        index.applied_event(key, seen, (None, vec![])).is_some()
    }

    /// The one watch of ConfigMaps over the whole watch scope.
    fn whole_scope() -> Listing {
        (kind_name::<ConfigMap>(), None)
    }

    #[test]
    fn a_namespace_relist_replaces_that_namespace_only() {
        let index = ChildIndex::default();
        let in_ns = |ns: &str| Key::of::<ConfigMap>(ns, "cm");
        for ns in ["a", "b"] {
            index.record_applied(in_ns(ns), 1, Some("10".into()));
            event(&index, in_ns(ns), seen("10"));
        }
        let watch_of = |ns: &str| (kind_name::<ConfigMap>(), Some(ns.to_string()));
        // "b"'s watch relists and finds its child gone: "a"'s child is still known and current.
        index.relisted(&watch_of("b"), vec![]);
        assert!(!index.exists(&in_ns("b")) && !index.is_current(&in_ns("b"), 1));
        assert!(index.exists(&in_ns("a")) && index.is_current(&in_ns("a"), 1));
        // "a"'s relist shows a later change: dirty, while "b" is untouched by it.
        index.relisted(&watch_of("a"), vec![(in_ns("a"), seen("12"))]);
        assert!(index.exists(&in_ns("a")) && !index.is_current(&in_ns("a"), 1));
    }

    #[test]
    fn an_applied_child_is_current_until_someone_else_changes_it() {
        let index = ChildIndex::default();
        assert!(!index.is_current(&key(), 1), "never applied");
        index.record_applied(key(), 1, Some("10".into()));
        assert!(index.is_current(&key(), 1), "before its own event arrives");
        assert!(!index.is_current(&key(), 2), "other content");
        assert!(event(&index, key(), seen("9")), "someone else's change");
        assert!(
            index.is_current(&key(), 1),
            "an older event was overwritten by the apply"
        );
        assert!(!event(&index, key(), seen("10")), "its own event: an echo");
        assert!(index.is_current(&key(), 1), "its own event");
        assert!(event(&index, key(), seen("11")), "someone else's change");
        assert!(
            !index.is_current(&key(), 1),
            "a later change by someone else"
        );
        index.record_applied(key(), 1, Some("12".into()));
        assert!(index.is_current(&key(), 1), "applied again");
    }

    /// The owners `index` asked to reconcile so far.
    fn requested(requests: &mut (impl futures::Stream<Item = ObjectRef> + Unpin)) -> Vec<String> {
        std::iter::from_fn(|| requests.next().now_or_never().flatten())
            .map(|owner| owner.name)
            .collect()
    }

    type ObjectRef = kube::runtime::reflector::ObjectRef<ConfigMap>;

    #[test]
    fn an_event_during_an_apply_waits_for_its_answer() {
        let index = ChildIndex::default();
        let mut requests = Box::pin(index.owner_requests::<ConfigMap>());
        let owners = || {
            let owner = OwnerReference {
                api_version: "v1".into(),
                kind: "ConfigMap".into(),
                name: "owner".into(),
                ..OwnerReference::default()
            };
            (Some("ns".to_string()), vec![owner])
        };
        // The echo arrives before the answer: held, then dropped, since the answer has its resourceVersion.
        let flight = index.take_off(key(), Target::Content);
        assert!(index.applied_event(key(), seen("10"), owners()).is_none());
        flight.land(Some("10"), |state| {
            state.record_applied(key(), 1, Some("10".into()))
        });
        assert!(
            requested(&mut requests).is_empty(),
            "the echo reconciles nothing"
        );
        assert!(index.is_current(&key(), 1));

        // Someone else's change arrives during the apply: held, then released, since the answer is later.
        let flight = index.take_off(key(), Target::Content);
        assert!(index.applied_event(key(), seen("11"), owners()).is_none());
        assert!(requested(&mut requests).is_empty(), "held while in flight");
        flight.land(Some("12"), |state| {
            state.record_applied(key(), 2, Some("12".into()))
        });
        assert_eq!(requested(&mut requests), ["owner"]);

        // A second event during one flight passes at once; a failed write releases the held one.
        let flight = index.take_off(key(), Target::Content);
        assert!(index.applied_event(key(), seen("13"), owners()).is_none());
        assert!(index.applied_event(key(), seen("14"), owners()).is_some());
        drop(flight);
        assert_eq!(requested(&mut requests), ["owner"]);
    }

    #[test]
    fn an_apply_recorded_after_a_newer_event_is_dirty() {
        let index = ChildIndex::default();
        event(&index, key(), seen("11"));
        index.record_applied(key(), 1, Some("10".into()));
        assert!(!index.is_current(&key(), 1));
    }

    #[test]
    fn deletion_and_relist_forget_what_is_gone() {
        let index = ChildIndex::default();
        index.record_applied(key(), 1, Some("10".into()));
        event(&index, key(), seen("10"));
        assert_eq!(index.controller_uid(&key()), Some(Some("owner".into())));
        index.deleted_event(&key());
        assert!(!index.is_current(&key(), 1) && !index.exists(&key()));

        index.record_applied(key(), 1, Some("20".into()));
        event(&index, key(), seen("20"));
        index.relisted(&whole_scope(), vec![(key(), seen("25"))]);
        assert!(
            !index.is_current(&key(), 1),
            "changed while the watch was down"
        );
        index.relisted(&whole_scope(), vec![]);
        assert!(!index.exists(&key()));
    }

    fn ours(rv: &str, content: u64) -> Seen {
        Seen {
            applied_last: Some(content),
            ..seen(rv)
        }
    }

    #[test]
    fn what_an_earlier_process_applied_is_adopted_until_someone_else_writes() {
        let index = ChildIndex::default();
        event(&index, key(), ours("10", 1));
        assert!(index.is_current(&key(), 1) && !index.is_current(&key(), 2));
        // Another controller's status write: our apply is still the last write to the content.
        event(&index, key(), ours("11", 1));
        assert!(index.is_current(&key(), 1));
        event(&index, key(), seen("12"));
        assert!(!index.is_current(&key(), 1), "someone else wrote after us");

        let relisted = ChildIndex::default();
        relisted.relisted(&whole_scope(), vec![(key(), ours("20", 3))]);
        assert!(relisted.is_current(&key(), 3), "adopted from a relist too");
    }

    fn written(
        manager: &str,
        operation: &str,
        second: i64,
        subresource: &str,
    ) -> ManagedFieldsEntry {
        ManagedFieldsEntry {
            manager: Some(manager.into()),
            operation: Some(operation.into()),
            subresource: (!subresource.is_empty()).then(|| subresource.into()),
            time: Some(k8s_openapi::apimachinery::pkg::apis::meta::v1::Time(
                k8s_openapi::jiff::Timestamp::from_second(second).unwrap(),
            )),
            ..ManagedFieldsEntry::default()
        }
    }

    fn child(
        content: Option<&str>,
        entries: Vec<ManagedFieldsEntry>,
    ) -> PartialObjectMeta<ConfigMap> {
        let mut obj = PartialObjectMeta::<ConfigMap>::default();
        obj.metadata.annotations =
            content.map(|c| [(CONTENT_ANNOTATION.to_string(), c.to_string())].into());
        obj.metadata.managed_fields = Some(entries);
        obj
    }

    #[test]
    fn the_last_write_to_the_content_is_read_from_managed_fields() {
        let us = |second| written("op", "Apply", second, "");
        let last = |content, entries| applied_last(&child(content, entries), "op");
        assert_eq!(last(Some("ff"), vec![us(100)]), Some(255));
        assert_eq!(last(None, vec![us(100)]), None, "no fingerprint");
        assert_eq!(last(Some("zz"), vec![us(100)]), None, "not a fingerprint");
        let edit = |second| written("kubectl-edit", "Update", second, "");
        assert_eq!(last(Some("ff"), vec![us(100), edit(99)]), Some(255));
        assert_eq!(
            last(Some("ff"), vec![us(100), edit(101)]),
            None,
            "edited after"
        );
        assert_eq!(
            last(Some("ff"), vec![us(100), edit(100)]),
            None,
            "same second"
        );
        let status = written("kube-controller-manager", "Update", 200, "status");
        assert_eq!(last(Some("ff"), vec![us(100), status]), Some(255));
        let our_update = written("op", "Update", 50, "");
        assert_eq!(last(Some("ff"), vec![our_update]), None, "no apply of ours");
    }

    #[test]
    fn a_written_status_is_remembered_until_the_cache_shows_it() {
        let index = ChildIndex::default();
        let pending = |version: &str, content| {
            index.status_pending(&key(), Some("u1"), Some(version), content)
        };
        assert!(!pending("10", 7), "nothing written");
        let written = StatusWritten {
            uid: Some("u1".into()),
            content: 7,
            resource_version: "12".into(),
        };
        index.lock().statuses.insert(key(), written.clone());
        assert!(pending("10", 7), "the cache is older than the write");
        assert!(!pending("10", 8), "another status");
        assert!(
            !index.status_pending(&key(), Some("u2"), Some("10"), 7),
            "another object of the same name"
        );
        index.lock().statuses.insert(key(), written);
        assert!(!pending("12", 7), "the cache shows the write: it decides");
        assert!(
            !pending("10", 7),
            "forgotten once the cache caught up: a later change by someone else is written back"
        );
    }
}
