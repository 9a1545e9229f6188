//! What the Secret holds, and the one step the leader takes next from it (a pure function, unit-tested here).
//!
//! The Secret's data: `tls.crt`/`tls.key` (the pair every replica serves, cert-manager's layout), `ca.crt` (the
//! bundle injected into every target: one CA, or two during a rotation, newest last), and during a rotation
//! `next.crt`/`next.key` (the pair served once the new CA is trusted). Its annotation [`STATE_ANNOTATION`]
//! records, as JSON, each pair's expiry and names and the rotation's timestamps.

use std::collections::BTreeMap;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use k8s_openapi::ByteString;
use k8s_openapi::api::core::v1::Secret;

use super::issue::Issued;

/// The annotation holding the writer's record of the Secret ([`Record`], JSON).
pub(crate) const STATE_ANNOTATION: &str = "webhook-certs.rkb.dev/state";
pub(crate) const CERT_KEY: &str = "tls.crt";
pub(crate) const KEY_KEY: &str = "tls.key";
pub(crate) const CA_KEY: &str = "ca.crt";
const NEXT_CERT_KEY: &str = "next.crt";
const NEXT_KEY_KEY: &str = "next.key";

/// A pair's facts, as recorded (the PEM itself is in the Secret's data).
#[derive(Clone, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub(crate) struct PairRecord {
    /// Seconds since the epoch.
    pub(crate) not_after: u64,
    pub(crate) names: Vec<String>,
}

#[derive(Clone, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct Record {
    pub(crate) serving: Option<PairRecord>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) next: Option<PairRecord>,
    /// When every target was first seen trusting the next pair's CA (seconds since the epoch).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) next_trusted_at: Option<u64>,
    /// When the previous CA leaves the bundle (seconds since the epoch).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) drop_previous_at: Option<u64>,
}

/// A certificate and its key, PEM.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Pair {
    pub(crate) cert_pem: String,
    pub(crate) key_pem: String,
}

/// The Secret's certificates as the writer reads and writes them.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct Stored {
    /// The CA certificates (PEM), newest last.
    pub(crate) bundle: Vec<String>,
    pub(crate) serving: Option<Pair>,
    pub(crate) next: Option<Pair>,
    pub(crate) record: Record,
}

/// When to rotate, and how long each phase of a rotation waits.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Timing {
    pub(crate) renew_before: Duration,
    pub(crate) propagation: Duration,
    pub(crate) grace: Duration,
}

/// What the leader does next.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum Step {
    /// No usable pair (first start, a Secret emptied or not written by rkb): issue a CA and a pair.
    IssueFirst,
    /// Every target trusts the next pair's CA: note the time (the switch waits `propagation` after it).
    NoteTrusted,
    /// The new CA has been trusted for `propagation`: serve the next pair.
    Promote,
    /// Serving switched: schedule the previous CA's removal `grace` from now.
    ScheduleDrop,
    /// The grace period is over: the bundle keeps only the newest CA.
    DropPrevious,
    /// The pair is due (or lacks a name a target calls): issue a new CA and pair, trusted before served.
    StartRotation,
    /// Nothing to write.
    Wait,
}

/// The step to take given the Secret, whether every target holds its bundle, the names the targets call, and the
/// time. A rotation in progress runs to its end before anything else (another rotation included).
pub(crate) fn next_step(
    stored: &Stored,
    targets_synced: bool,
    names: &[String],
    now: SystemTime,
    timing: &Timing,
) -> Step {
    let now = secs(now);
    let Some(serving) = (stored.serving.is_some() && !stored.bundle.is_empty())
        .then_some(())
        .and(stored.record.serving.as_ref())
    else {
        return Step::IssueFirst;
    };
    if stored.next.is_some() && stored.record.next.is_some() {
        return match stored.record.next_trusted_at {
            None if targets_synced => Step::NoteTrusted,
            Some(at) if targets_synced && now >= at + timing.propagation.as_secs() => Step::Promote,
            _ => Step::Wait,
        };
    }
    if stored.bundle.len() > 1 {
        return match stored.record.drop_previous_at {
            None => Step::ScheduleDrop,
            Some(at) if now >= at => Step::DropPrevious,
            Some(_) => Step::Wait,
        };
    }
    let due = serving.not_after <= now + timing.renew_before.as_secs();
    let uncovered = names.iter().any(|n| !serving.names.contains(n));
    if due || uncovered {
        Step::StartRotation
    } else {
        Step::Wait
    }
}

