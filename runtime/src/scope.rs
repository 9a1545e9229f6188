//! Picks `Api::namespaced` or `Api::all` from a kind's compile-time scope, so a controller honours --namespaced
//! for namespaced kinds and still watches cluster-scoped kinds cluster-wide.

use kube::core::{ClusterResourceScope, NamespaceResourceScope};
use kube::{Api, Client, Resource};

/// Implemented for the two scopes a kind can have.
pub trait WatchScope {
    /// An Api limited to `namespace` when the kind is namespaced and a namespace is given; all objects otherwise.
    fn api<K>(client: Client, namespace: Option<&str>) -> Api<K>
    where
        K: Resource<Scope = Self, DynamicType = ()>;

    /// Whether kinds of this scope live in namespaces.
    fn namespaced() -> bool;
}

impl WatchScope for NamespaceResourceScope {
    fn api<K>(client: Client, namespace: Option<&str>) -> Api<K>
    where
        K: Resource<Scope = Self, DynamicType = ()>,
    {
        match namespace {
            Some(ns) => Api::namespaced(client, ns),
            None => Api::all(client),
        }
    }

    fn namespaced() -> bool {
        true
    }
}

impl WatchScope for ClusterResourceScope {
    fn api<K>(client: Client, _namespace: Option<&str>) -> Api<K>
    where
        K: Resource<Scope = Self, DynamicType = ()>,
    {
        Api::all(client)
    }

    fn namespaced() -> bool {
        false
    }
}
