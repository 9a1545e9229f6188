//! Leader election on a coordination.k8s.io/v1 Lease, with client-go's algorithm: candidates poll every retry
//! period; a lease is free when its holder is empty or when its record has not changed for a lease duration as
//! measured on the candidate's own clock (so clock skew between nodes does not matter); writes are optimistic
//! (resourceVersion), so two candidates can never both win; the leader gives up when it cannot renew within the
//! renew deadline; a stepping-down leader clears the holder so a follower takes over on its next poll.
//!
//! The leader publishes its term as a [`Term`]: leading until the start of its last successful renewal plus the
//! renew deadline. Work gated on leadership checks that instant on the monotonic clock, so a leader whose process
//! was frozen (SIGSTOP, a paused VM) or cut off past its lease starts nothing when it runs again, even before its
//! election task has learnt that another candidate took over. Work already running when the process froze resumes
//! and may still write: Kubernetes has no fencing token, so that window is closed only by the lease timings
//! (followers wait the lease duration, longer than the renew deadline), as in client-go.
//!
//! RBAC: the elector reads the Lease (`get`), makes it when there is none (`create`), and renews, takes over and
//! releases it by writing it whole with the resourceVersion it read (`update`); nothing else. The scaffold's
//! `config/rbac/leader_election_role.yaml` grants exactly these three verbs on `leases`, and the examples'
//! least-privilege tests check it against the API server's audit log.
//!
//! We do not use kube-lease-manager (which builds against kube 5): its followers sleep until the lease expires, so
//! a graceful step-down would not hand over any faster than a crash.

use std::time::{Duration, Instant};

use k8s_openapi::api::coordination::v1::{Lease, LeaseSpec};
use k8s_openapi::apimachinery::pkg::apis::meta::v1::MicroTime;
use k8s_openapi::jiff::Timestamp;
use kube::api::{ObjectMeta, PostParams};
use kube::{Api, Client};
use tokio::sync::watch;

use crate::metrics::Metrics;

/// Timings and identity of one candidate.
#[derive(Clone, Debug)]
pub struct LeaderElectionConfig {
    /// The Lease's name.
    pub lease_name: String,
    /// The Lease's namespace.
    pub namespace: String,
    /// This candidate's identity (unique per process).
    pub identity: String,
    /// How long followers wait after the last observed change of the record before taking over.
    pub lease_duration: Duration,
    /// How long the leader retries renewing before giving leadership up.
    pub renew_deadline: Duration,
    /// The interval between acquire attempts and between renewals.
    pub retry_period: Duration,
}

/// A process-unique identity: the host name (the pod name in a cluster) plus a random suffix, like
/// controller-runtime's `hostname_uuid`.
pub fn default_identity() -> String {
    use std::hash::{BuildHasher, Hasher};
    let host = std::env::var("POD_NAME")
        .or_else(|_| std::env::var("HOSTNAME"))
        .or_else(|_| std::fs::read_to_string("/etc/hostname").map(|s| s.trim().to_string()))
        .unwrap_or_else(|_| "rkb".to_string());
    // RandomState is seeded randomly per process; that is all the randomness an identity needs.
    let mut h = std::collections::hash_map::RandomState::new().build_hasher();
    h.write_u128(Timestamp::now().as_nanosecond() as u128);
    format!("{host}_{:016x}", h.finish())
}

/// One candidate for a Lease.
pub struct LeaderElector {
    api: Api<Lease>,
    config: LeaderElectionConfig,
    observed: Option<(LeaseSpec, Instant)>,
    metrics: Option<Metrics>,
}

/// Whether this process may start leader-only work, as its election task last published it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Term {
    /// No leader election: always.
    Unelected,
    /// Leading, safely until this instant unless renewed again.
    Until(Instant),
    /// Not leading (yet, or any more).
    Following,
}

impl Term {
    /// Whether leader-only work may start at `now`.
    pub fn leads_at(self, now: Instant) -> bool {
        match self {
            Term::Unelected => true,
            Term::Until(deadline) => now < deadline,
            Term::Following => false,
        }
    }
}

/// What ended a leader's term.
#[derive(Debug, PartialEq, Eq)]
pub enum TermEnd {
    /// Renewal failed for longer than the renew deadline (or another candidate took the lease).
    Lost(String),
    /// The caller asked to stop; the lease is still held and should be released.
    Stopped,
}

impl LeaderElector {
    /// A candidate using `client`.
    pub fn new(client: Client, config: LeaderElectionConfig) -> Self {
        Self {
            api: Api::namespaced(client, &config.namespace),
            config,
            observed: None,
            metrics: None,
        }
    }

