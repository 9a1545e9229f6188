//! Predicates: which watch events of a kind reach a controller's queue (controller-runtime's `predicate`
//! package). A [`Predicate`] is given per watched kind: the primary kind with
//! [`ControllerBuilder::with_predicate`](crate::ControllerBuilder::with_predicate) (controller-runtime's
//! `For(obj, builder.WithPredicates(p))`), an owned kind with
//! [`ControllerBuilder::owns_with`](crate::ControllerBuilder::owns_with) (`Owns(obj, WithPredicates(p))`), a mapped
//! kind with [`ControllerBuilder::watches_with`](crate::ControllerBuilder::watches_with) (`Watches(obj, handler,
//! WithPredicates(p))`). controller-runtime's `WithEventFilter(p)` (one predicate for every watch) is the same
//! predicate given to each of them: predicates are typed by the kind they look at, so there is one per kind.
//!
//! | controller-runtime                  | rkb                                          |
//! |-------------------------------------|----------------------------------------------|
//! | `GenerationChangedPredicate{}`      | [`Predicate::generation_changed`]            |
//! | `LabelChangedPredicate{}`           | [`Predicate::labels_changed`]                |
//! | `AnnotationChangedPredicate{}`      | [`Predicate::annotations_changed`]           |
//! | `ResourceVersionChangedPredicate{}` | [`Predicate::resource_version_changed`]      |
//! | `predicate.NewPredicateFuncs(f)`    | [`Predicate::filter`]                        |
//! | `predicate.Funcs{UpdateFunc: ...}`  | [`Predicate::changed`] (a value, not a pair) |
//! | `predicate.And(a, b)`, `Or`, `Not`  | `a.and(b)`, `a.or(b)`, `a.not()` (or `&`, `\|`, `!`) |
//!
//! ```no_run
//! use k8s_openapi::api::apps::v1::Deployment;
//! use k8s_openapi::api::core::v1::ConfigMap;
//! use rkb_runtime::{Context, Controller, Predicate, ResourceExt};
//! # async fn reconcile(_: std::sync::Arc<Deployment>, _: Context)
//! #     -> Result<rkb_runtime::Action, rkb_runtime::BoxError> { Ok(rkb_runtime::Action::await_change()) }
//!
//! async fn controller(ctx: Context) -> Result<(), rkb_runtime::Error> {
//!     // Spec changes of the Deployment, or a change of its labels; not its status.
//!     let spec_or_labels = Predicate::generation_changed() | Predicate::labels_changed();
//!     // ConfigMaps the operator marked, on a change of anything but their annotations.
//!     let marked = Predicate::filter(|cm: &ConfigMap| cm.labels().contains_key("app.example.com/config"))
//!         & Predicate::resource_version_changed()
//!         & !Predicate::annotations_changed();
//!     Controller::for_kind::<Deployment>(&ctx)
//!         .with_predicate(spec_or_labels)
//!         .owns_with::<ConfigMap>(Predicate::generation_changed())
//!         .watches_with(marked, |cm: ConfigMap| {
//!             let deployment = cm.labels().get("app.example.com/config").cloned().unwrap_or_default();
//!             Some(rkb_runtime::ObjectRef::new(&deployment).within(&cm.namespace().unwrap_or_default()))
//!         })
//!         .run(reconcile)
//!         .await
//! }
//! ```
//!
//! What an event is, and where rkb differs. kube-rs's watch events carry the new object only (`Apply`), never the
//! old one that controller-runtime's `UpdateEvent` holds beside it. So a "changed" predicate remembers, per object
//! (by namespace/name), a 64-bit hash of the value it compares (the generation, the labels, ...): an object it has
//! no memory of is a create and passes, as controller-runtime's predicates pass creates; an object whose value
//! hashes as before is an update that changed nothing the predicate looks at and is dropped; a deletion passes
//! and forgets the object. The cost is one map entry per object of the watched kind and per "changed" predicate
//! (the key and 8 bytes), kept only for kinds that have one; a relist (after a 410 or an outage) forgets the
//! objects it did not list, so objects deleted while the watch was down do not stay in memory. After a restart
//! the memory is empty, so every object passes once, as the initial list's creates do in controller-runtime.
//!
//! Composition evaluates every part on every event (no short-circuit), so each "changed" part's memory follows
//! every event and `a.or(b)` never compares against a value older than the last event. `Not` negates creates and
//! deletions too, as controller-runtime's `Not` does.
//!
//! What predicates do not filter: the primary kind's cache (a reconcile always reads the latest object; a
//! predicate decides only whether the event queues a reconcile), requests from
//! [`reconciles_on`](crate::ControllerBuilder::reconciles_on) (controller-runtime's generic events carry no
//! object), requeues a reconcile asked for, and the owner requests of a child index. Owned kinds are watched
//! metadata-only, so their predicates are on `PartialObjectMeta<C>`: the built-in ones work as they are, a
//! [`Predicate::filter`] sees the metadata.