pub(crate) fn secs(t: SystemTime) -> u64 {
    t.duration_since(UNIX_EPOCH).unwrap_or_default().as_secs()
}

impl Stored {
    /// The Secret's certificates; anything missing or unreadable reads as absent (and is then issued anew).
    pub(crate) fn read(secret: Option<&Secret>) -> Self {
        let Some(secret) = secret else {
            return Self::default();
        };
        let data = secret.data.clone().unwrap_or_default();
        let text = |key: &str| {
            data.get(key)
                .and_then(|b| String::from_utf8(b.0.clone()).ok())
                .filter(|s| !s.trim().is_empty())
        };
        let pair = |cert: &str, key: &str| {
            Some(Pair {
                cert_pem: text(cert)?,
                key_pem: text(key)?,
            })
        };
        let record = secret
            .metadata
            .annotations
            .as_ref()
            .and_then(|a| a.get(STATE_ANNOTATION))
            .and_then(|json| serde_json::from_str(json).ok())
            .unwrap_or_default();
        Self {
            bundle: text(CA_KEY).map(|b| split_pem(&b)).unwrap_or_default(),
            serving: pair(CERT_KEY, KEY_KEY),
            next: pair(NEXT_CERT_KEY, NEXT_KEY_KEY),
            record,
        }
    }

    /// The bundle as `ca.crt` and every caBundle hold it.
    pub(crate) fn bundle_pem(&self) -> String {
        self.bundle.concat()
    }

    /// Writes this state into `secret`'s data and annotation, leaving its other keys and annotations alone.
    pub(crate) fn write_into(&self, secret: &mut Secret) {
        let data = secret.data.get_or_insert_with(BTreeMap::new);
        let mut put = |key: &str, value: Option<&str>| match value {
            Some(v) => {
                data.insert(key.to_string(), ByteString(v.as_bytes().to_vec()));
            }
            None => {
                data.remove(key);
            }
        };
        put(CA_KEY, Some(&self.bundle_pem()));
        put(CERT_KEY, self.serving.as_ref().map(|p| p.cert_pem.as_str()));
        put(KEY_KEY, self.serving.as_ref().map(|p| p.key_pem.as_str()));
        put(
            NEXT_CERT_KEY,
            self.next.as_ref().map(|p| p.cert_pem.as_str()),
        );
        put(NEXT_KEY_KEY, self.next.as_ref().map(|p| p.key_pem.as_str()));
        let record = serde_json::to_string(&self.record).unwrap_or_default();
        secret
            .metadata
            .annotations
            .get_or_insert_with(BTreeMap::new)
            .insert(STATE_ANNOTATION.to_string(), record);
    }

    /// Applies `step` (issuing with `issue` where it needs a certificate); false when it changes nothing.
    pub(crate) fn apply(
        &mut self,
        step: &Step,
        now: SystemTime,
        timing: &Timing,
        issue: impl FnOnce() -> Result<Issued, crate::Error>,
    ) -> Result<bool, crate::Error> {
        let now = secs(now);
        match step {
            Step::Wait => return Ok(false),
            Step::IssueFirst => {
                let issued = issue()?;
                *self = Self::default();
                self.bundle = vec![issued.ca_pem.clone()];
                self.record.serving = Some(record_of(&issued));
                self.serving = Some(pair_of(issued));
            }
            Step::StartRotation => {
                let issued = issue()?;
                // The CA of the pair served now stays until the switch is over; an older one is not kept.
                self.bundle = self.bundle.split_off(self.bundle.len() - 1);
                self.bundle.push(issued.ca_pem.clone());
                self.record.next = Some(record_of(&issued));
                self.next = Some(pair_of(issued));
            }
            Step::NoteTrusted => self.record.next_trusted_at = Some(now),
            Step::Promote => {
                self.serving = self.next.take();
                self.record.serving = self.record.next.take();
                self.record.next_trusted_at = None;
                self.record.drop_previous_at = Some(now + timing.grace.as_secs());
            }
            Step::ScheduleDrop => self.record.drop_previous_at = Some(now + timing.grace.as_secs()),
            Step::DropPrevious => {
                self.bundle = self.bundle.split_off(self.bundle.len() - 1);
                self.record.drop_previous_at = None;
            }
        }
        Ok(true)
    }
}

fn record_of(issued: &Issued) -> PairRecord {
    PairRecord {
        not_after: issued.not_after,
        names: issued.names.clone(),
    }
}

