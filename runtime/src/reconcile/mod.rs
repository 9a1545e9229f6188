//! What a reconcile calls to change the cluster: server-side apply and owner references ([`apply`]), the child
//! index that spares writes changing nothing ([`child_index`]), status conditions ([`conditions`]) and finalizers
//! ([`finalizer`]). The crate root re-exports each module (`rkb_runtime::apply`, ...); this folder only groups them.

pub mod apply;
pub mod child_index;
pub mod conditions;
pub mod finalizer;
