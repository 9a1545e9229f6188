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

//! Reconciles DemoMicroService objects.

use std::sync::Arc;

use rkb_runtime::ResourceExt;
use rkb_runtime::finalizer::{Event, finalizer};
use rkb_runtime::{Action, Context, Controller, Error};

use crate::api::v1::DemoMicroService;

/// Keeps a DemoMicroService from disappearing until `cleanup` has run for it.
pub const FINALIZER: &str = "demomicroservice.finalizers.devops.my.domain";

/// Runs the DemoMicroService controller until the manager stops.
///
/// +kubebuilder:rbac:groups=devops.my.domain,resources=demomicroservices,verbs=get;list;watch;create;update;patch;delete
/// +kubebuilder:rbac:groups=devops.my.domain,resources=demomicroservices/status,verbs=get;update;patch
/// +kubebuilder:rbac:groups=devops.my.domain,resources=demomicroservices/finalizers,verbs=update
/// +kubebuilder:rbac:groups=events.k8s.io,resources=events,verbs=create;patch
pub async fn controller(ctx: Context) -> Result<(), Error> {
    // Add `.owns::<Deployment>()` and the like for the objects this controller creates, so their
    // changes reconcile the DemoMicroService that owns them (and an rbac marker for each). The events marker
    // above lets `ctx.publish_event` record what reconcile did on the DemoMicroService.
    Controller::for_kind::<DemoMicroService>(&ctx)
        .run(reconcile)
        .await
}

/// Moves the cluster towards the state a DemoMicroService asks for. It runs for every change of the object and
/// must be idempotent; an error retries it with per-object exponential backoff. Any error type works here
/// (anyhow, your own thiserror enum): the manager finds an API server outage or a 409 Conflict in its
/// `source()` chain and handles those apart, and logs the whole chain.
pub async fn reconcile(obj: Arc<DemoMicroService>, ctx: Context) -> anyhow::Result<Action> {
    let api = ctx.api_in::<DemoMicroService>(&obj.namespace().unwrap_or_default());
    let action = finalizer(&api, FINALIZER, obj, |event| async {
        match event {
            Event::Apply(obj) => apply(&obj, &ctx).await,
            Event::Cleanup(obj) => cleanup(&obj, &ctx).await,
        }
    })
    .await?;
    Ok(action)
}

/// Creates or updates what `obj.spec` asks for and records the outcome in `obj.status`. `finalizer` wants a
/// `std::error::Error` here: `kube::Error`, or an enum of your own whose messages say what was being done.
async fn apply(
    _obj: &DemoMicroService,
    _ctx: &Context,
) -> Result<Action, rkb_runtime::kube::Error> {
    // TODO(user): your logic here. Write owned objects with `rkb_runtime::apply::apply` (server-side apply), or
    // through a `rkb_runtime::child_index::ChildIndex` to skip the applies that would change nothing. Owned objects
    // (with an owner reference to the DemoMicroService) are deleted by the garbage collector; anything else must be removed
    // in `cleanup`.
    Ok(Action::await_change())
}

/// Removes what `apply` created outside the reach of owner references, before the DemoMicroService disappears.
async fn cleanup(
    _obj: &DemoMicroService,
    _ctx: &Context,
) -> Result<Action, rkb_runtime::kube::Error> {
    Ok(Action::await_change())
}
