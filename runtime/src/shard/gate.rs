//! The member's side of a sharded controller: which watches it runs (its shard's label selector), and what each
//! reconcile request may do with the object the cache holds.
//!
//! Contract: [`Gate::verdict`] runs in the controller's reconcile path, after the object was read from the cache and
//! before the user's reconcile, so it is serialised with that object's reconciles by the controller's queue (one
//! request per object at a time). An object whose drain label is set is not reconciled: [`Gate::drain`] removes its
//! shard and drain labels with a write conditional on the labels the cache showed (a label change since fails
//! it, and the request runs again on the newer version), then remembers the key as released with the
//! resourceVersion it drained and the one its write made. A request for it that reads the version drained, or (where
//! resourceVersions are etcd revisions, as on every kube-apiserver) one older than the write, comes from a stale
//! cache or a queued retry and is refused; a later version is the object assigned here anew. Every version between
//! the sharder's drain request and the write carries the drain label, so even without that memory none of them
//! reaches the user's reconcile. An object labelled for another member is refused too (the watch's selector should
//! not let one in).

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;
use kube::runtime::watcher;

use super::membership::Member;

/// What a request may do with the cached object.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// It is this replica's: reconcile it.
    Reconcile,
    /// The sharder asked for it back: drain it, do not reconcile it.
    Drain,
    /// Not this replica's (released, or labelled for another member): do nothing.
    Refuse,
}

/// One sharded controller's gate on this replica. Cheap to clone.
#[derive(Clone, Debug)]
pub struct Gate {
    member: Arc<Member>,
    shard_label: String,
    drain_label: String,
    /// (namespace, name) of each object drained, with the resourceVersion it had when drained.
    released: Arc<Mutex<HashMap<ObjectKey, Released>>>,
}

impl Gate {
    /// The gate of a controller of `member`'s replica.
    pub fn new(member: Arc<Member>) -> Self {
        Self {
            shard_label: super::shard_label(&member.ring),
            drain_label: super::drain_label(&member.ring),
            member,
            released: Arc::default(),
        }
    }

    /// This replica's membership.
    pub fn member(&self) -> &Arc<Member> {
        &self.member
    }

    /// `config` narrowed to this replica's shard: `shard.rkb.dev/<ring>=<identity>` added to its label selector.
    pub fn narrowed(&self, mut config: watcher::Config) -> watcher::Config {
        let ours = format!("{}={}", self.shard_label, self.member.identity);
        config.label_selector = Some(match config.label_selector.take() {
            Some(given) if !given.trim().is_empty() => format!("{given},{ours}"),
            _ => ours,
        });
        config
    }

    /// Whether the sharder asked for this object back (its drain label is "true").
    pub fn drain_requested(&self, meta: &ObjectMeta) -> bool {
        label(meta, &self.drain_label) == Some("true")
    }

    /// What a request for the object `meta` describes may do (module docs).
    pub fn verdict(&self, meta: &ObjectMeta) -> Verdict {
        if label(meta, &self.shard_label) != Some(self.member.identity.as_str()) {
            return Verdict::Refuse;
        }
        let key = (
            meta.namespace.clone(),
            meta.name.clone().unwrap_or_default(),
        );
        let mut released = self.released();
        match released.get(&key) {
            Some(drained) if drained.is_stale(meta.resource_version.as_deref()) => {
                return Verdict::Refuse;
            }
            // A version after the drain: assigned here anew.
            Some(_) => {
                released.remove(&key);
            }
            None => {}
        }
        if self.drain_requested(meta) {
            Verdict::Drain
        } else {
            Verdict::Reconcile
        }
    }

    /// Gives the object `meta` describes back to the sharder: removes its shard and drain labels if its labels are
    /// still those read (else `changed_meanwhile`), through `api` (the object's kind), then remembers it as
    /// released.
    pub async fn drain<K>(&self, api: &kube::Api<K>, meta: &ObjectMeta) -> Result<(), kube::Error>
    where
        K: kube::Resource<DynamicType = ()> + Clone + serde::de::DeserializeOwned + std::fmt::Debug,
    {
        let name = meta.name.clone().unwrap_or_default();
        let changes = [
            (self.shard_label.clone(), None),
            (self.drain_label.clone(), None),
        ];
        let written = super::patch_labels(api, meta, &changes).await?;
        let released = Released {
            drained: meta.resource_version.clone(),
            written,
        };
        self.released()
            .insert((meta.namespace.clone(), name), released);
        tracing::info!(object = ?meta.name, namespace = ?meta.namespace, "drained: handed the object back to the sharder");
        Ok(())
    }

