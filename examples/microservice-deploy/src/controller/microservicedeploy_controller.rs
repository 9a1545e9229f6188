// Copyright 2026 The microservice-deploy Authors.
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

//! Reconciles MicroServiceDeploy objects: server-side applies the Service, ServiceAccount, ConfigMap, Deployment
//! and (while autoscaled) HPA of each, all controlled by it, so the garbage collector deletes them with it.

use std::sync::Arc;
use std::time::Duration;

use rkb_runtime::child_index::{ChildIndex, Key, Write, fingerprint};
use rkb_runtime::conditions::{FALSE, TRUE, new_condition, set_condition};
use rkb_runtime::k8s_openapi::api::apps::v1::Deployment;
use rkb_runtime::k8s_openapi::api::autoscaling::v1::HorizontalPodAutoscaler;
use rkb_runtime::k8s_openapi::api::core::v1::{ConfigMap, Service, ServiceAccount};
use rkb_runtime::k8s_openapi::apimachinery::pkg::apis::meta::v1::OwnerReference;
use rkb_runtime::kube::api::DeleteParams;
use rkb_runtime::kube::core::NamespaceResourceScope;
use rkb_runtime::kube::runtime::watcher;
use rkb_runtime::{
    Action, Api, BoxError, Context, Controller, Error, Resource, ResourceExt, apply,
};
use serde::Serialize;
use serde::de::DeserializeOwned;

use super::children;
use super::metrics::ChildWrites;
use super::namespace_defaults::NamespaceDefaults;
use crate::api::v1::MicroServiceDeploy;

/// The condition saying whether every child object has been applied for the observed generation.
pub const READY: &str = "Ready";
/// How often an instance whose Service or ServiceAccount belongs to another object checks whether it can adopt them
/// (their owner's deletion does not reconcile this instance).
const SHARED_RECHECK: Duration = Duration::from_secs(60);

/// What the controller is started with (flags of the manager binary).
#[derive(Clone, Debug, Default)]
pub struct Settings {
    /// The namespace ResourceQuota and LimitRange applied at start.
    pub namespace_defaults: NamespaceDefaults,
    /// How many MicroServiceDeploys reconcile at once (0 = 1).
    pub concurrency: u16,
}

/// A reconcile that failed; it is retried with backoff.
#[derive(Debug, thiserror::Error)]
pub enum ReconcileError {
    /// The object has no namespace (the kind is namespaced, so the cache never yields one).
    #[error("MicroServiceDeploy {0} has no namespace")]
    NoNamespace(String),
    /// An API call failed.
    #[error("{action}: {source}")]
    Api {
        /// What was being done.
        action: String,
        /// The cause.
        #[source]
        source: Error,
    },
}

fn api_error(action: impl Into<String>) -> impl FnOnce(Error) -> ReconcileError {
    let action = action.into();
    move |source| ReconcileError::Api { action, source }
}

/// Runs the MicroServiceDeploy controller with default settings until the manager stops.
pub async fn controller(ctx: Context) -> Result<(), Error> {
    controller_with(ctx, Settings::default()).await
}

/// Runs the MicroServiceDeploy controller until the manager stops; applies the namespace defaults once at start.
///
/// +kubebuilder:rbac:groups=custom.ops,resources=microservicedeploys,verbs=get;list;watch;create;update;patch;delete
/// +kubebuilder:rbac:groups=custom.ops,resources=microservicedeploys/status,verbs=get;update;patch
/// +kubebuilder:rbac:groups=custom.ops,resources=microservicedeploys/finalizers,verbs=update
/// +kubebuilder:rbac:groups="",resources=services;serviceaccounts;configmaps,verbs=get;list;watch;create;update;patch;delete
/// +kubebuilder:rbac:groups=apps,resources=deployments,verbs=get;list;watch;create;update;patch;delete
/// +kubebuilder:rbac:groups=autoscaling,resources=horizontalpodautoscalers,verbs=get;list;watch;create;update;patch;delete
/// +kubebuilder:rbac:groups="",resources=resourcequotas;limitranges,verbs=get;list;watch;create;update;patch
pub async fn controller_with(ctx: Context, settings: Settings) -> Result<(), Error> {
    let index = ChildIndex::default();
    let writes = ChildWrites::registered(&ctx);
    let reconcile_index = index.clone();
    // The index's watches of the children reconcile their owners too: one watch per child kind, not two.
    let controller = Controller::for_kind::<MicroServiceDeploy>(&ctx)
        .reconciles_on(index.owner_requests::<MicroServiceDeploy>())
        .concurrency(settings.concurrency)
        .run(move |msd, ctx| {
            let reconciled = reconcile(msd, ctx, reconcile_index.clone(), writes.clone());
            // Boxed, the error shows the manager the kube::Error inside: an API server outage then pauses the
            // reconciles instead of charging each object's backoff (rkb_runtime::outage).
            async move { reconciled.await.map_err(BoxError::from) }
        });
    // The index watches and the namespace defaults serve the controller; whenever it ends (shutdown after draining,
    // or an error the manager must see), everything ends with it.
    let helpers = async {
        tokio::join!(
            settings.namespace_defaults.ensure(&ctx),
            index
                .clone()
                .watch::<Service>(ctx.clone(), labelled_children()),
            index
                .clone()
                .watch::<ServiceAccount>(ctx.clone(), labelled_children()),
            index
                .clone()
                .watch::<ConfigMap>(ctx.clone(), labelled_children()),
            index
                .clone()
                .watch::<Deployment>(ctx.clone(), labelled_children()),
            index.watch::<HorizontalPodAutoscaler>(ctx.clone(), labelled_children()),
        );
        std::future::pending::<std::convert::Infallible>().await
    };
    tokio::select! {
        result = controller => result,
        never = helpers => match never {},
    }
}