use std::collections::{HashMap, HashSet};
use std::hash::{DefaultHasher, Hash, Hasher};
use std::sync::Arc;

use futures::{Stream, StreamExt};
use kube::Resource;
use kube::runtime::watcher::{self, Event};

type Filter<K> = Arc<dyn Fn(&K) -> bool + Send + Sync>;
type Fingerprint<K> = Arc<dyn Fn(&K) -> u64 + Send + Sync>;

/// Which events of kind `K` queue a reconcile: a filter on the object, a "changed" test, or a composition (module
/// docs). Cheap to clone; each watch it is given to keeps its own memory.
pub struct Predicate<K> {
    node: Node<K>,
}

enum Node<K> {
    Filter(Filter<K>),
    Changed(Fingerprint<K>),
    All(Vec<Predicate<K>>),
    Any(Vec<Predicate<K>>),
    Not(Box<Predicate<K>>),
}

impl<K> Clone for Predicate<K> {
    fn clone(&self) -> Self {
        let node = match &self.node {
            Node::Filter(f) => Node::Filter(f.clone()),
            Node::Changed(f) => Node::Changed(f.clone()),
            Node::All(parts) => Node::All(parts.clone()),
            Node::Any(parts) => Node::Any(parts.clone()),
            Node::Not(part) => Node::Not(part.clone()),
        };
        Self { node }
    }
}

impl<K> std::fmt::Debug for Predicate<K> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match &self.node {
            Node::Filter(_) => f.write_str("Filter"),
            Node::Changed(_) => f.write_str("Changed"),
            Node::All(parts) => f.debug_tuple("And").field(parts).finish(),
            Node::Any(parts) => f.debug_tuple("Or").field(parts).finish(),
            Node::Not(part) => f.debug_tuple("Not").field(part).finish(),
        }
    }
}

fn hash_of(value: impl Hash) -> u64 {
    let mut hasher = DefaultHasher::new();
    value.hash(&mut hasher);
    hasher.finish()
}

impl<K: Resource + 'static> Predicate<K> {
    /// Passes an update only when `metadata.generation` changed: spec changes, not status-only or metadata-only
    /// writes (controller-runtime's GenerationChangedPredicate). Kinds without a generation (ConfigMaps) never
    /// change it: only their creates and deletions pass.
    pub fn generation_changed() -> Self {
        Self::changed_hash(|obj: &K| hash_of(obj.meta().generation))
    }

    /// Passes an update only when the labels changed (LabelChangedPredicate). No labels and an empty map are the
    /// same.
    pub fn labels_changed() -> Self {
        Self::changed_hash(|obj: &K| hash_of(non_empty(&obj.meta().labels)))
    }

    /// Passes an update only when the annotations changed (AnnotationChangedPredicate).
    pub fn annotations_changed() -> Self {
        Self::changed_hash(|obj: &K| hash_of(non_empty(&obj.meta().annotations)))
    }

    /// Passes an update only when `metadata.resourceVersion` changed (ResourceVersionChangedPredicate): drops the
    /// events of a relist that bring nothing new.
    pub fn resource_version_changed() -> Self {
        Self::changed_hash(|obj: &K| hash_of(&obj.meta().resource_version))
    }
}

fn non_empty<T: Default + PartialEq>(map: &Option<T>) -> Option<&T> {
    map.as_ref().filter(|map| **map != T::default())
}

