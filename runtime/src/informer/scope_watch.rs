//! The watches of one kind over the manager's watch scope: one watch per watched namespace (WATCH_NAMESPACE's list
//! under --namespaced, as controller-runtime's cache runs one informer per DefaultNamespaces entry), or the one
//! cluster-wide watch; each getting its initial state as initial_list.rs says (a streaming list where the server
//! supports one) and retried as watch_retry.rs says.
//!
//! Contract of [`Watches::for_cache`], which feeds one reflector store from several namespaces' watches. kube's store
//! replaces its whole content at each `InitDone`, so the namespaces' raw events cannot simply be interleaved (one
//! namespace's relist would empty the others'). Instead:
//! - until every namespace has listed once, their objects are gathered here (later events of a namespace that has
//!   listed update them), then handed over as one list: `Init`, each object, `InitDone`. The store is ready, and
//!   the controller starts, once every namespace is in it, as with a single namespace;
//! - afterwards a namespace's relist (after a 410 or an outage) becomes events of that namespace only: each listed
//!   object is an `Apply`, and at its end each object of that namespace the store holds but the list did not is a
//!   `Delete`. The other namespaces' objects are untouched.
//!
//! With a single watch (all namespaces, one namespace, or a cluster-scoped kind) the events pass unchanged.

use std::collections::{HashMap, HashSet};
use std::fmt::Debug;

use futures::StreamExt;
use futures::stream::{self, BoxStream};
use kube::Resource;
use kube::runtime::WatchStreamExt;
use kube::runtime::reflector::{ObjectRef, Store};
use kube::runtime::watcher::{self, Event};
use serde::de::DeserializeOwned;

use crate::context::Context;
use crate::initial_list::initial_sync;
use crate::scope::KindScope;
use crate::watch_retry::retrying;

/// A watch's events, as kube-runtime's watcher yields them.
pub(crate) type Events<K> = BoxStream<'static, Result<Event<K>, watcher::Error>>;

/// The watches of a kind over the watch scope: one per watched namespace, in the order listed, or one.
pub(crate) struct Watches<K> {
    /// The namespace of each watch; empty for the one watch of all namespaces or of a cluster-scoped kind.
    namespaces: Vec<String>,
    events: Vec<Events<K>>,
}

/// One retrying watch of K per Api of the watch scope ([`Context::apis`]).
pub(crate) fn watches<K>(ctx: &Context, config: &watcher::Config) -> Watches<K>
where
    K: Resource<DynamicType = ()> + Clone + DeserializeOwned + Debug + Send + 'static,
    K::Scope: KindScope,
{
    let apis = ctx.apis::<K>();
    let namespaces = if apis.len() > 1 {
        ctx.namespaces().to_vec()
    } else {
        Vec::new()
    };
    let events = apis
        .into_iter()
        .map(|api| {
            retrying(
                initial_sync(api, config.clone(), ctx.streaming_lists()),
                ctx,
            )
            .boxed()
        })
        .collect();
    Watches { namespaces, events }
}

impl<K> Watches<K>
where
    K: Resource<DynamicType = ()> + Clone + Send + Sync + 'static,
{
    /// Each watch's objects changed by `change` as they arrive (before any merge holds them).
    pub(crate) fn modify(self, change: impl Fn(&mut K) + Clone + Send + 'static) -> Self {
        let events = self
            .events
            .into_iter()
            .map(|events| events.modify(change.clone()).boxed())
            .collect();
        Self { events, ..self }
    }

    /// Each watch's events passed through `adapt` (a predicate's filter, one memory per watch), then
    /// interleaved: for triggers, which read objects one at a time (owned and mapped kinds).
    pub(crate) fn merged(self, adapt: impl Fn(Events<K>) -> Events<K>) -> Events<K> {
        let mut events: Vec<Events<K>> = self.events.into_iter().map(adapt).collect();
        match events.len() {
            1 => events.remove(0),
            _ => stream::select_all(events).boxed(),
        }
    }

    /// The watches' events as one watch of the whole scope, for the reflector whose store is `store` (module
    /// docs).
    pub(crate) fn for_cache(self, store: Store<K>) -> Events<K> {
        let Self {
            namespaces,
            mut events,
        } = self;
        if events.len() == 1 {
            return events.remove(0);
        }
        let mut merge = Merge {
            first_lists: Some(HashMap::new()),
            listed_once: vec![false; events.len()],
            relisting: vec![None; events.len()],
            namespaces,
            store,
        };
        let tagged = events
            .into_iter()
            .enumerate()
            .map(|(i, events)| events.map(move |event| (i, event)).boxed());
        stream::select_all(tagged)
            .flat_map(move |(i, event)| stream::iter(merge.on(i, event)))
            .boxed()
    }
}

/// What [`Watches::for_cache`] tells the store.
type Told<K> = Vec<Result<Event<K>, watcher::Error>>;

/// The state of [`Watches::for_cache`]'s merge.
struct Merge<K: Resource<DynamicType = ()> + 'static> {
    /// Until every namespace has listed once, the objects gathered; None afterwards.
    first_lists: Option<HashMap<ObjectRef<K>, K>>,
    listed_once: Vec<bool>,
    /// After the first lists, the names each namespace's relist in progress has listed so far.
    relisting: Vec<Option<HashSet<String>>>,
    /// The namespace of each watch.
    namespaces: Vec<String>,
    store: Store<K>,
}

