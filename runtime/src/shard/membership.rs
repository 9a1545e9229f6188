//! This replica's membership of a shard ring: its own Lease `<ring>-shard-<identity>`, held and renewed like a
//! leader's (leader.rs), and how anyone tells from a Lease whether its member is available.
//!
//! Contract: while the manager runs, [`Member::hold`] renews the Lease every retry period (2/15 of the lease
//! duration, as 2s is of leader election's 15s) and publishes this replica's term: until the start of its last
//! successful renewal plus the renew deadline (2/3 of the lease duration). Sharded reconciles start only within the
//! term ([`Member::wait_for_term`]), so a replica that cannot renew, or whose process was frozen, stops starting
//! them before the sharder, measuring the lease duration from the renewal it saw, takes its objects away. A term
//! that runs out ends `hold` with the reason: the manager then stops (as after leadership is lost), because its
//! watches may have missed its objects' moves. [`Member::release`] deletes the Lease, which the sharder takes as the
//! member gone at once; the manager calls it after its controllers stopped.

use std::time::{Duration, Instant};

use k8s_openapi::api::coordination::v1::{Lease, LeaseSpec};
use k8s_openapi::apimachinery::pkg::apis::meta::v1::MicroTime;
use k8s_openapi::jiff::Timestamp;
use kube::api::{DeleteParams, ObjectMeta, PostParams};
use kube::{Api, Client};
use tokio::sync::watch;

use crate::leader::{Term, wait_true};

/// Who this replica is in which ring, and its current term.
#[derive(Debug)]
pub struct Member {
    /// The ring: the manager's name or leader election id.
    pub ring: String,
    /// This replica's identity (a DNS label: it is part of the Lease name and a label value).
    pub identity: String,
    /// The namespace of the ring's Leases (leader election's).
    pub namespace: String,
    /// How long the Lease counts as held after a renewal.
    pub lease_duration: Duration,
    term: watch::Sender<Term>,
}

impl Member {
    /// A member not yet holding its Lease.
    pub fn new(
        ring: String,
        identity: String,
        namespace: String,
        lease_duration: Duration,
    ) -> Self {
        Self {
            ring,
            identity,
            namespace,
            lease_duration,
            term: watch::Sender::new(Term::Following),
        }
    }

    /// The Lease's name: `<ring>-shard-<identity>`.
    pub fn lease_name(&self) -> String {
        format!("{}-shard-{}", self.ring, self.identity)
    }

    /// How long renewals are retried before the term ends: 2/3 of the lease duration.
    pub fn renew_deadline(&self) -> Duration {
        self.lease_duration * 2 / 3
    }

    /// The interval between renewals: 2/15 of the lease duration.
    pub fn retry_period(&self) -> Duration {
        self.lease_duration * 2 / 15
    }

    /// Whether sharded reconciles may start now.
    pub fn holds(&self) -> bool {
        self.term.borrow().leads_at(Instant::now())
    }

    /// Waits until this replica holds its Lease within its term; false if `shutdown` turns true first.
    pub async fn wait_for_term(&self, mut shutdown: watch::Receiver<bool>) -> bool {
        let mut term = self.term.subscribe();
        if *shutdown.borrow() {
            return false;
        }
        tokio::select! {
            biased;
            _ = wait_true(&mut shutdown) => false,
            held = term.wait_for(|term| term.leads_at(Instant::now())) => held.is_ok(),
        }
    }

