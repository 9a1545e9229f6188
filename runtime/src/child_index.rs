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
//! 2. [`ChildIndex::watch`] for each child kind, with a selector that matches the children (a label the controller
//!    sets on them), running beside the controller until the manager shuts down;
//! 3. reconciles write children with [`ChildIndex::apply`] (or [`ChildIndex::is_current`] and
//!    [`ChildIndex::record_applied`] around their own write), and call [`ChildIndex::forget`] after deleting one.
//!
//! Guarantees: a change by anyone else (an edit, a deletion, another field manager) arrives as a watch event with a
//! later resourceVersion, marks the child dirty and reconciles the owner again (through `.owns()`), whose apply
//! then goes through. After a relist (a watch that could not resume) whatever changed meanwhile is dirty and
//! whatever is gone is forgotten. So a skipped apply is one that would have changed nothing.
//!
//! Caveats: only this process's applies are remembered: after a restart each child is applied once more. The
//! watch's selector must cover every child written through the index; a child outside it is never seen, so its
//! edits by others are not noticed until this process applies other content to it. resourceVersions are compared
//! as integers (etcd revisions, on every kube-apiserver); should they not be, any difference counts as a change,
//! which costs an apply, never a missed one.

use std::collections::HashMap;
use std::hash::{DefaultHasher, Hash, Hasher};
use std::sync::{Arc, Mutex, MutexGuard};

use futures::StreamExt;
use kube::api::PartialObjectMeta;
use kube::runtime::{WatchStreamExt, watcher};
use kube::{Api, Resource, ResourceExt};
use serde::Serialize;
use serde::de::DeserializeOwned;

use crate::{Context, Error};

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
    /// Fingerprint of the last status written per owner (one small entry per owner this process reconciled).
    statuses: HashMap<Key, u64>,
}

/// What [`ChildIndex::apply`] did.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Write {
    Applied,
    /// The child is as desired: nothing was sent.
    Skipped,
}

/// Shared by the reconciles and the watches of one controller. Cheap to clone.
#[derive(Clone, Default)]
pub struct ChildIndex {
    state: Arc<Mutex<State>>,
}

/// A fingerprint of what would be applied.
pub fn fingerprint<T: Serialize>(obj: &T) -> u64 {
    let mut hasher = DefaultHasher::new();
    serde_json::to_vec(obj)
        .unwrap_or_default()
        .hash(&mut hasher);
    hasher.finish()
}

impl ChildIndex {
    fn lock(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
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
        let mut state = self.lock();
        match resource_version {
            Some(resource_version) => {
                // An event newer than this apply may already be in (its trigger then finds the child dirty).
                let dirty = state
                    .seen
                    .get(&key)
                    .is_some_and(|s| newer(&s.resource_version, &resource_version));
                let applied = Applied {
                    content,
                    resource_version,
                    dirty,
                };
                state.applied.insert(key, applied);
            }
            None => {
                state.applied.remove(&key);
            }
        }
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
        if self.is_current(&key, content) {
            return Ok(Write::Skipped);
        }
        let applied = crate::apply::apply(api, obj, field_manager).await?;
        self.record_applied(key, content, applied.resource_version());
        Ok(Write::Applied)
    }

    /// Whether `content` is the status last written for `owner`: the owner's cache may not show it yet, and
    /// writing it again would change nothing.
    pub fn status_written(&self, owner: &Key, content: u64) -> bool {
        self.lock().statuses.get(owner) == Some(&content)
    }

