//! Building a `kube::Api` for a kind whose scope is only known through its `Resource::Scope` type.
//!
//! `Api::namespaced` demands `Scope = NamespaceResourceScope` at the call site, which generic code
//! (informers, listers, the factory) cannot promise. This trait moves that decision into one impl
//! per scope, so generic code can say "namespace this if the kind is namespaced".

use k8s_openapi::{ClusterResourceScope, NamespaceResourceScope};
use kube::{Api, Client, Resource};

/// Implemented for kube's two static scopes.
pub trait KindScope: Sized {
    /// Whether objects of this scope live in a namespace.
    const NAMESPACED: bool;

    /// An `Api` limited to `namespace` when the kind is namespaced and one is given; otherwise
    /// the cluster-wide (all namespaces) `Api`.
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