    /// Takes and renews the Lease until `stop` turns true (None) or the term runs out (Some(reason)).
    pub async fn hold(&self, client: Client, mut stop: watch::Receiver<bool>) -> Option<String> {
        let api: Api<Lease> = Api::namespaced(client, &self.namespace);
        let mut last_renew: Option<Instant> = None;
        let mut last_error: Option<String> = None;
        loop {
            // Checked before writing: a process frozen (or starved) past its term must not renew the Lease, whose
            // expiry the sharder may already have acted on, and resume on a cache that missed the moves.
            if let Some(renewed) = last_renew.filter(|r| r.elapsed() >= self.renew_deadline()) {
                self.term.send_replace(Term::Following);
                let why = last_error.map_or_else(
                    || "this process did not run in time".to_string(),
                    |error| format!("last error: {error}"),
                );
                return Some(format!(
                    "shard lease {} not renewed for {:?} ({why})",
                    self.lease_name(),
                    renewed.elapsed()
                ));
            }
            let attempt = Instant::now();
            let pause = match self.renew(&api).await {
                Ok(()) => {
                    if last_renew.is_none() {
                        tracing::info!(lease = %self.lease_name(), "joined the shard ring");
                    }
                    last_renew = Some(attempt);
                    last_error = None;
                    self.term
                        .send_replace(Term::Until(attempt + self.renew_deadline()));
                    self.retry_period()
                }
                Err(error) => {
                    tracing::warn!(lease = %self.lease_name(), %error, "cannot renew the shard lease");
                    last_error = Some(error.to_string());
                    self.retry_period() / 4
                }
            };
            tokio::select! {
                _ = tokio::time::sleep(pause) => {}
                _ = wait_true(&mut stop) => return None,
            }
        }
    }

    /// One renewal: creates the Lease, or writes it with the resourceVersion read.
    async fn renew(&self, api: &Api<Lease>) -> Result<(), kube::Error> {
        let name = self.lease_name();
        let now = MicroTime(Timestamp::now());
        let spec = |acquired: Option<MicroTime>| LeaseSpec {
            holder_identity: Some(self.identity.clone()),
            lease_duration_seconds: Some(
                i32::try_from(self.lease_duration.as_secs().max(1)).unwrap_or(i32::MAX),
            ),
            acquire_time: Some(acquired.unwrap_or_else(|| now.clone())),
            renew_time: Some(now.clone()),
            ..LeaseSpec::default()
        };
        let Some(mut lease) = api.get_opt(&name).await? else {
            let lease = Lease {
                metadata: ObjectMeta {
                    name: Some(name),
                    namespace: Some(self.namespace.clone()),
                    labels: Some([(super::RING_LABEL.to_string(), self.ring.clone())].into()),
                    ..ObjectMeta::default()
                },
                spec: Some(spec(None)),
            };
            api.create(&PostParams::default(), &lease).await?;
            return Ok(());
        };
        // The acquire time is kept while this identity holds it (a restart under the same POD_NAME included).
        let acquired = lease.spec.take().and_then(|s| s.acquire_time);
        lease.spec = Some(spec(acquired));
        lease
            .metadata
            .labels
            .get_or_insert_with(Default::default)
            .insert(super::RING_LABEL.to_string(), self.ring.clone());
        api.replace(&name, &PostParams::default(), &lease).await?;
        Ok(())
    }

    /// Leaves the ring: deletes the Lease, so the sharder moves this replica's objects at once. Call it once
    /// nothing of this replica reconciles any more.
    pub async fn release(&self, client: Client) {
        self.term.send_replace(Term::Following);
        let api: Api<Lease> = Api::namespaced(client, &self.namespace);
        match api
            .delete(&self.lease_name(), &DeleteParams::default())
            .await
        {
            Ok(_) => tracing::info!(lease = %self.lease_name(), "left the shard ring"),
            Err(kube::Error::Api(status)) if status.code == 404 => {}
            Err(error) => {
                tracing::warn!(lease = %self.lease_name(), %error, "cannot release the shard lease; its objects move when it expires")
            }
        }
    }
}

/// The member a Lease of the ring names, when it is available at `now`: it has a holder, and its renewTime plus
/// leaseDurationSeconds is later than `now` (the reader's clock: the sharder's; see the module docs of `shard`).
pub fn available_member(lease: &Lease, now: Timestamp) -> Option<&str> {
    let holder = lease
        .spec
        .as_ref()?
        .holder_identity
        .as_deref()
        .filter(|h| !h.is_empty())?;
    (expiry(lease)? > now).then_some(holder)
}

