//! The sharder: on the leader, assigns each object of a sharded kind to a member of the ring and moves objects when
//! members come and go.
//!
//! Contract: while this manager leads, [`run`] watches the kind's metadata (every object the controller selects, all
//! replicas' shards) and the ring's Leases, and after each change (debounced) and every retry period (a Lease expires
//! without an event) makes one pass over all objects:
//! - no shard label, or the label names a member that is not available (its Lease expired, or deleted on release):
//!   label it for the member the ring assigns (`rkb_shard_moves_total{reason="dead"}` when it had a member,
//!   `reason="drain"` when it had been drained);
//! - labelled for an available member that is not the one the ring assigns: add the drain label (once;
//!   `rkb_shard_drains_total`); its member removes both labels ([`super::gate`]) and the next pass assigns it;
//! - labelled for the member the ring assigns, with a drain label (the ring changed back): remove the drain label.
//!
//! Every write is conditional on the labels the sharder's cache showed (not on the resourceVersion: a busy object's
//! spec and status changes must not starve its move), so a write based on an old view (the member drained the
//! object meanwhile, or an earlier pass assigned it) fails and the next pass decides again.
//! Leases whose member has been unavailable for another lease duration, with nothing left assigned to them, are
//! deleted, so the identities of replicas that crashed do not pile up.

use std::collections::{BTreeSet, HashSet};
use std::fmt::Debug;
use std::sync::Arc;
use std::time::Duration;

use futures::{FutureExt, StreamExt};
use k8s_openapi::api::coordination::v1::Lease;
use k8s_openapi::jiff::Timestamp;
use kube::api::{DeleteParams, PartialObjectMeta, Preconditions};
use kube::runtime::reflector::{self, Store};
use kube::runtime::{WatchStreamExt, watcher};
use kube::{Api, Resource, ResourceExt};
use serde::de::DeserializeOwned;

use super::gate::label;
use super::membership::{Member, available_member};
use super::ring::Ring;
use crate::context::Context;
use crate::scope::KindScope;
use crate::scope_watch::watches;

/// How long the sharder gathers further events after one before it makes a pass.
const DEBOUNCE: Duration = Duration::from_millis(100);

/// Writes made at once in a pass.
const CONCURRENT_WRITES: usize = 8;

/// Runs the sharder of kind K (the objects `config` selects) whenever this manager leads, until it shuts down.
pub(crate) async fn run<K>(ctx: Context, member: Arc<Member>, config: watcher::Config)
where
    K: Resource<DynamicType = ()> + Clone + DeserializeOwned + Debug + Send + Sync + 'static,
    K::Scope: KindScope,
{
    let mut sharder = Sharder::<K> {
        ctx: ctx.clone(),
        placement: Placement {
            ring: member.ring.clone(),
            drained: HashSet::new(),
        },
        member,
        _kind: std::marker::PhantomData,
    };
    while ctx.wait_for_leadership().await {
        tracing::info!(kind = %K::kind(&()), ring = %sharder.member.ring, "sharder starting");
        tokio::select! {
            () = sharder.lead(&config) => {}
            () = ctx.shutdown_signal() => return,
        }
    }
}

/// One sharder: the kind it shards, the ring it shards across, and what it remembers between passes.
struct Sharder<K> {
    ctx: Context,
    member: Arc<Member>,
    placement: Placement,
    _kind: std::marker::PhantomData<fn() -> K>,
}

/// What the sharder decides for each object, and remembers between passes.
struct Placement {
    ring: String,
    /// Keys this sharder asked to drain, so that their reassignment counts as a move by drain.
    drained: HashSet<String>,
}

impl Placement {
    /// What one object needs, if anything (module docs).
    fn decide(&mut self, meta: &kube::api::ObjectMeta, ring: &Ring) -> Option<Write> {
        let (shard_label, drain_label) = (
            super::shard_label(&self.ring),
            super::drain_label(&self.ring),
        );
        let key = match &meta.namespace {
            Some(ns) => format!("{ns}/{}", meta.name.as_deref().unwrap_or_default()),
            None => meta.name.clone().unwrap_or_default(),
        };
        let desired = ring.assign(&key)?;
        let current = label(meta, &shard_label);
        let draining = label(meta, &drain_label) == Some("true");
        let write = |changes: Vec<super::LabelChange>, counts| Write {
            meta: meta.clone(),
            changes,
            counts,
        };
        match current {
            Some(member) if ring.members().iter().any(|m| m == member) => {
                if member == desired {
                    draining.then(|| write(vec![(drain_label, None)], None))
                } else if draining {
                    None
                } else {
                    self.drained.insert(key);
                    Some(write(
                        vec![(drain_label, Some("true".into()))],
                        Some("request"),
                    ))
                }
            }
            dead_or_none => {
                let counts = if dead_or_none.is_some() {
                    self.drained.remove(&key);
                    Some("dead")
                } else {
                    self.drained.remove(&key).then_some("drain")
                };
                let changes = vec![
                    (shard_label, Some(desired.to_string())),
                    (drain_label, None),
                ];
                Some(write(changes, counts))
            }
        }
    }
}

