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

//! Reconciles MicroServiceDeploy objects.

use std::sync::Arc;

use rkb_runtime::finalizer::{Event, finalizer};
use rkb_runtime::{Action, BoxError, Context, Controller, Error};
use rkb_runtime::ResourceExt;

use crate::api::v1::MicroServiceDeploy;

/// Keeps a MicroServiceDeploy from disappearing until `cleanup` has run for it.
pub const FINALIZER: &str = "microservicedeploy.finalizers.custom.ops";

/// Runs the MicroServiceDeploy controller until the manager stops.
///
/// +kubebuilder:rbac:groups=custom.ops,resources=microservicedeploys,verbs=get;list;watch;create;update;patch;delete
/// +kubebuilder:rbac:groups=custom.ops,resources=microservicedeploys/status,verbs=get;update;patch
/// +kubebuilder:rbac:groups=custom.ops,resources=microservicedeploys/finalizers,verbs=update
pub async fn controller(ctx: Context) -> Result<(), Error> {
    // Add `.owns::<Deployment>()` and the like for the objects this controller creates, so their
    // changes reconcile the MicroServiceDeploy that owns them.
    Controller::for_kind::<MicroServiceDeploy>(&ctx).run(reconcile).await
}

/// Moves the cluster towards the state a MicroServiceDeploy asks for. It runs for every change of the object and
/// must be idempotent; an error retries it with per-object exponential backoff.
pub async fn reconcile(obj: Arc<MicroServiceDeploy>, ctx: Context) -> Result<Action, BoxError> {
    let api = ctx.api_in::<MicroServiceDeploy>(&obj.namespace().unwrap_or_default());
    let action = finalizer(&api, FINALIZER, obj, |event| async {
        match event {
            Event::Apply(obj) => apply(&obj, &ctx).await,
            Event::Cleanup(obj) => cleanup(&obj, &ctx).await,
        }
    })
    .await?;
    Ok(action)
}

/// Creates or updates what `obj.spec` asks for and records the outcome in `obj.status`.
async fn apply(_obj: &MicroServiceDeploy, _ctx: &Context) -> Result<Action, rkb_runtime::kube::Error> {
    // TODO(user): your logic here. Owned objects (with an owner reference to the MicroServiceDeploy) are deleted by the
    // garbage collector; anything else must be removed in `cleanup`.
    Ok(Action::await_change())
}

/// Removes what `apply` created outside the reach of owner references, before the MicroServiceDeploy disappears.
async fn cleanup(_obj: &MicroServiceDeploy, _ctx: &Context) -> Result<Action, rkb_runtime::kube::Error> {
    Ok(Action::await_change())
}
