//! API groups and versions of the shard probe.

pub mod v1;
