//! A kind's scope as a trait, so generic code can build a `kube::Api` for any kind: `Api::namespaced` demands
//! `Scope = NamespaceResourceScope` at the call site, which generic code (controllers, informers, listers, the child
//! index) cannot promise. One impl per scope makes the choice instead.
//!
//! Contract: for a namespaced kind, [`scoped_api`] is limited to the namespace given (the manager's watch namespace
//! under `--namespaced`) and spans all namespaces without one; a cluster-scoped kind's Api is always cluster-wide,
//! whatever namespace is given, so a controller honours `--namespaced` for namespaced kinds and still watches
//! cluster-scoped kinds.

use kube::core::{ClusterResourceScope, NamespaceResourceScope};
use kube::{Api, Client, Resource};

/// Implemented for kube's two static scopes.
pub trait KindScope: Sized {
    /// Whether objects of this scope live in a namespace.
    const NAMESPACED: bool;

    /// An `Api` limited to `namespace` when the kind is namespaced and one is given; otherwise the cluster-wide
    /// (all namespaces) `Api`.
    fn api<K>(client: Client, namespace: Option<&str>) -> Api<K>
    where
        K: Resource<Scope = Self, DynamicType = ()>;
}

impl KindScope for NamespaceResourceScope {
    const NAMESPACED: bool = true;

    fn api<K>(client: Client, namespace: Option<&str>) -> Api<K>
    where
        K: Resource<Scope = Self, DynamicType = ()>,
    {
        match namespace {
            Some(ns) => Api::namespaced(client, ns),
            None => Api::all(client),
        }
    }
}

impl KindScope for ClusterResourceScope {
    const NAMESPACED: bool = false;

    fn api<K>(client: Client, _namespace: Option<&str>) -> Api<K>
    where
        K: Resource<Scope = Self, DynamicType = ()>,
    {
        Api::all(client)
    }
}

/// `Api<K>` for a kind of either static scope; `namespace` is ignored for cluster-scoped kinds.
pub fn scoped_api<K>(client: Client, namespace: Option<&str>) -> Api<K>
where
    K: Resource<DynamicType = ()>,
    K::Scope: KindScope,
{
    <K::Scope as KindScope>::api::<K>(client, namespace)
}

/// Whether `K` is namespaced.
pub fn is_namespaced<K>() -> bool
where
    K: Resource,
    K::Scope: KindScope,
{
    <K::Scope as KindScope>::NAMESPACED
}