    /// Reports `leader_election_master_status{name}` in these metrics.
    pub fn with_metrics(mut self, metrics: Metrics) -> Self {
        metrics.set_leader(&self.config.lease_name, false);
        self.metrics = Some(metrics);
        self
    }

    /// The configuration.
    pub fn config(&self) -> &LeaderElectionConfig {
        &self.config
    }

    /// Polls until this candidate holds the lease, then publishes its term in `term`. Returns false if `stop`
    /// fired first.
    pub async fn acquire(
        &mut self,
        stop: &mut watch::Receiver<bool>,
        term: &watch::Sender<Term>,
    ) -> bool {
        loop {
            let attempt = Instant::now();
            match self.try_acquire_or_renew().await {
                Ok(true) => {
                    tracing::info!(lease = %self.config.lease_name, identity = %self.config.identity, "acquired leadership");
                    self.set_metric(true);
                    term.send_replace(Term::Until(attempt + self.config.renew_deadline));
                    return true;
                }
                Ok(false) => {}
                Err(e) => {
                    tracing::warn!(lease = %self.config.lease_name, error = %e, "cannot acquire lease")
                }
            }
            let wait = jittered(self.config.retry_period);
            tokio::select! {
                _ = tokio::time::sleep(wait) => {}
                _ = wait_true(stop) => return false,
            }
        }
    }

    /// Renews every retry period while leading, extending the term published in `term` (which [`Self::acquire`]
    /// began). Returns when leadership is lost, having published [`Term::Following`], or when `stop` fires.
    pub async fn hold(
        &mut self,
        stop: &mut watch::Receiver<bool>,
        term: &watch::Sender<Term>,
    ) -> TermEnd {
        // A term is counted from the start of the request that renewed it: the lease may have been written then.
        let mut last_renew = Instant::now();
        loop {
            tokio::select! {
                _ = tokio::time::sleep(self.config.retry_period) => {}
                _ = wait_true(stop) => return TermEnd::Stopped,
            }
            // Each renewal is retried until the renew deadline passes since the last success.
            loop {
                let attempt = Instant::now();
                match self.try_acquire_or_renew().await {
                    Ok(true) => {
                        last_renew = attempt;
                        term.send_replace(Term::Until(attempt + self.config.renew_deadline));
                        break;
                    }
                    Ok(false) => {
                        self.set_metric(false);
                        term.send_replace(Term::Following);
                        let holder = self.observed_holder().unwrap_or_default();
                        return TermEnd::Lost(format!("lease taken by {holder:?}"));
                    }
                    Err(e) => {
                        tracing::warn!(lease = %self.config.lease_name, error = %e, "cannot renew lease");
                        if last_renew.elapsed() >= self.config.renew_deadline {
                            self.set_metric(false);
                            term.send_replace(Term::Following);
                            return TermEnd::Lost(format!(
                                "failed to renew within {:?}: {e}",
                                self.config.renew_deadline
                            ));
                        }
                        tokio::select! {
                            _ = tokio::time::sleep(self.config.retry_period / 4) => {}
                            _ = wait_true(stop) => return TermEnd::Stopped,
                        }
                    }
                }
            }
        }
    }

    /// Steps down: clears the holder so followers take over at their next poll. Does nothing unless we hold it.
    pub async fn release(&mut self) -> Result<(), kube::Error> {
        self.set_metric(false);
        let lease = self.api.get(&self.config.lease_name).await?;
        let spec = lease.spec.clone().unwrap_or_default();
        if spec.holder_identity.as_deref() != Some(self.config.identity.as_str()) {
            return Ok(());
        }
        let now = MicroTime(Timestamp::now());
        let released = Lease {
            metadata: lease.metadata.clone(),
            spec: Some(LeaseSpec {
                holder_identity: None,
                // client-go's release record: a one-second duration so even an old follower sees it free soon.
                lease_duration_seconds: Some(1),
                acquire_time: Some(now.clone()),
                renew_time: Some(now),
                lease_transitions: spec.lease_transitions,
                ..LeaseSpec::default()
            }),
        };
        self.api
            .replace(&self.config.lease_name, &PostParams::default(), &released)
            .await?;
        tracing::info!(lease = %self.config.lease_name, identity = %self.config.identity, "released leadership");
        Ok(())
    }

    fn observed_holder(&self) -> Option<String> {
        self.observed
            .as_ref()
            .and_then(|(s, _)| s.holder_identity.clone())
    }

