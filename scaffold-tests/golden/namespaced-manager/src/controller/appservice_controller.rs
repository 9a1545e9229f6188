//! Reconciles AppService objects.

use std::sync::Arc;

use rkb_runtime::ResourceExt;
use rkb_runtime::finalizer::{Event, finalizer};
use rkb_runtime::{Action, Context, Controller, Error};

use crate::api::v1alpha1::AppService;

/// Keeps a AppService from disappearing until `cleanup` has run for it.
pub const FINALIZER: &str = "appservice.finalizers.batch.example.com";

/// Runs the AppService controller until the manager stops.
///
/// +kubebuilder:rbac:groups=batch.example.com,resources=appservices,verbs=get;list;watch;create;update;patch;delete,namespace=app-operator-system
/// +kubebuilder:rbac:groups=batch.example.com,resources=appservices/status,verbs=get;update;patch,namespace=app-operator-system
/// +kubebuilder:rbac:groups=batch.example.com,resources=appservices/finalizers,verbs=update,namespace=app-operator-system
/// +kubebuilder:rbac:groups=events.k8s.io,resources=events,verbs=create;patch,namespace=app-operator-system
pub async fn controller(ctx: Context) -> Result<(), Error> {
    // Add `.owns::<Deployment>()` and the like for the objects this controller creates, so their
    // changes reconcile the AppService that owns them (and an rbac marker for each). The events marker
    // above lets `ctx.publish_event` record what reconcile did on the AppService.
    Controller::for_kind::<AppService>(&ctx)
        .run(reconcile)
        .await
}

/// Moves the cluster towards the state a AppService asks for. It runs for every change of the object and
/// must be idempotent; an error retries it with per-object exponential backoff. Any error type works here
/// (anyhow, your own thiserror enum): the manager finds an API server outage or a 409 Conflict in its
/// `source()` chain and handles those apart, and logs the whole chain.
pub async fn reconcile(obj: Arc<AppService>, ctx: Context) -> anyhow::Result<Action> {
    let api = ctx.api_in::<AppService>(&obj.namespace().unwrap_or_default());
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
async fn apply(_obj: &AppService, _ctx: &Context) -> Result<Action, rkb_runtime::kube::Error> {
    // TODO(user): your logic here. Write owned objects with `rkb_runtime::apply::apply` (server-side apply), or
    // through a `rkb_runtime::child_index::ChildIndex` to skip the applies that would change nothing. Owned objects
    // (with an owner reference to the AppService) are deleted by the garbage collector; anything else must be removed
    // in `cleanup`.
    Ok(Action::await_change())
}

/// Removes what `apply` created outside the reach of owner references, before the AppService disappears.
async fn cleanup(_obj: &AppService, _ctx: &Context) -> Result<Action, rkb_runtime::kube::Error> {
    Ok(Action::await_change())
}