fn pair_of(issued: Issued) -> Pair {
    Pair {
        cert_pem: issued.cert_pem,
        key_pem: issued.key_pem,
    }
}

/// The certificates of a PEM bundle, each with its BEGIN and END lines.
fn split_pem(bundle: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut current = String::new();
    for line in bundle.lines() {
        current.push_str(line);
        current.push('\n');
        if line.starts_with("-----END ") {
            out.push(std::mem::take(&mut current));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    const T: Timing = Timing {
        renew_before: Duration::from_secs(100),
        propagation: Duration::from_secs(5),
        grace: Duration::from_secs(7),
    };

    fn at(secs: u64) -> SystemTime {
        UNIX_EPOCH + Duration::from_secs(secs)
    }

    fn issued(n: u64, not_after: u64, names: &[&str]) -> Issued {
        Issued {
            ca_pem: format!("-----BEGIN CERTIFICATE-----\nca{n}\n-----END CERTIFICATE-----\n"),
            cert_pem: format!("cert{n}"),
            key_pem: format!("key{n}"),
            not_after,
            names: names.iter().map(|s| s.to_string()).collect(),
        }
    }

    /// Takes the step due at `now`, issuing certificate `n` where one is needed; returns the step.
    fn step(stored: &mut Stored, synced: bool, now: u64, n: u64) -> Step {
        let names = ["svc".to_string()];
        let step = next_step(stored, synced, &names, at(now), &T);
        stored
            .apply(&step, at(now), &T, || Ok(issued(n, now + 1000, &["svc"])))
            .unwrap();
        step
    }

    #[test]
    fn a_rotation_trusts_the_new_ca_before_serving_it_and_drops_the_old_one_last() {
        let mut s = Stored::default();
        assert_eq!(step(&mut s, false, 0, 1), Step::IssueFirst);
        assert_eq!(
            (
                s.bundle.len(),
                s.serving.as_ref().unwrap().cert_pem.as_str()
            ),
            (1, "cert1")
        );
        assert_eq!(step(&mut s, true, 899, 2), Step::Wait, "101 s left");
        assert_eq!(step(&mut s, true, 900, 2), Step::StartRotation);
        assert_eq!(s.bundle.len(), 2, "both CAs trusted");
        assert_eq!(
            s.serving.as_ref().unwrap().cert_pem,
            "cert1",
            "the old pair still served"
        );
        assert_eq!(
            step(&mut s, false, 901, 3),
            Step::Wait,
            "a target lacks the new bundle"
        );
        assert_eq!(step(&mut s, true, 902, 3), Step::NoteTrusted);
        assert_eq!(
            step(&mut s, true, 906, 3),
            Step::Wait,
            "propagation not over"
        );
        assert_eq!(step(&mut s, true, 907, 3), Step::Promote);
        assert_eq!(s.serving.as_ref().unwrap().cert_pem, "cert2");
        assert_eq!(
            (s.bundle.len(), s.next.as_ref()),
            (2, None),
            "the old CA kept for the grace period"
        );
        assert_eq!(step(&mut s, true, 913, 3), Step::Wait);
        assert_eq!(step(&mut s, true, 914, 3), Step::DropPrevious);
        assert_eq!(s.bundle, vec![issued(2, 0, &[]).ca_pem]);
        assert_eq!(step(&mut s, true, 915, 3), Step::Wait);
    }

    #[test]
    fn a_name_the_certificate_lacks_starts_a_rotation() {
        let mut s = Stored::default();
        step(&mut s, true, 0, 1);
        let names = ["svc".to_string(), "other.svc".to_string()];
        assert_eq!(next_step(&s, true, &names, at(1), &T), Step::StartRotation);
    }

    #[test]
    fn the_secret_round_trips_and_a_new_leader_resumes() {
        let mut s = Stored::default();
        step(&mut s, true, 0, 1);
        step(&mut s, true, 900, 2);
        step(&mut s, true, 902, 3);
        let mut secret = Secret::default();
        s.write_into(&mut secret);
        let read = Stored::read(Some(&secret));
        assert_eq!(read, s);
        assert_eq!(
            next_step(&read, true, &["svc".to_string()], at(907), &T),
            Step::Promote
        );
        // An emptied Secret, or one without rkb's record, is issued anew.
        secret.metadata.annotations = None;
        assert_eq!(
            next_step(&Stored::read(Some(&secret)), true, &[], at(907), &T),
            Step::IssueFirst
        );
    }
}
