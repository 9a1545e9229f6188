//! A minimal hand-written kube-rs operator: one CRD type, one Controller, a finalizer.

use std::sync::Arc;
use std::time::Duration;

use futures::StreamExt;
use kube::runtime::controller::{Action, Controller};
use kube::runtime::finalizer::{Event, finalizer};
use kube::runtime::watcher;
use kube::{Api, Client, CustomResource, ResourceExt};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

const FINALIZER: &str = "demomicroservice.finalizers.devops.my.domain";

/// The desired state of a DemoMicroService.
#[derive(CustomResource, Deserialize, Serialize, Clone, Debug, Default, JsonSchema)]
#[kube(group = "devops.my.domain", version = "v1", kind = "DemoMicroService", namespaced)]
#[kube(status = "DemoMicroServiceStatus")]
pub struct DemoMicroServiceSpec {
    pub foo: Option<String>,
}

/// The observed state of a DemoMicroService.
#[derive(Deserialize, Serialize, Clone, Debug, Default, JsonSchema)]
pub struct DemoMicroServiceStatus {
    pub ready: bool,
}

#[derive(Debug, thiserror::Error)]
enum Error {
    #[error(transparent)]
    Finalizer(#[from] Box<kube::runtime::finalizer::Error<kube::Error>>),
}

struct Ctx {
    client: Client,
}

async fn reconcile(obj: Arc<DemoMicroService>, ctx: Arc<Ctx>) -> Result<Action, Error> {
    let api: Api<DemoMicroService> = Api::namespaced(ctx.client.clone(), &obj.namespace().unwrap_or_default());
    finalizer(&api, FINALIZER, obj, |event| async move {
        match event {
            Event::Apply(_) | Event::Cleanup(_) => Ok::<_, kube::Error>(Action::await_change()),
        }
    })
    .await
    .map_err(|e| Error::Finalizer(Box::new(e)))
}

fn error_policy(_obj: Arc<DemoMicroService>, _err: &Error, _ctx: Arc<Ctx>) -> Action {
    Action::requeue(Duration::from_secs(5))
}

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    tracing_subscriber::fmt::init();
    let client = Client::try_default().await?;
    let api: Api<DemoMicroService> = Api::all(client.clone());
    Controller::new(api, watcher::Config::default())
        .shutdown_on_signal()
        .run(reconcile, error_policy, Arc::new(Ctx { client }))
        .for_each(|result| async move {
            if let Err(err) = result {
                tracing::warn!(%err, "reconcile failed");
            }
        })
        .await;
    Ok(())
}
