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

use rkb_runtime::child_index::{ChildIndex, Key};
use rkb_runtime::conditions::{FALSE, TRUE, new_condition, set_condition};
use rkb_runtime::k8s_openapi::api::apps::v1::Deployment;
use rkb_runtime::k8s_openapi::api::autoscaling::v1::HorizontalPodAutoscaler;
use rkb_runtime::k8s_openapi::api::core::v1::{ConfigMap, Service, ServiceAccount};
use rkb_runtime::k8s_openapi::apimachinery::pkg::apis::meta::v1::OwnerReference;
use rkb_runtime::kube::core::NamespaceResourceScope;
use rkb_runtime::kube::runtime::watcher;
use rkb_runtime::{
    Action, Api, Context, Controller, Error, ErrorChain, Resource, ResourceExt, apply,
};
use serde::Serialize;
use serde::de::DeserializeOwned;

use super::children;
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
    #[error("cannot {action}")]
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
/// +kubebuilder:rbac:groups=custom.ops,resources=microservicedeploys,verbs=list;watch
/// +kubebuilder:rbac:groups=custom.ops,resources=microservicedeploys/status,verbs=patch
/// +kubebuilder:rbac:groups=custom.ops,resources=microservicedeploys/finalizers,verbs=update
/// +kubebuilder:rbac:groups="",resources=services;serviceaccounts;configmaps,verbs=list;watch;create;patch
/// +kubebuilder:rbac:groups=apps,resources=deployments,verbs=list;watch;create;patch
/// +kubebuilder:rbac:groups=autoscaling,resources=horizontalpodautoscalers,verbs=list;watch;create;patch;delete
/// +kubebuilder:rbac:groups="",resources=resourcequotas;limitranges,verbs=create;patch
pub async fn controller_with(ctx: Context, settings: Settings) -> Result<(), Error> {
    let index = ChildIndex::default();
    let reconcile_index = index.clone();
    // The index watches each child kind and reconciles the children's owners on its events (one watch per kind).
    let controller = Controller::for_kind::<MicroServiceDeploy>(&ctx)
        .owns_indexed::<Service>(&index, labelled_children())
        .owns_indexed::<ServiceAccount>(&index, labelled_children())
        .owns_indexed::<ConfigMap>(&index, labelled_children())
        .owns_indexed::<Deployment>(&index, labelled_children())
        .owns_indexed::<HorizontalPodAutoscaler>(&index, labelled_children())
        .concurrency(settings.concurrency)
        .run(move |msd, ctx| reconcile(msd, ctx, reconcile_index.clone()));
    let ((), result) = tokio::join!(settings.namespace_defaults.ensure(&ctx), controller);
    result
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
) -> Result<Action, ReconcileError> {
    // Children carry controller references: the garbage collector removes them, no finalizer needed.
    if msd.metadata.deletion_timestamp.is_some() {
        return Ok(Action::await_change());
    }
    let generation = msd.metadata.generation;
    match apply_children(&msd, &ctx, &index).await {
        Ok(shared_elsewhere) if shared_elsewhere.is_empty() => {
            let message = format!(
                "Service, ServiceAccount, ConfigMap and Deployment applied{}",
                hpa_note(&msd)
            );
            let ready = new_condition(READY, TRUE, "Reconciled", message, generation);
            update_status(&ctx, &index, &msd, ready).await?;
            Ok(Action::await_change())
        }
        Ok(shared_elsewhere) => {
            let message = format!(
                "ConfigMap and Deployment applied{}; {} (msName {}) controlled by another object, used as they are",
                hpa_note(&msd),
                shared_elsewhere.join(" and "),
                msd.spec.ms_name
            );
            let ready = new_condition(READY, TRUE, "SharingService", message, generation);
            update_status(&ctx, &index, &msd, ready).await?;
            Ok(Action::requeue(SHARED_RECHECK))
        }
        // The API server cannot be reached: a status write could not succeed either. The manager pauses the
        // reconciles until it answers (rkb_runtime::outage).
        Err(e) if rkb_runtime::outage::is_unavailable(&e) => Err(e),
        Err(e) => {
            // Best effort: the reconcile error (retried with backoff) matters more than recording it.
            let message = ErrorChain(&e).to_string();
            let failed = new_condition(READY, FALSE, "ApplyFailed", message, generation);
            if let Err(status_error) = update_status(&ctx, &index, &msd, failed).await {
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
) -> Result<Vec<String>, ReconcileError> {
    let namespace = msd
        .namespace()
        .ok_or_else(|| ReconcileError::NoNamespace(msd.name_any()))?;
    // controller=true and blockOwnerDeletion=true, as controllerutil.SetControllerReference.
    let owner = apply::controller_owner_ref(msd).map_err(api_error("build the owner reference"))?;
    let writer = Writer {
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
        self.index
            .apply(&self.api::<K>(), &obj, self.ctx.field_manager())
            .await
            .map_err(api_error(format!("apply {} {name}", K::kind(&()))))?;
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
        self.index
            .delete(&self.api::<HorizontalPodAutoscaler>(), name)
            .await
            .map_err(api_error(format!("delete HorizontalPodAutoscaler {name}")))?;
        Ok(())
    }
}

/// Records `ready` and the observed generation; the index writes the status only when it changed (a status write
/// is itself a change of the object, which would reconcile it again).
async fn update_status(
    ctx: &Context,
    index: &ChildIndex,
    msd: &MicroServiceDeploy,
    ready: rkb_runtime::Condition,
) -> Result<(), ReconcileError> {
    let mut status = msd.status.clone().unwrap_or_default();
    set_condition(&mut status.conditions, ready);
    status.observed_generation = msd.metadata.generation;
    let api = ctx.api_in::<MicroServiceDeploy>(&msd.namespace().unwrap_or_default());
    index
        .apply_status(&api, msd, &status, ctx.field_manager())
        .await
        .map_err(api_error("apply the status"))?;
    Ok(())
}