impl<K: Resource<DynamicType = ()> + Clone + 'static> Merge<K> {
    /// What the store is told of event `event` of watch `i`.
    fn on(&mut self, i: usize, event: Result<Event<K>, watcher::Error>) -> Told<K> {
        match event {
            Err(e) => vec![Err(e)],
            Ok(event) if self.first_lists.is_some() => self.before_hand_over(i, event),
            Ok(event) => self.after_hand_over(i, event),
        }
    }

    /// Gathers watch `i`'s `event`; once every namespace has listed, hands the gathered objects over as one list.
    fn before_hand_over(&mut self, i: usize, event: Event<K>) -> Told<K> {
        let Some(gathered) = &mut self.first_lists else {
            return Vec::new();
        };
        match event {
            // A namespace listing again before the hand-over starts its share over.
            Event::Init => {
                let ns = self.namespaces[i].as_str();
                gathered.retain(|key, _| key.namespace.as_deref() != Some(ns));
            }
            Event::InitApply(obj) | Event::Apply(obj) => {
                gathered.insert(ObjectRef::from_obj(&obj), obj);
            }
            Event::Delete(obj) => {
                gathered.remove(&ObjectRef::from_obj(&obj));
            }
            Event::InitDone => self.listed_once[i] = true,
        }
        if !self.listed_once.iter().all(|listed| *listed) {
            return Vec::new();
        }
        let gathered = self.first_lists.take().unwrap_or_default();
        let objects = gathered.into_values().map(|obj| Ok(Event::InitApply(obj)));
        std::iter::once(Ok(Event::Init))
            .chain(objects)
            .chain(std::iter::once(Ok(Event::InitDone)))
            .collect()
    }

    /// Watch `i`'s `event` as an event of its namespace only (module docs).
    fn after_hand_over(&mut self, i: usize, event: Event<K>) -> Told<K> {
        match event {
            Event::Init => {
                self.relisting[i] = Some(HashSet::new());
                Vec::new()
            }
            Event::InitApply(obj) => {
                if let Some(listed) = &mut self.relisting[i] {
                    listed.insert(obj.meta().name.clone().unwrap_or_default());
                }
                vec![Ok(Event::Apply(obj))]
            }
            Event::InitDone => match self.relisting[i].take() {
                Some(listed) => self.not_relisted(&self.namespaces[i], &listed),
                None => Vec::new(),
            },
            event => vec![Ok(event)],
        }
    }

    /// A `Delete` for each object of `namespace` in the store that its relist did not list (deleted while the
    /// watch was down).
    fn not_relisted(&self, namespace: &str, listed: &HashSet<String>) -> Told<K> {
        self.store
            .state()
            .into_iter()
            .filter(|obj| {
                let meta = obj.meta();
                meta.namespace.as_deref() == Some(namespace)
                    && !listed.contains(meta.name.as_deref().unwrap_or_default())
            })
            .map(|obj| Ok(Event::Delete(K::clone(&obj))))
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use k8s_openapi::api::core::v1::ConfigMap;
    use kube::ResourceExt;
    use kube::api::ObjectMeta;
    use kube::runtime::reflector::store::Writer;

    fn cm(namespace: &str, name: &str) -> ConfigMap {
        ConfigMap {
            metadata: ObjectMeta {
                name: Some(name.into()),
                namespace: Some(namespace.into()),
                ..ObjectMeta::default()
            },
            ..ConfigMap::default()
        }
    }

    /// The store's objects as namespace/name, sorted.
    fn cached(store: &Store<ConfigMap>) -> Vec<String> {
        let mut keys: Vec<String> = store
            .state()
            .iter()
            .map(|obj| format!("{}/{}", obj.namespace().unwrap_or_default(), obj.name_any()))
            .collect();
        keys.sort();
        keys
    }

    #[test]
    fn namespaces_hand_over_one_list_then_relist_alone() {
        let mut writer = Writer::<ConfigMap>::default();
        let store = writer.as_reader();
        let mut merge = Merge {
            first_lists: Some(HashMap::new()),
            listed_once: vec![false; 2],
            relisting: vec![None; 2],
            namespaces: vec!["a".into(), "b".into()],
            store: store.clone(),
        };
        let mut feed = |i: usize, event: Event<ConfigMap>| {
            let told = merge.on(i, Ok(event));
            for event in &told {
                writer.apply_watcher_event(event.as_ref().expect("no errors here"));
            }
            told.len()
        };
        // "a" lists, then changes, while "b" has not listed: nothing reaches the store.
        assert_eq!(feed(0, Event::Init), 0);
        assert_eq!(feed(0, Event::InitApply(cm("a", "x"))), 0);
        assert_eq!(feed(0, Event::InitDone), 0);
        assert_eq!(feed(0, Event::Apply(cm("a", "y"))), 0);
        assert_eq!(feed(1, Event::Init), 0);
        assert_eq!(feed(1, Event::InitApply(cm("b", "z"))), 0);
        assert!(store.is_empty());
        // "b" ends its list: one list of both namespaces (Init, three objects, InitDone).
        assert_eq!(feed(1, Event::InitDone), 5);
        assert_eq!(cached(&store), ["a/x", "a/y", "b/z"]);
        // "b" relists after z was deleted and w created: a's objects stay.
        assert_eq!(feed(1, Event::Init), 0);
        assert_eq!(feed(1, Event::InitApply(cm("b", "w"))), 1);
        assert_eq!(feed(1, Event::InitDone), 1, "z's deletion");
        assert_eq!(cached(&store), ["a/x", "a/y", "b/w"]);
        assert_eq!(feed(0, Event::Delete(cm("a", "x"))), 1);
        assert_eq!(cached(&store), ["a/y", "b/w"]);
    }
}