/// A label write of one pass.
struct Write {
    /// The object as the sharder's cache shows it: the write holds only if its labels are still these.
    meta: kube::api::ObjectMeta,
    changes: Vec<super::LabelChange>,
    /// The metric it counts: a move ("drain" or "dead") or a drain request.
    counts: Option<&'static str>,
}

impl<K> Sharder<K>
where
    K: Resource<DynamicType = ()> + Clone + DeserializeOwned + Debug + Send + Sync + 'static,
    K::Scope: KindScope,
{
    /// Watches, and passes over the objects after each change, while this manager leads.
    async fn lead(&mut self, config: &watcher::Config) {
        let writer = reflector::store::Writer::<PartialObjectMeta<K>>::default();
        let objects = writer.as_reader();
        let events = watches::<PartialObjectMeta<K>>(&self.ctx, config)
            .modify(|obj: &mut PartialObjectMeta<K>| obj.metadata.managed_fields = None)
            .for_cache(objects.clone());
        let mut object_events = reflector::reflector(writer, events).boxed();
        let lease_api: Api<Lease> = Api::namespaced(self.ctx.client(), &self.member.namespace);
        let lease_config = watcher::Config::default().labels(&format!(
            "{}={}",
            super::RING_LABEL,
            self.member.ring
        ));
        let (leases, lease_writer) = reflector::store();
        let mut lease_events = reflector::reflector(
            lease_writer,
            watcher::watcher(lease_api, lease_config).default_backoff(),
        )
        .boxed();
        let tick = self.member.retry_period();
        while self.ctx.is_leader() {
            if is_ready(&objects) && is_ready(&leases) {
                self.pass(&objects, &leases).await;
            }
            tokio::select! {
                Some(_) = object_events.next() => {}
                Some(_) = lease_events.next() => {}
                () = tokio::time::sleep(next_look(&leases, tick)) => continue,
            }
            // More events usually follow the first (a list, a burst of creates): take them in before the pass.
            let gather = tokio::time::sleep(DEBOUNCE);
            tokio::pin!(gather);
            loop {
                tokio::select! {
                    Some(_) = object_events.next() => {}
                    Some(_) = lease_events.next() => {}
                    () = &mut gather => break,
                }
            }
        }
    }

    /// One pass over all objects (module docs).
    async fn pass(&mut self, objects: &Store<PartialObjectMeta<K>>, leases: &Store<Lease>) {
        let now = Timestamp::now();
        let available: BTreeSet<String> = leases
            .state()
            .iter()
            .filter_map(|lease| available_member(lease, now).map(String::from))
            .collect();
        let metrics = self.ctx.metrics().shard().clone();
        metrics.set_members(&self.member.ring, available.len());
        let ring = Ring::new(&available);
        let writes: Vec<Write> = if ring.is_empty() {
            Vec::new()
        } else {
            objects
                .state()
                .iter()
                .filter_map(|obj| self.placement.decide(&obj.metadata, &ring))
                .collect()
        };
        let still_assigned: HashSet<String> = objects
            .state()
            .iter()
            .filter_map(|obj| label(&obj.metadata, &self.shard_label()).map(String::from))
            .collect();
        let client = self.ctx.client();
        let ring_name = self.member.ring.clone();
        futures::stream::iter(writes)
            .for_each_concurrent(CONCURRENT_WRITES, |write| {
                let (client, ring_name, metrics) =
                    (client.clone(), ring_name.clone(), metrics.clone());
                async move { apply_write::<K>(client, &ring_name, &metrics, write).await }
            })
            .await;
        self.collect_leases(leases, &available, &still_assigned, now)
            .await;
    }

    fn shard_label(&self) -> String {
        super::shard_label(&self.member.ring)
    }

    /// Deletes the Leases of members unavailable for more than a lease duration that no object names any more.
    async fn collect_leases(
        &self,
        leases: &Store<Lease>,
        available: &BTreeSet<String>,
        still_assigned: &HashSet<String>,
        now: Timestamp,
    ) {
        let grace = k8s_openapi::jiff::SignedDuration::try_from(self.member.lease_duration)
            .unwrap_or_default();
        let Ok(earlier) = now.checked_sub(grace) else {
            return;
        };
        let api: Api<Lease> = Api::namespaced(self.ctx.client(), &self.member.namespace);
        for lease in leases.state() {
            let holder = lease
                .spec
                .as_ref()
                .and_then(|s| s.holder_identity.clone())
                .unwrap_or_default();
            if available.contains(&holder)
                || still_assigned.contains(&holder)
                || available_member(&lease, earlier).is_some()
            {
                continue;
            }
            let params = DeleteParams {
                preconditions: Some(Preconditions {
                    resource_version: lease.resource_version(),
                    uid: None,
                }),
                ..DeleteParams::default()
            };
            match api.delete(&lease.name_any(), &params).await {
                Ok(_) => {
                    tracing::info!(lease = %lease.name_any(), "deleted the expired shard lease")
                }
                Err(error) => {
                    tracing::debug!(lease = %lease.name_any(), %error, "cannot delete an expired shard lease")
                }
            }
        }
    }
}