impl<K: 'static> Predicate<K> {
    /// Passes the events whose object `keep` accepts, creates, updates and deletions alike
    /// (`predicate.NewPredicateFuncs`).
    pub fn filter(keep: impl Fn(&K) -> bool + Send + Sync + 'static) -> Self {
        Self {
            node: Node::Filter(Arc::new(keep)),
        }
    }

    /// Passes an update only when the value `of` returns for the object changed (compared by hash, module docs);
    /// creates and deletions pass. The built-in "changed" predicates are this with a metadata field.
    pub fn changed<V: Hash>(of: impl Fn(&K) -> V + Send + Sync + 'static) -> Self {
        Self::changed_hash(move |obj: &K| hash_of(of(obj)))
    }

    fn changed_hash(fingerprint: impl Fn(&K) -> u64 + Send + Sync + 'static) -> Self {
        Self {
            node: Node::Changed(Arc::new(fingerprint)),
        }
    }

    /// Passes what both pass (`predicate.And`).
    pub fn and(self, other: Self) -> Self {
        Self {
            node: Node::All(vec![self, other]),
        }
    }

    /// Passes what either passes (`predicate.Or`).
    pub fn or(self, other: Self) -> Self {
        Self {
            node: Node::Any(vec![self, other]),
        }
    }

    /// Passes what this one drops (`predicate.Not`).
    #[allow(clippy::should_implement_trait)] // `!p` works too (std::ops::Not below); the method reads as Go's.
    pub fn not(self) -> Self {
        Self {
            node: Node::Not(Box::new(self)),
        }
    }

    /// This predicate with a fresh memory for each "changed" part, for one watch.
    fn arm(&self) -> Armed<K> {
        match &self.node {
            Node::Filter(keep) => Armed::Filter(keep.clone()),
            Node::Changed(fingerprint) => Armed::Changed {
                fingerprint: fingerprint.clone(),
                last: HashMap::new(),
            },
            Node::All(parts) => Armed::All(parts.iter().map(Self::arm).collect()),
            Node::Any(parts) => Armed::Any(parts.iter().map(Self::arm).collect()),
            Node::Not(part) => Armed::Not(Box::new(part.arm())),
        }
    }
}

impl<K: 'static> std::ops::BitAnd for Predicate<K> {
    type Output = Self;
    fn bitand(self, other: Self) -> Self {
        self.and(other)
    }
}

impl<K: 'static> std::ops::BitOr for Predicate<K> {
    type Output = Self;
    fn bitor(self, other: Self) -> Self {
        self.or(other)
    }
}

impl<K: 'static> std::ops::Not for Predicate<K> {
    type Output = Self;
    fn not(self) -> Self {
        Predicate::not(self)
    }
}

/// A predicate with its memory, owned by one watch's stream.
enum Armed<K> {
    Filter(Filter<K>),
    Changed {
        fingerprint: Fingerprint<K>,
        /// The hash last seen of each object, by namespace/name.
        last: HashMap<String, u64>,
    },
    All(Vec<Armed<K>>),
    Any(Vec<Armed<K>>),
    Not(Box<Armed<K>>),
}

impl<K> Armed<K> {
    /// Whether the object `key` names, seen created or updated as `obj`, passes; every part remembers it.
    fn observed(&mut self, key: &str, obj: &K) -> bool {
        match self {
            Self::Filter(keep) => keep(obj),
            Self::Changed { fingerprint, last } => {
                let now = fingerprint(obj);
                match last.get_mut(key) {
                    Some(before) => std::mem::replace(before, now) != now,
                    None => {
                        last.insert(key.to_owned(), now);
                        true
                    }
                }
            }
            Self::All(parts) => parts
                .iter_mut()
                .fold(true, |all, p| p.observed(key, obj) & all),
            Self::Any(parts) => parts
                .iter_mut()
                .fold(false, |any, p| p.observed(key, obj) | any),
            Self::Not(part) => !part.observed(key, obj),
        }
    }

    /// Whether the deletion of `obj` passes; every part forgets it.
    fn deleted(&mut self, key: &str, obj: &K) -> bool {
        match self {
            Self::Filter(keep) => keep(obj),
            Self::Changed { last, .. } => {
                last.remove(key);
                true
            }
            Self::All(parts) => parts
                .iter_mut()
                .fold(true, |all, p| p.deleted(key, obj) & all),
            Self::Any(parts) => parts
                .iter_mut()
                .fold(false, |any, p| p.deleted(key, obj) | any),
            Self::Not(part) => !part.deleted(key, obj),
        }
    }

    /// Forgets every object a relist did not list.
    fn keep_only(&mut self, listed: &HashSet<String>) {
        match self {
            Self::Filter(_) => {}
            Self::Changed { last, .. } => last.retain(|key, _| listed.contains(key)),
            Self::All(parts) | Self::Any(parts) => {
                parts.iter_mut().for_each(|p| p.keep_only(listed))
            }
            Self::Not(part) => part.keep_only(listed),
        }
    }
}

