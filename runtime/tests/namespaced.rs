//! A manager limited to one namespace (--namespaced) reconciles only that namespace's objects, while
//! cluster-scoped kinds are still watched cluster-wide.

mod common;

use std::convert::Infallible;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use common::{config_map, quiet_options};
use k8s_openapi::api::core::v1::{ConfigMap, Namespace};
use kube::api::{ObjectMeta, PostParams};
use kube::runtime::watcher;
use kube::{Api, ResourceExt};
use rkb_envtest::{Environment, eventually};
use rkb_runtime::{Action, BoxError, Context, Controller, Manager};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_namespaced_manager_sees_only_its_namespace() {
    let env = Environment::start().await.expect("envtest");
    let client = env.client();
    for ns in ["watched", "other"] {
        let namespace = Namespace {
            metadata: ObjectMeta {
                name: Some(ns.into()),
                ..ObjectMeta::default()
            },
            ..Namespace::default()
        };
        Api::<Namespace>::all(client.clone())
            .create(&PostParams::default(), &namespace)
            .await
            .unwrap();
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

    eventually(
        "both namespaces and the watched ConfigMap",
        Duration::from_secs(20),
        || {
            let seen = seen.lock().unwrap().clone();
            async move {
                let has = |s: &str| seen.iter().any(|x| x == s);
                Ok::<_, Infallible>(
                    (has("cm watched/in-watched") && has("ns watched") && has("ns other"))
                        .then_some(()),
                )
            }
        },
    )
    .await
    .unwrap();
    // Give a stray reconcile of the other namespace's ConfigMap time to show up.
    tokio::time::sleep(Duration::from_millis(500)).await;
    let seen = seen.lock().unwrap().clone();
    assert!(!seen.iter().any(|s| s.contains("other/")), "{seen:?}");

    running.stop().await.expect("clean stop");
}
