//! Active-active sharding: the objects of a sharded controller ([`crate::ControllerBuilder::sharded`]) are split
//! across the replicas of a manager run with `--sharded`, so each replica reconciles, and caches, only its share.
//! Built on Kubernetes' own primitives only: Leases for membership, labels for assignment, label selectors for the
//! watches, optimistic writes for the handshake. The design follows timebertt's kubernetes-controller-sharding
//! (membership Leases, a sharder, shard and drain labels); unlike it, assignment is done by the leader-elected
//! sharder alone (no mutating webhook at create, so no webhook to deploy; a new object waits for one sharder pass).
//!
//! Contract:
//! - **Membership** ([`membership`]): every replica holds its own Lease `<ring>-shard-<identity>` (the ring is
//!   `--leader-election-id`, else the manager's name; in the leader election namespace; label
//!   `shard.rkb.dev/ring=<ring>`), renewed every 2/15 of `--shard-lease-duration`. A member is available while the
//!   Lease's renewTime plus leaseDurationSeconds is later than the sharder's clock. A replica whose renewals fail for
//!   2/3 of the lease duration starts no sharded reconcile any more and stops (`Error::ShardLeaseLost`), as a leader
//!   that cannot renew does. A replica shutting down stops its controllers first, then deletes its Lease.
//! - **Assignment** ([`ring`], `sharder.rs`): the leader runs one sharder per sharded kind. It assigns each object by
//!   consistent hashing of `namespace/name` over the available members (FNV-1a 64, 256 points per member) and
//!   records it as the label `shard.rkb.dev/<ring>: <identity>`. Children take their owner's label: the apply
//!   helpers add it to what a sharded reconcile applies (objects of other kinds than the sharded one; not in tasks
//!   the reconcile spawns: `labels_for_child`), and [`shard_labels`] gives it to code that writes children
//!   otherwise.
//! - **Caches**: a sharded controller's watches of its own kind and of owned kinds (`owns`, `owns_indexed`) add the
//!   selector `shard.rkb.dev/<ring>=<identity>`, so each replica caches its own objects and their children only.
//!   Mapped watches (`watches`) are not narrowed: they name other kinds, which have no shard.
//! - **Movement** ([`gate`]): when the ring changes and an object's member is still available, the sharder adds
//!   `drain.rkb.dev/<ring>: "true"`; the member, in the object's reconcile path (serialised with its reconciles by
//!   the controller's queue, and let through any predicate), does not call the reconciler but removes both labels,
//!   conditionally on the labels it read, and refuses the stale copies still in its cache; then the sharder assigns
//!   the object to its new member. An object whose member is not available (its Lease expired or was deleted) is
//!   assigned again directly. Label writes are conditional on the labels read, so decisions made on an old view
//!   fail and are made again.
//! - **Guarantee**: no object is reconciled by two replicas at once, given lease timings as leader election assumes
//!   them: a drained object is handed over only after its member's reconciles of it ended; a dead member's objects
//!   move only after its Lease expired on the sharder's clock, by which time the member (whose term ended at 2/3 of
//!   the lease duration on its own clock) starts nothing, and its running reconciles are assumed to have ended.
//! - **Time to move**: a join or a graceful leave: one sharder pass plus the member's current reconcile of the
//!   object; a killed replica: the lease duration plus one pass and one reconcile.
//! - **Caveats**: clocks: renewTime is written by the member and read against the sharder's clock, so skew between
//!   them shortens or lengthens the wait for a dead member (keep node clocks in sync, as leader election's
//!   renewTime readers also assume). The sharder caches the metadata (only) of every object of each sharded kind,
//!   on the leader. Work a reconcile started in tasks of its own is not waited for. Not sharded: controllers without
//!   `.sharded()` (they run on the leader), webhooks (every replica serves them), the sharder itself (the leader).
//!   `--sharded` without `--leader-elect` makes every replica run a sharder: run one replica so, or elect a leader.
//! - **RBAC**: `leases` get/list/watch/create/update/patch/delete in the leader election namespace; `patch` (and
//!   list/watch, which the controller has) on each sharded kind.
//! - **Metrics**: `rkb_shard_objects{ring,shard}` (objects in this replica's shard caches), `rkb_shard_members{ring}`,
//!   `rkb_shard_moves_total{ring,reason}` (reason "drain" or "dead"), `rkb_shard_drains_total{ring}` (the last three
//!   on the leader).

