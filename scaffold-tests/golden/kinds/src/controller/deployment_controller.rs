// Copyright 2026 The kinds Authors.
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

//! Reconciles Deployment objects (k8s_openapi::api::apps::v1::Deployment, a kind this project does not define).

use std::sync::Arc;

use rkb_runtime::{Action, Context, Controller, Error};

use k8s_openapi::api::apps::v1::Deployment;

/// The name of this controller in metrics (`controller_runtime_reconcile_total{controller=...}`) and logs.
pub const NAME: &str = "deployment";

/// Runs the deployment controller until the manager stops.
///
/// +kubebuilder:rbac:groups=apps,resources=deployments,verbs=get;list;watch;create;update;patch;delete
/// +kubebuilder:rbac:groups=apps,resources=deployments/status,verbs=get;update;patch
/// +kubebuilder:rbac:groups=apps,resources=deployments/finalizers,verbs=update
/// +kubebuilder:rbac:groups=events.k8s.io,resources=events,verbs=create;patch
pub async fn controller(ctx: Context) -> Result<(), Error> {
    // Every Deployment in the watch scope is reconciled, not only those this operator created: narrow the watch with
    // `Controller::for_kind_with(&ctx, watcher::Config::default().labels(..))` when only some concern it. Trim the
    // verbs above to what reconcile does: they grant it on every Deployment.
    Controller::for_kind::<Deployment>(&ctx)
        .named(NAME)
        .run(reconcile)
        .await
}

/// Moves the cluster towards the state a Deployment asks for. It runs for every change of the object and must be
/// idempotent; an error retries it with per-object exponential backoff. There is no finalizer: one would hold
/// up the deletion of every Deployment until this controller runs.
pub async fn reconcile(obj: Arc<Deployment>, ctx: Context) -> anyhow::Result<Action> {
    // TODO(user): your logic here, e.g. `rkb_runtime::apply::apply` (server-side apply) of what the Deployment needs.
    let _ = (obj, ctx);
    Ok(Action::await_change())
}