/// What the child index watches: the objects this controller labels as its children.
fn labelled_children() -> watcher::Config {
    watcher::Config::default().labels(&format!("{}=true", children::MANAGED_LABEL))
}

/// Moves the cluster towards what a MicroServiceDeploy asks for. Every write is a server-side apply of the whole
/// desired object, so running it again changes nothing, and fields this controller stops setting are released;
/// `index` spares the writes that would change nothing.
pub async fn reconcile(
    msd: Arc<MicroServiceDeploy>,
    ctx: Context,
    index: ChildIndex,
    writes: ChildWrites,
) -> Result<Action, ReconcileError> {
    // Children carry controller references: the garbage collector removes them, no finalizer needed.
    if msd.metadata.deletion_timestamp.is_some() {
        return Ok(Action::await_change());
    }
    let generation = msd.metadata.generation;
    match apply_children(&msd, &ctx, &index, &writes).await {
        Ok(shared_elsewhere) if shared_elsewhere.is_empty() => {
            let message = format!(
                "Service, ServiceAccount, ConfigMap and Deployment applied{}",
                hpa_note(&msd)
            );
            update_status(
                &ctx,
                (&index, &writes),
                &msd,
                new_condition(READY, TRUE, "Reconciled", message, generation),
            )
            .await?;
            Ok(Action::await_change())
        }
        Ok(shared_elsewhere) => {
            let message = format!(
                "ConfigMap and Deployment applied{}; {} (msName {}) controlled by another object, used as they are",
                hpa_note(&msd),
                shared_elsewhere.join(" and "),
                msd.spec.ms_name
            );
            update_status(
                &ctx,
                (&index, &writes),
                &msd,
                new_condition(READY, TRUE, "SharingService", message, generation),
            )
            .await?;
            Ok(Action::requeue(SHARED_RECHECK))
        }
        // The API server cannot be reached: a status write could not succeed either. The manager pauses the
        // reconciles until it answers (rkb_runtime::outage).
        Err(e) if rkb_runtime::outage::caused_by_outage(&e) => Err(e),
        Err(e) => {
            // Best effort: the reconcile error (retried with backoff) matters more than recording it.
            let failed = new_condition(READY, FALSE, "ApplyFailed", e.to_string(), generation);
            if let Err(status_error) = update_status(&ctx, (&index, &writes), &msd, failed).await {
                tracing::warn!(error = %status_error, "cannot record the failure in status");
            }
            Err(e)
        }
    }
}

/// Applies every child of `msd` concurrently; returns the shared children another object controls.
async fn apply_children(
    msd: &MicroServiceDeploy,
    ctx: &Context,
    index: &ChildIndex,
    writes: &ChildWrites,
) -> Result<Vec<String>, ReconcileError> {
    let namespace = msd
        .namespace()
        .ok_or_else(|| ReconcileError::NoNamespace(msd.name_any()))?;
    // controller=true and blockOwnerDeletion=true, as controllerutil.SetControllerReference.
    let owner = apply::controller_owner_ref(msd).map_err(api_error("owner reference"))?;
    let writer = Writer {
        writes,
        ctx,
        namespace: &namespace,
        index,
    };
    // The Service and ServiceAccount are per microservice (msName), so instances of several versions share them;
    // the first instance controls them, the others use them.
    let (service, account, config, deployment, hpa) = tokio::join!(
        writer.apply_shared(children::service(msd, &owner), &owner),
        writer.apply_shared(children::service_account(msd, &owner), &owner),
        writer.apply(children::config_map(msd, &owner)),
        writer.apply(children::deployment(msd, &owner)),
        writer.reconcile_hpa(msd, &owner),
    );
    config?;
    deployment?;
    hpa?;
    Ok([service?, account?].into_iter().flatten().collect())
}

fn hpa_note(msd: &MicroServiceDeploy) -> &'static str {
    match (msd.spec.idle, msd.spec.autoscaling) {
        (true, _) => ", idle (0 replicas, no HPA)",
        (false, true) => ", HPA applied",
        (false, false) => "",
    }
}

