//! The rkb_shard_* families of a sharded manager (see the `shard` module): what each replica holds, how many members
//! the ring has, and how objects move between them.

use prometheus_client::encoding::EncodeLabelSet;
use prometheus_client::metrics::counter::Counter;
use prometheus_client::metrics::family::Family;
use prometheus_client::metrics::gauge::Gauge;
use prometheus_client::registry::Registry;

/// `{ring}` labels.
#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
pub struct RingLabels {
    /// The shard ring (the manager's name or leader election id).
    pub ring: String,
}

/// `{ring, shard}` labels of `rkb_shard_objects`.
#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
pub struct ShardLabels {
    /// The shard ring.
    pub ring: String,
    /// This replica's identity in the ring.
    pub shard: String,
}

/// `{ring, reason}` labels of `rkb_shard_moves_total`.
#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
pub struct MoveLabels {
    /// The shard ring.
    pub ring: String,
    /// "drain" (its member gave it up when asked) or "dead" (its member's Lease had expired or was released).
    pub reason: String,
}

/// The rkb_shard_* families.
#[derive(Clone, Debug)]
pub(crate) struct ShardMetrics {
    objects: Family<ShardLabels, Gauge>,
    members: Family<RingLabels, Gauge>,
    moves: Family<MoveLabels, Counter>,
    drains: Family<RingLabels, Counter>,
}

impl ShardMetrics {
    /// The families, registered in `registry` (nothing is exported until a sharded manager records).
    pub(crate) fn new(registry: &mut Registry) -> Self {
        let metrics = Self {
            objects: Family::default(),
            members: Family::default(),
            moves: Family::default(),
            drains: Family::default(),
        };
        registry.register(
            "rkb_shard_objects",
            "Objects of sharded controllers in this replica's shard cache",
            metrics.objects.clone(),
        );
        registry.register(
            "rkb_shard_members",
            "Members of the shard ring whose Lease is held, as the sharder sees them",
            metrics.members.clone(),
        );
        // Counters get their `_total` suffix from the encoder.
        registry.register(
            "rkb_shard_moves",
            "Objects the sharder assigned to another member, by reason (drain: handed over; dead: its member's Lease had expired)",
            metrics.moves.clone(),
        );
        registry.register(
            "rkb_shard_drains",
            "Drain requests the sharder made (an object asked to leave its member)",
            metrics.drains.clone(),
        );
        metrics
    }

    /// Adds `delta` to the objects this replica caches (several sharded controllers add up).
    pub(crate) fn add_objects(&self, ring: &str, shard: &str, delta: i64) {
        self.objects
            .get_or_create(&ShardLabels {
                ring: ring.to_string(),
                shard: shard.to_string(),
            })
            .inc_by(delta);
    }

    /// Sets the members the sharder sees.
    pub(crate) fn set_members(&self, ring: &str, members: usize) {
        self.members
            .get_or_create(&RingLabels {
                ring: ring.to_string(),
            })
            .set(i64::try_from(members).unwrap_or(i64::MAX));
    }

    /// Counts one object moved for `reason` ("drain" or "dead").
    pub(crate) fn count_move(&self, ring: &str, reason: &str) {
        self.moves
            .get_or_create(&MoveLabels {
                ring: ring.to_string(),
                reason: reason.to_string(),
            })
            .inc();
    }

    /// Counts one drain request.
    pub(crate) fn count_drain(&self, ring: &str) {
        self.drains
            .get_or_create(&RingLabels {
                ring: ring.to_string(),
            })
            .inc();
    }
}