use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;

pub mod gate;
pub mod membership;
pub mod ring;
pub(crate) mod sharder;

/// The label every shard Lease of a ring carries: `shard.rkb.dev/ring=<ring>`.
pub const RING_LABEL: &str = "shard.rkb.dev/ring";

/// The label that records which replica of `ring` an object (and its children) is assigned to:
/// `shard.rkb.dev/<ring>: <identity>`.
pub fn shard_label(ring: &str) -> String {
    format!("shard.rkb.dev/{ring}")
}

/// The shard labels of an object (`shard.rkb.dev/<ring>`, one per ring it is assigned in), which its children take.
/// Drain requests are not among them: they are the owner's alone. The apply helpers add them by themselves (see
/// `labels_for_child`); a reconcile that writes children otherwise (create, patch) adds these.
pub fn shard_labels(meta: &ObjectMeta) -> Vec<(String, String)> {
    meta.labels
        .iter()
        .flatten()
        .filter(|(key, _)| key.starts_with("shard.rkb.dev/") && key.as_str() != RING_LABEL)
        .map(|(key, value)| (key.clone(), value.clone()))
        .collect()
}

/// Whether `ring` can name a ring: it is the name part of the label key `shard.rkb.dev/<ring>` (at most 63
/// characters, starting and ending with a letter or digit) and begins the Lease names `<ring>-shard-<identity>`
/// (lowercase letters, digits, '-' and '.'), so kubebuilder-style ids (`8ed6a8c3.tutorial.kubebuilder.io`) qualify.
pub fn is_ring_name(ring: &str) -> bool {
    let alphanumeric = |c: char| c.is_ascii_lowercase() || c.is_ascii_digit();
    ring.len() <= 63
        && ring.starts_with(alphanumeric)
        && ring.ends_with(alphanumeric)
        && ring
            .chars()
            .all(|c| alphanumeric(c) || c == '-' || c == '.')
}

/// The label with which the sharder asks an object's replica to give the object up: `drain.rkb.dev/<ring>: "true"`.
pub fn drain_label(ring: &str) -> String {
    format!("drain.rkb.dev/{ring}")
}

/// A label to set (`Some(value)`) or remove (`None`).
pub(crate) type LabelChange = (String, Option<String>);

/// Changes labels of the object `meta` describes (as read from a cache), through `api` (its kind), answered with
/// metadata only. The write is conditional on what was read: a JSON patch that first tests that the object's labels
/// are still those of `meta` (so the other changes of a busy object, its spec or status, do not stand in the way,
/// while a label change made meanwhile by a member or a sharder does); an object read without labels is written
/// with its resourceVersion as the precondition instead. A failed precondition is [`changed_meanwhile`]. Returns the
/// resourceVersion written.
pub(crate) async fn patch_labels<K>(
    api: &kube::Api<K>,
    meta: &ObjectMeta,
    changes: &[LabelChange],
) -> Result<Option<String>, kube::Error>
where
    K: kube::Resource<DynamicType = ()> + Clone + serde::de::DeserializeOwned + std::fmt::Debug,
{
    use serde_json::json;
    let name = meta.name.as_deref().unwrap_or_default();
    let params = kube::api::PatchParams::default();
    let Some(seen) = &meta.labels else {
        let labels: serde_json::Map<String, serde_json::Value> = changes
            .iter()
            .map(|(key, value)| (key.clone(), json!(value)))
            .collect();
        let patch =
            json!({ "metadata": { "resourceVersion": meta.resource_version, "labels": labels } });
        let written = api
            .patch_metadata(name, &params, &kube::api::Patch::Merge(&patch))
            .await?;
        return Ok(written.metadata.resource_version);
    };
    let mut ops = vec![json!({ "op": "test", "path": "/metadata/labels", "value": seen })];
    for (key, value) in changes {
        // JSON Pointer escapes '~' and '/' (every label key here has one).
        let path = format!(
            "/metadata/labels/{}",
            key.replace('~', "~0").replace('/', "~1")
        );
        match value {
            Some(value) => ops.push(json!({ "op": "add", "path": path, "value": value })),
            None if seen.contains_key(key) => ops.push(json!({ "op": "remove", "path": path })),
            None => {}
        }
    }
    let patch: json_patch::Patch =
        serde_json::from_value(serde_json::Value::Array(ops)).map_err(kube::Error::SerdeError)?;
    let written = api
        .patch_metadata(name, &params, &kube::api::Patch::Json::<()>(patch))
        .await?;
    Ok(written.metadata.resource_version)
}