    /// Forgets released objects for which `cached` is false (gone from this replica's cache: nothing to refuse).
    pub fn forget_released(&self, cached: impl Fn(Option<&str>, &str) -> bool) {
        self.released()
            .retain(|(namespace, name), _| cached(namespace.as_deref(), name));
    }

    fn released(&self) -> std::sync::MutexGuard<'_, HashMap<ObjectKey, Released>> {
        self.released.lock().unwrap_or_else(|e| e.into_inner())
    }
}

/// (namespace, name) of an object.
type ObjectKey = (Option<String>, String);

/// What a drain left: the resourceVersion drained and the one the drain's write made.
#[derive(Clone, Debug)]
struct Released {
    drained: Option<String>,
    written: Option<String>,
}

impl Released {
    /// Whether a cached copy at `version` predates the drain's write (module docs).
    fn is_stale(&self, version: Option<&str>) -> bool {
        let revision = |v: Option<&str>| v.and_then(|v| v.parse::<u64>().ok());
        match (revision(version), revision(self.written.as_deref())) {
            (Some(cached), Some(written)) => cached < written,
            _ => version.is_some() && version == self.drained.as_deref(),
        }
    }
}

/// The value of `meta`'s label `key`.
pub(crate) fn label<'a>(meta: &'a ObjectMeta, key: &str) -> Option<&'a str> {
    meta.labels.as_ref()?.get(key).map(String::as_str)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    fn gate() -> Gate {
        let member = Member::new(
            "ops".into(),
            "replica-a".into(),
            "ns".into(),
            Duration::from_secs(15),
        );
        Gate::new(Arc::new(member))
    }

    fn meta(shard: &str, drain: bool, version: &str) -> ObjectMeta {
        let mut labels = std::collections::BTreeMap::from([(
            "shard.rkb.dev/ops".to_string(),
            shard.to_string(),
        )]);
        if drain {
            labels.insert("drain.rkb.dev/ops".into(), "true".into());
        }
        ObjectMeta {
            name: Some("app".into()),
            namespace: Some("team".into()),
            resource_version: Some(version.into()),
            labels: Some(labels),
            ..ObjectMeta::default()
        }
    }

    #[test]
    fn the_gate_reconciles_its_own_drains_on_request_and_refuses_others() {
        let g = gate();
        assert_eq!(
            g.verdict(&meta("replica-a", false, "1")),
            Verdict::Reconcile
        );
        assert_eq!(g.verdict(&meta("replica-a", true, "2")), Verdict::Drain);
        assert_eq!(g.verdict(&meta("replica-b", false, "3")), Verdict::Refuse);
    }

    #[test]
    fn a_released_object_is_refused_until_another_version_shows() {
        let g = gate();
        let released = Released {
            drained: Some("2".into()),
            written: Some("5".into()),
        };
        g.released()
            .insert((Some("team".into()), "app".into()), released);
        // A queued retry reading the stale cache: the version drained, or one the watch delivered before the write.
        assert_eq!(g.verdict(&meta("replica-a", true, "2")), Verdict::Refuse);
        assert_eq!(g.verdict(&meta("replica-a", true, "4")), Verdict::Refuse);
        // Assigned here again later.
        assert_eq!(
            g.verdict(&meta("replica-a", false, "9")),
            Verdict::Reconcile
        );
        assert_eq!(
            g.verdict(&meta("replica-a", false, "9")),
            Verdict::Reconcile
        );
    }

    #[test]
    fn the_shard_selector_is_added_to_the_given_one() {
        let g = gate();
        let narrowed = g.narrowed(watcher::Config::default().labels("app=web"));
        assert_eq!(
            narrowed.label_selector.as_deref(),
            Some("app=web,shard.rkb.dev/ops=replica-a")
        );
        let narrowed = g.narrowed(watcher::Config::default());
        assert_eq!(
            narrowed.label_selector.as_deref(),
            Some("shard.rkb.dev/ops=replica-a")
        );
    }
}
