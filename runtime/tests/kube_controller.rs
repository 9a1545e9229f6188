//! kube-rs habits under the manager: a `kube::runtime::Controller` built by hand, added with `Manager::add` and
//! nothing else, reconciles, stops with the manager, and does not hold /readyz back.

mod common;

use std::convert::Infallible;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use common::{config_map, create_config_map, http_get, quiet_options};
use futures::StreamExt;
use k8s_openapi::api::core::v1::ConfigMap;
use kube::Api;
use kube::runtime::controller::{Action, Controller};
use kube::runtime::watcher;
use rkb_envtest::{Environment, eventually};
use rkb_runtime::{Context, Manager, ManagerOptions};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_hand_built_kube_controller_runs_and_does_not_hold_readyz_back() {
    let env = Environment::start().await.expect("envtest");
    let client = env.client();
    create_config_map(
        &client,
        &config_map("by-hand", &[("test", "kube-controller")]),
    )
    .await;

    let options = ManagerOptions {
        health_probe_bind_address: "127.0.0.1:0".into(),
        ..quiet_options()
    };
    let mgr = Manager::builder("rkb-kube-controller-test")
        .config(env.config().clone())
        .options(options)
        .build()
        .await
        .expect("build manager");
    let health_addr = mgr.health_addr().unwrap();
    let reconciled = Arc::new(AtomicUsize::new(0));
    let seen = reconciled.clone();
    mgr.add(move |ctx: Context| async move {
        let api: Api<ConfigMap> = Api::namespaced(ctx.client(), "default");
        Controller::new(
            api,
            watcher::Config::default().labels("test=kube-controller"),
        )
        .graceful_shutdown_on(ctx.shutdown_signal())
        .run(
            |_cm: Arc<ConfigMap>, seen: Arc<AtomicUsize>| async move {
                seen.fetch_add(1, Ordering::SeqCst);
                Ok::<_, kube::Error>(Action::await_change())
            },
            |_cm, _err, _seen| Action::requeue(Duration::from_secs(1)),
            seen,
        )
        .for_each(|_| async {})
        .await;
        Ok::<(), Infallible>(())
    });
    let running = mgr.spawn();

    eventually("the hand-built controller to reconcile", Duration::from_secs(20), || {
        let reconciled = reconciled.clone();
        async move { Ok::<_, Infallible>((reconciled.load(Ordering::SeqCst) >= 1).then_some(())) }
    })
    .await
    .unwrap();
    eventually(
        "/readyz to pass without mark_ready",
        Duration::from_secs(10),
        || async move {
            Ok::<_, Infallible>((http_get(health_addr, "/readyz").await.0 == 200).then_some(()))
        },
    )
    .await
    .unwrap();
    running
        .stop()
        .await
        .expect("the manager stops with the hand-built controller");
}