/// Whether a [`patch_labels`] failed because the object changed (its labels: 422 from the JSON patch's test; its
/// resourceVersion: 409) or went (404) since it was read: the caller decides again on a newer copy.
pub(crate) fn changed_meanwhile(error: &kube::Error) -> bool {
    matches!(error, kube::Error::Api(status) if matches!(status.code, 404 | 409 | 422))
}

/// What the apply helpers know of the reconcile they run in: the reconciled object's shard labels and kind.
#[derive(Clone, Debug)]
struct Reconciling {
    labels: Vec<(String, String)>,
    /// (apiVersion, kind) of the reconciled object: objects of that kind are the sharder's to assign.
    kind: (String, String),
}

tokio::task_local! {
    static RECONCILING: Reconciling;
}

/// Runs `reconcile` (a sharded controller's reconcile of the object `meta` of kind K) so that the apply helpers
/// called from its task label what they apply with the object's shard ([`labels_for_child`]).
pub(crate) async fn labelling_children<K, F>(meta: &ObjectMeta, reconcile: F) -> F::Output
where
    K: kube::Resource<DynamicType = ()>,
    F: Future,
{
    let reconciling = Reconciling {
        labels: shard_labels(meta),
        kind: (K::api_version(&()).into_owned(), K::kind(&()).into_owned()),
    };
    RECONCILING.scope(reconciling, reconcile).await
}

/// The shard labels an object of apiVersion `api_version` and kind `kind` applied now takes: the reconciled object's,
/// when this runs inside a sharded controller's reconcile (not in tasks it spawns) and the object is of another kind;
/// none otherwise. Objects of the sharded kind itself (the reconciled one, or others it writes) are placed by the
/// sharder's hash of their own key: labelling them here would move them behind its back, and it would move them back.
pub(crate) fn labels_for_child(api_version: &str, kind: &str) -> Vec<(String, String)> {
    RECONCILING
        .try_with(|r| {
            let own_kind = r.kind.0 == api_version && r.kind.1 == kind;
            if own_kind {
                Vec::new()
            } else {
                r.labels.clone()
            }
        })
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rings_are_label_name_parts_and_lease_name_prefixes() {
        for ring in ["demo-operator", "8ed6a8c3.tutorial.kubebuilder.io", "a"] {
            assert!(is_ring_name(ring), "{ring}");
        }
        for ring in [
            "",
            "Demo",
            "demo_operator",
            "-demo",
            "demo.",
            &"a".repeat(64),
        ] {
            assert!(!is_ring_name(ring), "{ring}");
        }
        assert_eq!(
            shard_label("8ed6a8c3.tutorial.kubebuilder.io"),
            "shard.rkb.dev/8ed6a8c3.tutorial.kubebuilder.io"
        );
    }

    #[test]
    fn children_take_shard_labels_but_not_drain_requests() {
        let meta = ObjectMeta {
            labels: Some(
                [
                    ("shard.rkb.dev/ops", "replica-a"),
                    ("drain.rkb.dev/ops", "true"),
                    ("shard.rkb.dev/ring", "ops"),
                    ("app", "web"),
                ]
                .into_iter()
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect(),
            ),
            ..ObjectMeta::default()
        };
        assert_eq!(
            shard_labels(&meta),
            [("shard.rkb.dev/ops".to_string(), "replica-a".to_string())]
        );
    }
}
