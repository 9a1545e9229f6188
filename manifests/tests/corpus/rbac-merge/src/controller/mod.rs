//! Overlapping RBAC rules are merged like controller-gen merges them.

mod a;
mod b;
