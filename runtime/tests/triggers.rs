//! Reconcile requests from outside the watches: `ControllerBuilder::reconciles_on` (timers, channels, external
//! systems' events) reconciles the objects a stream names, without any change to them.

mod common;

use std::convert::Infallible;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use common::{config_map, create_config_map, quiet_options};
use k8s_openapi::api::core::v1::ConfigMap;
use kube::runtime::watcher;
use rkb_envtest::{Environment, eventually};
use rkb_runtime::{Action, Context, Controller, Manager, ObjectRef};
use tokio::sync::mpsc;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_stream_of_object_refs_reconciles_those_objects() {
    let env = Environment::start().await.expect("envtest");
    let client = env.client();
    create_config_map(&client, &config_map("pinged", &[("test", "triggers")])).await;
    let mgr = Manager::builder("rkb-triggers-test")
        .client(client.clone())
        .options(quiet_options())
        .build()
        .await
        .expect("build manager");
    let (ping, mut pinged) = mpsc::unbounded_channel::<ObjectRef<ConfigMap>>();
    let pings = futures::stream::poll_fn(move |cx| pinged.poll_recv(cx));
    let reconciles = Arc::new(AtomicUsize::new(0));
    let counted = reconciles.clone();
    mgr.add(move |ctx: Context| async move {
        Controller::for_kind_with::<ConfigMap>(
            &ctx,
            watcher::Config::default().labels("test=triggers"),
        )
        .reconciles_on(pings)
        .run(move |_cm: Arc<ConfigMap>, _| {
            counted.fetch_add(1, Ordering::SeqCst);
            async { Ok::<_, Infallible>(Action::await_change()) }
        })
        .await
    });
    let running = mgr.spawn();
    let reconciled = |n: usize| {
        let reconciles = reconciles.clone();
        move || {
            let done = reconciles.load(Ordering::SeqCst) >= n;
            async move { Ok::<_, Infallible>(done.then_some(())) }
        }
    };
    eventually(
        "the first reconcile",
        Duration::from_secs(20),
        reconciled(1),
    )
    .await
    .unwrap();
    // Unchanged, the object reconciles again only because the stream names it.
    ping.send(ObjectRef::new("pinged").within("default"))
        .unwrap();
    eventually(
        "a reconcile from the stream",
        Duration::from_secs(20),
        reconciled(2),
    )
    .await
    .unwrap();
    running.stop().await.expect("manager stops cleanly");
}