/// Writes the children of one MicroServiceDeploy, skipping those the index says are already as desired.
struct Writer<'a> {
    writes: &'a ChildWrites,
    ctx: &'a Context,
    namespace: &'a str,
    index: &'a ChildIndex,
}

impl Writer<'_> {
    fn api<K>(&self) -> Api<K>
    where
        K: Resource<DynamicType = (), Scope = NamespaceResourceScope>,
    {
        self.ctx.api_in::<K>(self.namespace)
    }

    /// Server-side applies a child unless it is exactly what was last applied and unchanged since.
    async fn apply<K>(&self, obj: K) -> Result<(), ReconcileError>
    where
        K: Resource<DynamicType = (), Scope = NamespaceResourceScope>
            + Serialize
            + DeserializeOwned
            + Clone
            + std::fmt::Debug,
    {
        let name = obj.name_any();
        let write = self
            .index
            .apply(&self.api::<K>(), &obj, self.ctx.field_manager())
            .await
            .map_err(api_error(format!("apply {} {name}", K::kind(&()))))?;
        let outcome = match write {
            Write::Applied => "applied",
            Write::Skipped => "skipped",
        };
        self.writes.inc(&K::kind(&()), outcome);
        Ok(())
    }

    /// Applies a child unless another object controls it; then returns `Some("<Kind> <name>")`. Applying it anyway
    /// (same field manager) would silently replace the other owner's reference with ours.
    async fn apply_shared<K>(
        &self,
        obj: K,
        owner: &OwnerReference,
    ) -> Result<Option<String>, ReconcileError>
    where
        K: Resource<DynamicType = (), Scope = NamespaceResourceScope>
            + Serialize
            + DeserializeOwned
            + Clone
            + std::fmt::Debug,
    {
        let name = obj.name_any();
        let key = Key::of::<K>(self.namespace, &name);
        if let Some(Some(uid)) = self.index.controller_uid(&key)
            && uid != owner.uid
        {
            return Ok(Some(format!("{} {name}", K::kind(&()))));
        }
        self.apply(obj).await?;
        Ok(None)
    }

    /// Applies the HPA while autoscaling (and not idle), deletes it otherwise.
    async fn reconcile_hpa(
        &self,
        msd: &MicroServiceDeploy,
        owner: &OwnerReference,
    ) -> Result<(), ReconcileError> {
        if msd.spec.autoscaling && !msd.spec.idle {
            return self.apply(children::hpa(msd, owner)).await;
        }
        let name = &msd.spec.full_name;
        let key = Key::of::<HorizontalPodAutoscaler>(self.namespace, name);
        if !self.index.exists(&key) {
            // Not there (an HPA created but not yet seen reconciles this object again when it is seen).
            return Ok(());
        }
        match self
            .api::<HorizontalPodAutoscaler>()
            .delete(name, &DeleteParams::background())
            .await
        {
            Ok(_) => {}
            Err(rkb_runtime::kube::Error::Api(status)) if status.code == 404 => {}
            Err(e) => {
                return Err(api_error(format!("delete HorizontalPodAutoscaler {name}"))(
                    e.into(),
                ));
            }
        }
        self.writes.inc("HorizontalPodAutoscaler", "deleted");
        self.index.forget(&key);
        Ok(())
    }
}

/// Records `ready` and the observed generation, writing only when they changed (a status write is itself a change
/// of the object, which would reconcile it again).
async fn update_status(
    ctx: &Context,
    (index, writes): (&ChildIndex, &ChildWrites),
    msd: &MicroServiceDeploy,
    ready: rkb_runtime::Condition,
) -> Result<(), ReconcileError> {
    let namespace = msd.metadata.namespace.as_deref().unwrap_or_default();
    let key = Key::of::<MicroServiceDeploy>(namespace, &msd.name_any());
    let written = fingerprint(&(
        &msd.metadata.uid,
        msd.metadata.generation,
        &ready.status,
        &ready.reason,
        &ready.message,
    ));
    let mut status = msd.status.clone().unwrap_or_default();
    let mut changed = set_condition(&mut status.conditions, ready);
    if status.observed_generation != msd.metadata.generation {
        status.observed_generation = msd.metadata.generation;
        changed = true;
    }
    if !changed || index.status_written(&key, written) {
        writes.inc("MicroServiceDeploy/status", "skipped");
        return Ok(());
    }
    let patch = MicroServiceDeploy {
        metadata: rkb_runtime::ObjectMeta {
            name: msd.metadata.name.clone(),
            namespace: msd.metadata.namespace.clone(),
            ..Default::default()
        },
        spec: msd.spec.clone(),
        status: Some(status),
        ..Default::default()
    };
    let api = ctx.api_in::<MicroServiceDeploy>(namespace);
    writes.inc("MicroServiceDeploy/status", "applied");
    apply::apply_status(&api, &patch, ctx.field_manager())
        .await
        .map_err(api_error("apply status"))?;
    index.record_status(key, written);
    Ok(())
}
