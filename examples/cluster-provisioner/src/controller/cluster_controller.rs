// Copyright 2026 The cluster-provisioner Authors.
//
// Licensed under the Apache License, Version 2.0 (the "License");
// you may not use this file except in compliance with the License.
// You may obtain a copy of the License at
//
//     http://www.apache.org/licenses/LICENSE-2.0
//
// Unless required by applicable law or agreed to in writing, software
// distributed under the License is distributed on an "AS IS" BASIS,
// WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
// See the License for the specific language governing permissions and
// limitations under the License.

//! The Cluster controller, built the way the seed builds it with client-go: a shared informer whose add, update and
//! delete callbacks put object keys on a rate-limited work queue, and workers (rkb_runtime::worker runs them, with
//! readiness, leader election, metrics and panic recovery) that pop a key, read the object from the lister, act (run
//! the provisioner), write the outcome with the typed client, and either forget the key or requeue it with its own
//! exponential backoff.
//!
//! Where the seed loops forever ("Removing cluster ..."), this one does not:
//! - a failed `remove` keeps the finalizer and is retried with growing delays (the work queue's per-key backoff),
//!   and each failure is written to the Ready condition and published as a Warning Event;
//! - status writes never re-trigger the controller: the update callback ignores changes outside spec and
//!   deletionTimestamp (without a status subresource a status write also bumps metadata.generation, so the
//!   generation cannot tell them apart), otherwise every failed attempt would retry at once, past the backoff;
//! - writes carry the resourceVersion they were based on (finalizers by JSON patch with a test, status by PUT of the
//!   object read), and a conflict re-reads the object instead of resending a stale copy.

use std::sync::Arc;
use std::time::Duration;

use rkb_runtime::client::PostParams;
use rkb_runtime::conditions::{FALSE, TRUE, is_condition_true, new_condition, set_condition};
use rkb_runtime::events::EventType;
use rkb_runtime::finalizer::{add_finalizer, has_finalizer, is_being_deleted, remove_finalizer};
use rkb_runtime::informer::{HandlerFuncs, SharedInformerFactory};
use rkb_runtime::worker::Workers;
use rkb_runtime::workqueue::WorkQueue;
use rkb_runtime::{Context, ErrorChain, ResourceExt};

use crate::api::v1alpha1::{
    CONDITION_PROVISIONED, CONDITION_READY, Cluster, ClusterClient, ClusterInformer, ClusterLister,
    ClusterStatus,
};
use crate::provisioner::{Provisioner, ProvisionerError};

/// Keeps a Cluster from disappearing until `remove` has succeeded for it.
pub const FINALIZER: &str = "cluster.finalizers.clusterprovisioner.rke.io";

/// The controller's name (logs, readiness, the `controller` label of controller-runtime's reconcile metrics).
pub const NAME: &str = "cluster";

/// Events.k8s.io notes are limited to 1 kB.
const NOTE_MAX: usize = 1000;

/// How the controller runs.
#[derive(Clone, Debug)]
pub struct Options {
    /// The external provisioner.
    pub provisioner: Provisioner,
    /// Workers popping keys concurrently (a key is never held by two at once).
    pub workers: usize,
    /// First retry delay of a failing Cluster; it doubles with each further failure...
    pub retry_base_delay: Duration,
    /// ...up to this.
    pub retry_max_delay: Duration,
}

impl Options {
    /// One worker; retries after 1 s, 2 s, 4 s, ... up to 5 minutes (a provisioner run is heavy: controller-runtime's
    /// 5 ms start would rerun a failing `rke` several times within a second).
    pub fn new(provisioner: Provisioner) -> Self {
        Self {
            provisioner,
            workers: 1,
            retry_base_delay: Duration::from_secs(1),
            retry_max_delay: Duration::from_secs(300),
        }
    }
}