/// The watch events `events` with those `predicate` drops taken out (Init, InitDone and errors always pass: the
/// caller's cache or trigger needs them).
pub(crate) fn filtered<K, S>(
    events: S,
    predicate: &Predicate<K>,
) -> impl Stream<Item = Result<Event<K>, watcher::Error>> + Send + 'static
where
    K: Resource + Send + 'static,
    S: Stream<Item = Result<Event<K>, watcher::Error>> + Send + 'static,
{
    let mut armed = predicate.arm();
    // The objects listed since the last Init, while a list runs.
    let mut listing: Option<HashSet<String>> = None;
    events.filter_map(move |event| {
        let pass = match &event {
            Ok(Event::Init) => {
                listing = Some(HashSet::new());
                true
            }
            Ok(Event::InitApply(obj)) => {
                let key = key_of(obj);
                let pass = armed.observed(&key, obj);
                listing.get_or_insert_default().insert(key);
                pass
            }
            Ok(Event::InitDone) => {
                if let Some(listed) = listing.take() {
                    armed.keep_only(&listed);
                }
                true
            }
            Ok(Event::Apply(obj)) => armed.observed(&key_of(obj), obj),
            Ok(Event::Delete(obj)) => armed.deleted(&key_of(obj), obj),
            Err(_) => true,
        };
        futures::future::ready(pass.then_some(event))
    })
}

/// namespace/name, the key of each object's memory.
fn key_of<K: Resource>(obj: &K) -> String {
    let meta = obj.meta();
    format!(
        "{}/{}",
        meta.namespace.as_deref().unwrap_or(""),
        meta.name.as_deref().unwrap_or("")
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use k8s_openapi::api::core::v1::ConfigMap;
    use kube::api::ObjectMeta;

    fn cm(name: &str, generation: i64, label: &str) -> ConfigMap {
        ConfigMap {
            metadata: ObjectMeta {
                name: Some(name.into()),
                namespace: Some("default".into()),
                generation: Some(generation),
                labels: Some([("app".to_string(), label.to_string())].into()),
                ..ObjectMeta::default()
            },
            ..ConfigMap::default()
        }
    }

    /// Which of `events` pass `predicate`, by their position (carried in an annotation no predicate here reads).
    fn passing(predicate: Predicate<ConfigMap>, events: Vec<Event<ConfigMap>>) -> Vec<usize> {
        let numbered = events.into_iter().enumerate().map(|(i, mut event)| {
            if let Event::Apply(o) | Event::InitApply(o) | Event::Delete(o) = &mut event {
                o.metadata.annotations = Some([("i".to_string(), i.to_string())].into());
            }
            Ok(event)
        });
        let out: Vec<_> = futures::executor::block_on(
            filtered(futures::stream::iter(numbered), &predicate).collect(),
        );
        out.into_iter()
            .filter_map(|event| match event.unwrap() {
                Event::Apply(o) | Event::InitApply(o) | Event::Delete(o) => {
                    Some(o.metadata.annotations.unwrap()["i"].parse().unwrap())
                }
                Event::Init | Event::InitDone => None,
            })
            .collect()
    }

    #[test]
    fn generation_changed_passes_creates_spec_changes_and_deletes() {
        let events = vec![
            Event::Apply(cm("a", 1, "x")),
            Event::Apply(cm("a", 1, "y")),
            Event::Apply(cm("a", 2, "y")),
            Event::Delete(cm("a", 2, "y")),
            Event::Apply(cm("a", 2, "y")),
        ];
        assert_eq!(
            passing(Predicate::generation_changed(), events),
            [0, 2, 3, 4]
        );
    }

    #[test]
    fn composition_evaluates_every_part() {
        let events = vec![
            Event::Apply(cm("a", 1, "x")),
            Event::Apply(cm("a", 2, "x")),
            Event::Apply(cm("a", 2, "y")),
            Event::Apply(cm("a", 3, "y")),
            Event::Apply(cm("a", 3, "y")),
        ];
        let either = Predicate::generation_changed() | Predicate::labels_changed();
        assert_eq!(passing(either, events.clone()), [0, 1, 2, 3]);
        let both = Predicate::generation_changed() & Predicate::labels_changed();
        assert_eq!(passing(both, events.clone()), [0]);
        let labels_only = Predicate::labels_changed() & !Predicate::generation_changed();
        assert_eq!(passing(labels_only, events.clone()), [2]);
        let named_b = Predicate::filter(|cm: &ConfigMap| cm.metadata.name.as_deref() == Some("b"));
        assert_eq!(passing(named_b, events), Vec::<usize>::new());
    }

    #[test]
    fn a_relist_forgets_what_it_did_not_list() {
        let events = vec![
            Event::Apply(cm("a", 1, "x")),
            Event::Apply(cm("b", 1, "x")),
            Event::Init,
            Event::InitApply(cm("a", 1, "x")),
            Event::InitDone,
            // b was deleted while the watch was down: it is new again.
            Event::Apply(cm("b", 1, "x")),
            Event::Apply(cm("a", 1, "x")),
        ];
        assert_eq!(passing(Predicate::generation_changed(), events), [0, 1, 5]);
    }
}
