//! Listers: read-only views of an informer's cache, client-go style. Reads never reach the API
//! server; they see what the informer has seen (check `has_synced` before trusting them).

mod selector;

use std::sync::Arc;

use k8s_openapi::{ClusterResourceScope, NamespaceResourceScope};
use kube::core::{Selector, SelectorExt};
use kube::runtime::reflector::{ObjectRef, Store};
use kube::{Resource, ResourceExt};

pub use selector::{SelectorError, parse_selector};

/// All cached objects of one kind. Results come in no particular order.
pub struct Lister<K: 'static + Resource<DynamicType = ()> + Clone> {
    store: Store<K>,
}

impl<K: Resource<DynamicType = ()> + Clone> Clone for Lister<K> {
    fn clone(&self) -> Self {
        Lister {
            store: self.store.clone(),
        }
    }
}

impl<K: Resource<DynamicType = ()> + Clone> Lister<K> {
    /// A lister over a reflector store (an informer hands these out).
    pub fn new(store: Store<K>) -> Self {
        Lister { store }
    }

    /// Objects whose labels match `selector`, across all namespaces.
    pub fn list(&self, selector: &Selector) -> Vec<Arc<K>> {
        self.store.state_filter(|o| selector.matches(o.labels()))
    }

    /// Every cached object.
    pub fn list_all(&self) -> Vec<Arc<K>> {
        self.store.state()
    }

    /// How many objects are cached.
    pub fn len(&self) -> usize {
        self.store.len()
    }

    /// Whether the cache is empty.
    pub fn is_empty(&self) -> bool {
        self.store.is_empty()
    }

    /// The underlying reflector store.
    pub fn store(&self) -> &Store<K> {
        &self.store
    }
}

impl<K: Resource<DynamicType = (), Scope = ClusterResourceScope> + Clone> Lister<K> {
    /// The cached object called `name`.
    pub fn get(&self, name: &str) -> Option<Arc<K>> {
        self.store.get(&ObjectRef::new(name))
    }
}

impl<K: Resource<DynamicType = (), Scope = NamespaceResourceScope> + Clone> Lister<K> {
    /// The view of one namespace.
    pub fn namespace(&self, namespace: &str) -> NamespaceLister<K> {
        NamespaceLister {
            store: self.store.clone(),
            namespace: namespace.to_string(),
        }
    }
}

/// The cached objects of one namespace.
pub struct NamespaceLister<K: 'static + Resource<DynamicType = ()> + Clone> {
    store: Store<K>,
    namespace: String,
}

impl<K: Resource<DynamicType = (), Scope = NamespaceResourceScope> + Clone> NamespaceLister<K> {
    /// Objects of this namespace whose labels match `selector`.
    pub fn list(&self, selector: &Selector) -> Vec<Arc<K>> {
        self.store.state_filter(|o| {
            o.meta().namespace.as_deref() == Some(self.namespace.as_str())
                && selector.matches(o.labels())
        })
    }

    /// The cached object `name` of this namespace.
    pub fn get(&self, name: &str) -> Option<Arc<K>> {
        self.store
            .get(&ObjectRef::new(name).within(&self.namespace))
    }

    /// The namespace this view covers.
    pub fn namespace(&self) -> &str {
        &self.namespace
    }
}