    fn set_metric(&self, leader: bool) {
        if let Some(m) = &self.metrics {
            m.set_leader(&self.config.lease_name, leader);
        }
    }

    fn desired(&self, current: Option<&LeaseSpec>) -> LeaseSpec {
        let now = MicroTime(Timestamp::now());
        let duration =
            i32::try_from(self.config.lease_duration.as_secs().max(1)).unwrap_or(i32::MAX);
        let held_by_us = current.and_then(|s| s.holder_identity.as_deref())
            == Some(self.config.identity.as_str());
        let transitions = current.and_then(|s| s.lease_transitions).unwrap_or(0);
        LeaseSpec {
            holder_identity: Some(self.config.identity.clone()),
            lease_duration_seconds: Some(duration),
            acquire_time: if held_by_us {
                current.and_then(|s| s.acquire_time.clone())
            } else {
                Some(now.clone())
            },
            renew_time: Some(now),
            lease_transitions: Some(if held_by_us || current.is_none() {
                transitions
            } else {
                transitions + 1
            }),
            ..LeaseSpec::default()
        }
    }

    /// One step of client-go's `tryAcquireOrRenew`: Ok(true) when we hold the lease afterwards.
    async fn try_acquire_or_renew(&mut self) -> Result<bool, kube::Error> {
        let Some(lease) = self.api.get_opt(&self.config.lease_name).await? else {
            let lease = Lease {
                metadata: ObjectMeta {
                    name: Some(self.config.lease_name.clone()),
                    namespace: Some(self.config.namespace.clone()),
                    ..ObjectMeta::default()
                },
                spec: Some(self.desired(None)),
            };
            return match self.api.create(&PostParams::default(), &lease).await {
                Ok(created) => {
                    self.observed = Some((created.spec.unwrap_or_default(), Instant::now()));
                    Ok(true)
                }
                Err(kube::Error::Api(e)) if e.code == 409 => Ok(false),
                Err(e) => Err(e),
            };
        };
        let spec = lease.spec.clone().unwrap_or_default();
        if self.observed.as_ref().is_none_or(|(s, _)| *s != spec) {
            self.observed = Some((spec.clone(), Instant::now()));
        }
        let observed_at = self
            .observed
            .as_ref()
            .map_or_else(Instant::now, |(_, t)| *t);
        let holder = spec.holder_identity.as_deref().filter(|h| !h.is_empty());
        let held_by_other = holder.is_some_and(|h| h != self.config.identity);
        // The holder's own duration counts (it may differ from ours), as in client-go.
        let their_duration = spec
            .lease_duration_seconds
            .map_or(self.config.lease_duration, |s| {
                Duration::from_secs(s.max(0) as u64)
            });
        if held_by_other && observed_at.elapsed() < their_duration {
            return Ok(false);
        }
        let updated = Lease {
            metadata: lease.metadata.clone(),
            spec: Some(self.desired(Some(&spec))),
        };
        // metadata carries the resourceVersion we read: a concurrent writer makes this a 409, never a double win.
        match self
            .api
            .replace(&self.config.lease_name, &PostParams::default(), &updated)
            .await
        {
            Ok(written) => {
                self.observed = Some((written.spec.unwrap_or_default(), Instant::now()));
                Ok(true)
            }
            Err(kube::Error::Api(e)) if e.code == 409 => Ok(false),
            Err(e) => Err(e),
        }
    }
}

/// Waits until the watched flag is true (or its sender is gone, which also means "stop").
pub(crate) async fn wait_true(rx: &mut watch::Receiver<bool>) {
    let _ = rx.wait_for(|v| *v).await;
}

/// Up to 20% extra, like client-go's JitterFactor 1.2, so candidates started together do not poll in lockstep.
fn jittered(d: Duration) -> Duration {
    let nanos = u64::from(Timestamp::now().subsec_nanosecond().unsigned_abs());
    d + d.mul_f64((nanos % 1000) as f64 / 5000.0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_term_ends_on_the_clock_before_the_lease_is_known_lost() {
        let now = Instant::now();
        let renewed = Term::Until(now + Duration::from_secs(3));
        assert!(renewed.leads_at(now));
        // A process frozen past its renew deadline wakes with this term still published: it must not lead.
        assert!(!renewed.leads_at(now + Duration::from_secs(3)));
        assert!(!Term::Following.leads_at(now));
        assert!(Term::Unelected.leads_at(now + Duration::from_secs(1 << 30)));
    }
}