/// Sends one write of a pass; an object changed or gone meanwhile is left to the next pass.
async fn apply_write<K>(
    client: kube::Client,
    ring: &str,
    metrics: &crate::metrics::shard_metrics::ShardMetrics,
    write: Write,
) where
    K: Resource<DynamicType = ()> + Clone + DeserializeOwned + Debug,
    K::Scope: KindScope,
{
    let api: Api<K> = <K::Scope as KindScope>::api(client, write.meta.namespace.as_deref());
    let object = write.meta.name.as_deref().unwrap_or_default();
    match super::patch_labels(&api, &write.meta, &write.changes).await {
        Ok(_) => match write.counts {
            Some("request") => metrics.count_drain(ring),
            Some(reason) => metrics.count_move(ring, reason),
            None => {}
        },
        Err(error) if super::changed_meanwhile(&error) => {
            tracing::debug!(%object, "the object changed before the sharder's write; deciding again");
        }
        Err(error) => tracing::warn!(%object, %error, "sharder cannot label the object"),
    }
}

/// How long until the sharder looks again without an event: at the next expiry of an available member's Lease
/// (an expiry sends no event), at the latest after `tick`.
fn next_look(leases: &Store<Lease>, tick: Duration) -> Duration {
    let now = Timestamp::now();
    leases
        .state()
        .iter()
        .filter_map(|lease| super::membership::expiry(lease))
        .filter(|expiry| *expiry > now)
        .filter_map(|expiry| Duration::try_from(expiry.duration_since(now)).ok())
        .map(|until| until + Duration::from_millis(10))
        .fold(tick, Duration::min)
}

/// Whether `store` has listed once.
fn is_ready<T: Resource<DynamicType = ()> + Clone>(store: &Store<T>) -> bool
where
    T::DynamicType: std::hash::Hash + Eq,
{
    store.wait_until_ready().now_or_never().is_some()
}

#[cfg(test)]
mod tests {
    use super::*;
    use kube::api::ObjectMeta;

    const SHARD: &str = "shard.rkb.dev/ops";
    const DRAIN: &str = "drain.rkb.dev/ops";

    fn object(name: &str, labels: &[(&str, &str)]) -> ObjectMeta {
        ObjectMeta {
            name: Some(name.into()),
            namespace: Some("team".into()),
            labels: Some(
                labels
                    .iter()
                    .map(|(k, v)| (k.to_string(), v.to_string()))
                    .collect(),
            ),
            ..ObjectMeta::default()
        }
    }

    fn decided(
        placement: &mut Placement,
        meta: &ObjectMeta,
        ring: &Ring,
    ) -> Option<(Vec<super::super::LabelChange>, Option<&'static str>)> {
        placement.decide(meta, ring).map(|w| (w.changes, w.counts))
    }

    #[test]
    fn objects_are_assigned_drained_before_they_move_and_taken_from_dead_members_directly() {
        let mut placement = Placement {
            ring: "ops".into(),
            drained: HashSet::new(),
        };
        let ring = Ring::new(["a", "b"]);
        let name = (0..100)
            .map(|i| format!("app-{i}"))
            .find(|n| ring.assign(&format!("team/{n}")) == Some("b"))
            .unwrap();
        let set = |v: &str| Some(v.to_string());
        let assign_b = vec![(SHARD.to_string(), set("b")), (DRAIN.to_string(), None)];

        // Unassigned: assigned, not a move.
        assert_eq!(
            decided(&mut placement, &object(&name, &[]), &ring),
            Some((assign_b.clone(), None))
        );
        // Where the ring puts it: nothing to do.
        assert_eq!(
            decided(&mut placement, &object(&name, &[(SHARD, "b")]), &ring),
            None
        );
        // On a live member the ring no longer picks: a drain request, once.
        let on_a = object(&name, &[(SHARD, "a")]);
        assert_eq!(
            decided(&mut placement, &on_a, &ring),
            Some((vec![(DRAIN.to_string(), set("true"))], Some("request")))
        );
        let draining = object(&name, &[(SHARD, "a"), (DRAIN, "true")]);
        assert_eq!(
            decided(&mut placement, &draining, &ring),
            None,
            "waits for the member"
        );
        // The member gave it up: assigned, counted as a move by drain.
        assert_eq!(
            decided(&mut placement, &object(&name, &[]), &ring),
            Some((assign_b.clone(), Some("drain")))
        );
        // Its member is gone from the ring (Lease expired or released): moved at once, drain label or not.
        let on_dead = object(&name, &[(SHARD, "c"), (DRAIN, "true")]);
        assert_eq!(
            decided(&mut placement, &on_dead, &ring),
            Some((assign_b, Some("dead")))
        );
        // The ring changed back while it drained: the request is withdrawn.
        let back = object(&name, &[(SHARD, "b"), (DRAIN, "true")]);
        assert_eq!(
            decided(&mut placement, &back, &ring),
            Some((vec![(DRAIN.to_string(), None)], None))
        );
    }
}
