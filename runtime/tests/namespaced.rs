//! A manager limited to one namespace (--namespaced) reconciles only that namespace's objects, while
//! cluster-scoped kinds are still watched cluster-wide.

mod common;

use std::convert::Infallible;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use common::{config_map, create_namespace, quiet_options};
use k8s_openapi::api::core::v1::{ConfigMap, Namespace};
use kube::api::PostParams;
use kube::runtime::watcher;
use kube::{Api, ResourceExt};
use rkb_envtest::{Environment, eventually};
use rkb_runtime::{Action, BoxError, Context, Controller, Manager};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_namespaced_manager_sees_only_its_namespace() {
    let env = Environment::start().await.expect("envtest");
    let client = env.client();
    for ns in ["watched", "other"] {
        create_namespace(&client, ns).await;
        let mut cm = config_map(&format!("in-{ns}"), &[("test", "ns")]);
        cm.metadata.namespace = Some(ns.into());
        Api::<ConfigMap>::namespaced(client.clone(), ns)
            .create(&PostParams::default(), &cm)
            .await
            .unwrap();
    }

    let seen: Arc<Mutex<Vec<String>>> = Arc::default();
    let mgr = Manager::builder("rkb-namespaced-test")
        .client(client.clone())
        .options(quiet_options())
        .watch_namespace("watched")
        .build()
        .await
        .expect("build manager");
    assert_eq!(mgr.context().namespace(), Some("watched"));
    let (cms, namespaces) = (seen.clone(), seen.clone());
    mgr.add(move |ctx: Context| async move {
        Controller::for_kind_with::<ConfigMap>(&ctx, watcher::Config::default().labels("test=ns"))
            .run(move |cm: Arc<ConfigMap>, _ctx| {
                let seen = cms.clone();
                async move {
                    let key = format!(
                        "cm {}/{}",
                        cm.namespace().unwrap_or_default(),
                        cm.name_any()
                    );
                    seen.lock().unwrap().push(key);
                    Ok::<_, BoxError>(Action::await_change())
                }
            })
            .await
    });
    mgr.add(move |ctx: Context| async move {
        Controller::for_kind::<Namespace>(&ctx)
            .run(move |ns: Arc<Namespace>, _ctx| {
                let seen = namespaces.clone();
                async move {
                    seen.lock().unwrap().push(format!("ns {}", ns.name_any()));
                    Ok::<_, BoxError>(Action::await_change())
                }
            })
            .await
    });
    let running = mgr.spawn();

    wait_reconciled(&seen, &["cm watched/in-watched", "ns watched", "ns other"]).await;
    // A ConfigMap in each namespace: a watch that reached past "watched" delivers "late" in "other" before "late" in
    // "watched" (resourceVersion order), so once the latter is reconciled the former has had its chance.
    for ns in ["other", "watched"] {
        let mut cm = config_map("late", &[("test", "ns")]);
        cm.metadata.namespace = Some(ns.into());
        Api::<ConfigMap>::namespaced(client.clone(), ns)
            .create(&PostParams::default(), &cm)
            .await
            .unwrap();
    }
    wait_reconciled(&seen, &["cm watched/late"]).await;
    let seen = seen.lock().unwrap().clone();
    assert!(!seen.iter().any(|s| s.contains("other/")), "{seen:?}");

    running.stop().await.expect("clean stop");
}

/// Waits until each of `keys` has been reconciled.
async fn wait_reconciled(seen: &Mutex<Vec<String>>, keys: &[&str]) {
    eventually(
        &format!("reconciles of {keys:?}"),
        Duration::from_secs(20),
        || {
            let seen = seen.lock().unwrap().clone();
            async move {
                let has = |key: &&str| seen.iter().any(|s| s == key);
                Ok::<_, Infallible>(keys.iter().all(has).then_some(()))
            }
        },
    )
    .await
    .unwrap();
}