    /// Records the status written for `owner`.
    pub fn record_status(&self, owner: Key, content: u64) {
        self.lock().statuses.insert(owner, content);
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
    /// controller's watch scope, until the manager shuts down. Watch errors are retried with backoff; meanwhile the
    /// index only lags, which costs extra applies, never wrong ones.
    pub async fn watch<K>(self, ctx: Context, config: watcher::Config)
    where
        K: Resource<DynamicType = ()> + Clone + DeserializeOwned + std::fmt::Debug + Send + 'static,
        K::Scope: crate::scope::WatchScope,
    {
        // An Api of PartialObjectMeta makes metadata-only requests: no spec or status is transferred or decoded.
        let api: Api<PartialObjectMeta<K>> = ctx.api::<PartialObjectMeta<K>>();
        let events = watcher(api, config).default_backoff();
        let mut events = std::pin::pin!(events.take_until(ctx.shutdown_signal()));
        // A relist (Init .. InitDone) replaces everything known of K.
        let mut relisted: Option<Vec<(Key, Seen)>> = None;
        while let Some(event) = events.next().await {
            let event = match event {
                Ok(event) => event,
                Err(e) => {
                    tracing::warn!(kind = kind_name::<K>(), error = %e, "child index watch failed, retrying");
                    continue;
                }
            };
            match event {
                watcher::Event::Init => relisted = Some(Vec::new()),
                watcher::Event::InitApply(obj) => {
                    relisted.get_or_insert_with(Vec::new).extend(entry(&obj))
                }
                watcher::Event::InitDone => {
                    self.relisted(kind_name::<K>(), relisted.take().unwrap_or_default())
                }
                watcher::Event::Apply(obj) => {
                    if let Some((key, seen)) = entry(&obj) {
                        self.applied_event(key, seen);
                    }
                }
                watcher::Event::Delete(obj) => {
                    if let Some((key, _)) = entry(&obj) {
                        self.deleted_event(&key);
                    }
                }
            }
        }
    }

    /// A child was created or changed.
    fn applied_event(&self, key: Key, seen: Seen) {
        let mut state = self.lock();
        if let Some(applied) = state.applied.get_mut(&key) {
            // Events come in resourceVersion order: ours clears what came before it, a later one is someone
            // else's change, an earlier one was overwritten by ours.
            if seen.resource_version == applied.resource_version {
                applied.dirty = false;
            } else if newer(&seen.resource_version, &applied.resource_version) {
                applied.dirty = true;
            }
        }
        state.seen.insert(key, seen);
    }

    /// A child is gone.
    fn deleted_event(&self, key: &Key) {
        let mut state = self.lock();
        state.seen.remove(key);
        state.applied.remove(key);
    }

    /// A relist of `kind` (after a watch could not resume) replaces everything known of it.
    fn relisted(&self, kind: &'static str, fresh: Vec<(Key, Seen)>) {
        let mut state = self.lock();
        state.seen.retain(|k, _| k.kind != kind);
        state.seen.extend(fresh);
        // Events may have been missed: whatever is newer than what was applied is suspect, whatever is gone is
        // forgotten.
        let State { seen, applied, .. } = &mut *state;
        applied.retain(|k, a| {
            if k.kind != kind {
                return true;
            }
            let Some(now) = seen.get(k) else { return false };
            a.dirty |= newer(&now.resource_version, &a.resource_version);
            true
        });
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

fn entry<K: Resource<DynamicType = ()>>(obj: &PartialObjectMeta<K>) -> Option<(Key, Seen)> {
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
        }
    }

    fn key() -> Key {
        Key::of::<ConfigMap>("ns", "cm")
    }

    #[test]
    fn an_applied_child_is_current_until_someone_else_changes_it() {
        let index = ChildIndex::default();
        assert!(!index.is_current(&key(), 1), "never applied");
        index.record_applied(key(), 1, Some("10".into()));
        assert!(index.is_current(&key(), 1), "before its own event arrives");
        assert!(!index.is_current(&key(), 2), "other content");
        index.applied_event(key(), seen("9"));
        assert!(
            index.is_current(&key(), 1),
            "an older event was overwritten by the apply"
        );
        index.applied_event(key(), seen("10"));
        assert!(index.is_current(&key(), 1), "its own event");
        index.applied_event(key(), seen("11"));
        assert!(
            !index.is_current(&key(), 1),
            "a later change by someone else"
        );
        index.record_applied(key(), 1, Some("12".into()));
        assert!(index.is_current(&key(), 1), "applied again");
    }

    #[test]
    fn an_apply_recorded_after_a_newer_event_is_dirty() {
        let index = ChildIndex::default();
        index.applied_event(key(), seen("11"));
        index.record_applied(key(), 1, Some("10".into()));
        assert!(!index.is_current(&key(), 1));
    }

    #[test]
    fn deletion_and_relist_forget_what_is_gone() {
        let index = ChildIndex::default();
        index.record_applied(key(), 1, Some("10".into()));
        index.applied_event(key(), seen("10"));
        assert_eq!(index.controller_uid(&key()), Some(Some("owner".into())));
        index.deleted_event(&key());
        assert!(!index.is_current(&key(), 1) && !index.exists(&key()));

        index.record_applied(key(), 1, Some("20".into()));
        index.applied_event(key(), seen("20"));
        index.relisted(kind_name::<ConfigMap>(), vec![(key(), seen("25"))]);
        assert!(
            !index.is_current(&key(), 1),
            "changed while the watch was down"
        );
        index.relisted(kind_name::<ConfigMap>(), vec![]);
        assert!(!index.exists(&key()));
    }

    #[test]
    fn a_written_status_is_remembered() {
        let index = ChildIndex::default();
        assert!(!index.status_written(&key(), 7));
        index.record_status(key(), 7);
        assert!(index.status_written(&key(), 7) && !index.status_written(&key(), 8));
    }
}