/// Why one sync of a Cluster failed; the key is retried with backoff.
#[derive(Debug, thiserror::Error)]
pub enum SyncError {
    /// The provisioner command failed.
    #[error(transparent)]
    Provisioner(#[from] ProvisionerError),
    /// A write of the Cluster was refused.
    #[error("cannot write the Cluster")]
    Client(#[from] rkb_runtime::client::Error),
    /// A finalizer patch was refused.
    #[error("cannot update the Cluster's finalizers")]
    Finalizer(#[from] rkb_runtime::Error),
}

/// Runs the Cluster controller until the manager stops (`mgr.add(move |ctx| run(ctx, options))`): an informer
/// feeding a work queue, and `options.workers` workers syncing its keys (rkb_runtime::worker).
///
/// Its RBAC is the verbs it uses (tests/least_privilege.rs compares them with the API server's audit log): `get`
/// re-reads a Cluster after a conflict, the finalizer is patched on the Cluster itself, and the controller creates
/// no objects owned by a Cluster, so no `clusters/finalizers` grant (which only blockOwnerDeletion needs).
///
/// +kubebuilder:rbac:groups=clusterprovisioner.rke.io,resources=clusters,verbs=get;list;watch;update;patch
/// +kubebuilder:rbac:groups=events.k8s.io,resources=events,verbs=create;patch
pub async fn run(ctx: Context, options: Options) -> Result<(), rkb_runtime::Error> {
    let client = ClusterClient::new(ctx.client()).with_field_manager(ctx.field_manager());
    // Through an API server outage the informer waits for the manager's prober, as its controllers do.
    let factory = SharedInformerFactory::builder(ctx.client())
        .retry_with_manager(&ctx)
        .build();
    let informer: ClusterInformer = factory.informer::<Cluster>();
    let queue = WorkQueue::new(options.retry_base_delay, options.retry_max_delay);
    let workers = Workers::new(&ctx, NAME, queue).count(options.workers);
    informer.add_event_handler(event_handlers(workers.queue().clone()));
    let reconciler = Arc::new(Reconciler {
        ctx: ctx.clone(),
        client,
        lister: informer.lister(),
        provisioner: options.provisioner,
    });
    workers
        .run(&factory, move |name: String| {
            let reconciler = reconciler.clone();
            async move { reconciler.sync(&name).await }
        })
        .await
}

/// The informer callbacks: each feeds the key (the name: Cluster is cluster-scoped) to the queue.
fn event_handlers(queue: WorkQueue<String>) -> HandlerFuncs<Cluster> {
    let (on_add, on_update, on_delete) = (queue.clone(), queue.clone(), queue);
    HandlerFuncs::new()
        .on_add(move |obj: &Arc<Cluster>, _| on_add.add(obj.name_any()))
        .on_update(move |old: &Arc<Cluster>, new: &Arc<Cluster>| {
            if needs_sync(old, new) {
                on_update.add(new.name_any());
            }
        })
        // With the finalizer the cleanup already ran; the sync finds the object gone and does nothing.
        .on_delete(move |obj: &Arc<Cluster>| on_delete.add(obj.name_any()))
}

/// Whether an update can change what a sync does: a new spec, or deletion starting. Status and metadata writes
/// (ours included) are not: they would make every failed attempt retry at once, bypassing the backoff.
pub fn needs_sync(old: &Cluster, new: &Cluster) -> bool {
    old.spec != new.spec || old.metadata.deletion_timestamp != new.metadata.deletion_timestamp
}

/// What a worker needs to sync one Cluster.
struct Reconciler {
    ctx: Context,
    client: ClusterClient,
    lister: ClusterLister,
    provisioner: Provisioner,
}

impl Reconciler {
    /// Brings the Cluster called `name` to what it asks for, as the lister last saw it.
    async fn sync(&self, name: &str) -> Result<(), SyncError> {
        let Some(cached) = self.lister.get(name) else {
            tracing::debug!(cluster = name, "gone");
            return Ok(());
        };
        if is_being_deleted(&*cached) {
            self.remove(&cached).await
        } else {
            self.provision(&cached).await
        }
    }

    /// `up` unless the current spec was already applied.
    async fn provision(&self, cached: &Cluster) -> Result<(), SyncError> {
        let obj = if has_finalizer(cached, FINALIZER) {
            cached.clone()
        } else {
            // Before any `up`: from here on a delete waits for `remove`.
            add_finalizer(self.client.inner().api(), cached, FINALIZER).await?
        };
        let path = obj.spec.config_path.clone();
        let status = obj.status.clone().unwrap_or_default();
        if status.applied_config == path
            && is_condition_true(&status.conditions, CONDITION_PROVISIONED)
        {
            return Ok(());
        }
        tracing::info!(cluster = %obj.name_any(), config = %path, "provisioning");
        match self.provisioner.up(&path).await {
            Ok(()) => {
                let message = format!("`up {path}` succeeded");
                self.write_status(&obj, |s| {
                    s.applied_config = path.clone();
                    condition(s, CONDITION_PROVISIONED, TRUE, "Provisioned", &message);
                    condition(s, CONDITION_READY, TRUE, "Provisioned", &message);
                })
                .await?;
                self.event(&obj, EventType::Normal, "Provisioned", "Provision", message)
                    .await;
                Ok(())
            }
            Err(error) => {
                let message = ErrorChain(&error).to_string();
                self.write_status(&obj, |s| {
                    condition(s, CONDITION_PROVISIONED, FALSE, "ProvisionFailed", &message);
                    condition(s, CONDITION_READY, FALSE, "ProvisionFailed", &message);
                })
                .await?;
                self.event(
                    &obj,
                    EventType::Warning,
                    "ProvisionFailed",
                    "Provision",
                    message,
                )
                .await;
                Err(error.into())
            }
        }
    }

    /// `remove`, then release the finalizer. A failure keeps the finalizer and is retried with backoff.
    ///
    /// It removes what was provisioned (status.appliedConfig) rather than what the spec asks for now: after a failed
    /// `up` of a new configPath the old one still describes the running cluster. With nothing applied yet it still
    /// runs, with spec.configPath: a failed `up` may have left parts behind.
    async fn remove(&self, obj: &Cluster) -> Result<(), SyncError> {
        if !has_finalizer(obj, FINALIZER) {
            return Ok(());
        }
        let applied = obj.status.as_ref().map(|s| s.applied_config.as_str());
        let path = match applied {
            Some(p) if !p.is_empty() => p,
            _ => obj.spec.config_path.as_str(),
        };
        tracing::info!(cluster = %obj.name_any(), config = %path, "removing");
        match self.provisioner.remove(path).await {
            Ok(()) => {
                // The patch tests that the finalizer is still where we saw it: a stale cache fails it, never clobbers.
                remove_finalizer(self.client.inner().api(), obj, FINALIZER).await?;
                self.event(
                    obj,
                    EventType::Normal,
                    "Removed",
                    "Remove",
                    format!("`remove {path}` succeeded"),
                )
                .await;
                Ok(())
            }
            Err(error) => {
                let message = format!(
                    "{}; the finalizer stays, retrying with backoff",
                    ErrorChain(&error)
                );
                self.write_status(obj, |s| {
                    condition(s, CONDITION_READY, FALSE, "RemoveFailed", &message);
                })
                .await?;
                self.event(obj, EventType::Warning, "RemoveFailed", "Remove", message)
                    .await;
                Err(error.into())
            }
        }
    }

    /// Writes the status that `change` makes of the object's, through the main resource (the kind has no status
    /// subresource: `+genclient:noStatus`). The PUT carries the resourceVersion it is based on; on a conflict the
    /// object is read again and `change` applied to the fresh copy, so nobody's newer write is overwritten.
    async fn write_status(
        &self,
        obj: &Cluster,
        change: impl Fn(&mut ClusterStatus),
    ) -> Result<(), SyncError> {
        const ATTEMPTS: usize = 3;
        let mut current = obj.clone();
        for attempt in 1..=ATTEMPTS {
            let mut status = current.status.clone().unwrap_or_default();
            change(&mut status);
            if current.status.as_ref() == Some(&status) {
                return Ok(());
            }
            current.status = Some(status);
            match self.client.update(&current, &PostParams::default()).await {
                Ok(_) => return Ok(()),
                Err(e) if e.is_conflict() && attempt < ATTEMPTS => {
                    match self.client.get_opt(&obj.name_any()).await? {
                        Some(fresh) => current = fresh,
                        None => return Ok(()),
                    }
                }
                Err(e) if e.is_not_found() => return Ok(()),
                Err(e) => return Err(e.into()),
            }
        }
        unreachable!("the last attempt returns")
    }

    async fn event(
        &self,
        obj: &Cluster,
        type_: EventType,
        reason: &str,
        action: &str,
        note: String,
    ) {
        let note = truncate(note, NOTE_MAX);
        self.ctx
            .publish_event(obj, type_, reason, action, Some(note))
            .await;
    }
}

/// Sets one condition (lastTransitionTime moves only when the status does).
///
/// No observedGeneration: without a status subresource every status write bumps metadata.generation, so a
/// condition stamped with the generation it was computed at is stale the moment it is stored, and re-stamping it
/// would make each write cause the next. status.appliedConfig says which spec the conditions describe instead.
fn condition(status: &mut ClusterStatus, type_: &str, value: &str, reason: &str, message: &str) {
    set_condition(
        &mut status.conditions,
        new_condition(type_, value, reason, message, None),
    );
}

fn truncate(mut s: String, max: usize) -> String {
    if s.len() > max {
        let mut end = max - 3;
        while !s.is_char_boundary(end) {
            end -= 1;
        }
        s.truncate(end);
        s.push_str("...");
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::api::v1alpha1::ClusterSpec;

    fn cluster(path: &str) -> Cluster {
        Cluster::new(
            "c",
            ClusterSpec {
                config_path: path.into(),
            },
        )
    }

    #[test]
    fn only_spec_and_deletion_changes_need_a_sync() {
        let old = cluster("/a.yml");
        let mut status_only = old.clone();
        status_only.status = Some(ClusterStatus {
            applied_config: "/a.yml".into(),
            conditions: vec![],
        });
        status_only.metadata.generation = Some(2);
        assert!(!needs_sync(&old, &status_only));

        let mut finalized = old.clone();
        finalized.metadata.finalizers = Some(vec![FINALIZER.into()]);
        assert!(!needs_sync(&old, &finalized));

        assert!(needs_sync(&old, &cluster("/b.yml")));
        let mut deleting = old.clone();
        deleting.metadata.deletion_timestamp = Some(rkb_runtime::conditions::now());
        assert!(needs_sync(&old, &deleting));
    }

    #[test]
    fn notes_are_cut_to_the_event_limit() {
        assert_eq!(truncate("abc".into(), 10), "abc");
        let cut = truncate("é".repeat(800), NOTE_MAX);
        assert!(cut.len() <= NOTE_MAX && cut.ends_with("..."));
    }
}
