//! Active-active sharding: the objects of a sharded controller ([`crate::ControllerBuilder::sharded`]) are split
//! across the replicas of a manager run with `--sharded`, so each replica reconciles, and caches, only its share.
//!
//! Contract: (filled in as the mechanism lands)

pub mod ring;

/// The label every shard Lease of a ring carries: `shard.rkb.dev/ring=<ring>`.
pub const RING_LABEL: &str = "shard.rkb.dev/ring";

/// The label that records which replica of `ring` an object (and its children) is assigned to:
/// `shard.rkb.dev/<ring>: <identity>`.
pub fn shard_label(ring: &str) -> String {
    format!("shard.rkb.dev/{ring}")
}

/// The label with which the sharder asks an object's replica to give the object up: `drain.rkb.dev/<ring>: "true"`.
pub fn drain_label(ring: &str) -> String {
    format!("drain.rkb.dev/{ring}")
}