/// When a Lease expires: its renewTime plus leaseDurationSeconds.
pub fn expiry(lease: &Lease) -> Option<Timestamp> {
    let spec = lease.spec.as_ref()?;
    let renewed = spec.renew_time.as_ref()?.0;
    let duration =
        k8s_openapi::jiff::SignedDuration::from_secs(i64::from(spec.lease_duration_seconds?));
    renewed.checked_add(duration).ok()
}

/// An identity for `--shard-identity`'s default: POD_NAME (unique per replica in a cluster), else the host name
/// with a random suffix, so several processes on one host are several members. Made a DNS label (lowercase, '-'
/// for anything else, at most 63 characters), as a Lease name and label value need.
pub fn default_identity() -> String {
    if let Some(pod) = std::env::var("POD_NAME").ok().filter(|pod| !pod.is_empty()) {
        return dns_label(&pod);
    }
    // leader.rs's identity is `<host>_<16 hex digits>`; the suffix keeps 8 of them.
    let leader_style = crate::leader::default_identity();
    let (host, suffix) = leader_style.rsplit_once('_').unwrap_or((&leader_style, ""));
    let host = dns_label(host);
    let host = &host[..host.len().min(63 - 9)];
    dns_label(&format!("{host}-{}", &suffix[..suffix.len().min(8)]))
}

/// `name` as a DNS label: lowercased, other characters as '-', at most 63, no '-' at either end.
fn dns_label(name: &str) -> String {
    let mapped: String = name
        .chars()
        .map(|c| c.to_ascii_lowercase())
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '-' })
        .take(63)
        .collect();
    let trimmed = mapped.trim_matches('-');
    if trimmed.is_empty() {
        "rkb".to_string()
    } else {
        trimmed.to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lease(holder: Option<&str>, renewed: Timestamp, seconds: i32) -> Lease {
        Lease {
            metadata: ObjectMeta::default(),
            spec: Some(LeaseSpec {
                holder_identity: holder.map(String::from),
                renew_time: Some(MicroTime(renewed)),
                lease_duration_seconds: Some(seconds),
                ..LeaseSpec::default()
            }),
        }
    }

    #[test]
    fn a_member_is_available_until_its_renewal_plus_its_duration() {
        let renewed = Timestamp::from_second(1_000).unwrap();
        let at = |s: i64| Timestamp::from_second(s).unwrap();
        let held = lease(Some("replica-a"), renewed, 15);
        assert_eq!(available_member(&held, at(1_014)), Some("replica-a"));
        assert_eq!(available_member(&held, at(1_015)), None);
        assert_eq!(available_member(&lease(None, renewed, 15), at(1_001)), None);
        assert_eq!(
            available_member(&lease(Some(""), renewed, 15), at(1_001)),
            None
        );
    }

    #[test]
    fn default_identities_are_dns_labels() {
        assert_eq!(dns_label("Worker_Node.example"), "worker-node-example");
        assert_eq!(dns_label("__"), "rkb");
        let long = dns_label(&"a".repeat(100));
        assert_eq!(long.len(), 63);
        let identity = default_identity();
        assert!(
            identity.len() <= 63 && !identity.ends_with('-'),
            "{identity}"
        );
        assert_ne!(
            identity,
            default_identity(),
            "two processes on one host are two members"
        );
    }

    #[test]
    fn timings_follow_leader_election_s_ratios() {
        let m = Member::new("r".into(), "i".into(), "ns".into(), Duration::from_secs(15));
        assert_eq!(
            (m.renew_deadline(), m.retry_period()),
            (Duration::from_secs(10), Duration::from_secs(2))
        );
        assert_eq!(m.lease_name(), "r-shard-i");
        assert!(!m.holds());
    }
}
