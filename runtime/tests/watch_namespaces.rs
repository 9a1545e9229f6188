//! WATCH_NAMESPACE as a list: a manager watching two namespaces reconciles the objects of both and never asks the
//! API server about a third. Its client holds only a Role in each of the two namespaces, as config/rbac grants a
//! namespaced manager per namespace: a watch of all namespaces, or of the third, would be refused.

mod common;

use std::convert::Infallible;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use common::{config_map, create_namespace, manager_roles, quiet_options};
use k8s_openapi::api::core::v1::ConfigMap;
use kube::api::PostParams;
use kube::runtime::watcher;
use kube::{Api, ResourceExt};
use rkb_envtest::{Environment, eventually};
use rkb_runtime::{Action, BoxError, Context, Controller, Error, Manager};

const USER: &str = "rkb-multi-namespace";

/// What each watched namespace's Role grants the manager (what a namespaced project's config/rbac/role.yaml holds).
const RULES: &str = "- apiGroups: [\"\"]
  resources: [configmaps]
  verbs: [get, list, watch]
";

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_manager_watching_two_namespaces_reconciles_both_and_never_sees_a_third() {
    let env = Environment::builder()
        .with_audit_log()
        .start()
        .await
        .expect("envtest");
    let admin = env.client();
    for ns in ["ns-a", "ns-b", "ns-c"] {
        create_namespace(&admin, ns).await;
        create(&admin, ns, "early").await;
    }
    let rbac = manager_roles(&["ns-a", "ns-b"], RULES);
    let client = env.client_with_rbac(USER, &rbac).await.expect("roles");

    // A list with a name twice is refused before anything connects.
    let twice = Manager::builder("rkb-multi-namespace-test")
        .client(client.clone())
        .options(quiet_options())
        .watch_namespaces(["ns-a", "ns-b", "ns-a"])
        .build()
        .await;
    match twice {
        Err(Error::InvalidOptions(message)) => assert_eq!(
            message,
            "WATCH_NAMESPACE=\"ns-a,ns-b,ns-a\": namespace \"ns-a\" is listed twice (items 1 and 3); write each namespace once, separated by commas (e.g. WATCH_NAMESPACE=team-a,team-b)"
        ),
        Err(other) => panic!("{other}"),
        Ok(_) => panic!("a duplicate namespace was accepted"),
    }

    let mgr = Manager::builder("rkb-multi-namespace-test")
        .client(client)
        .options(quiet_options())
        .watch_namespaces(["ns-a", "ns-b"])
        .build()
        .await
        .expect("build manager");
    assert_eq!(mgr.context().namespaces(), ["ns-a", "ns-b"]);
    assert_eq!(mgr.context().namespace(), None, "several, not one");
    let seen: Arc<Mutex<Vec<String>>> = Arc::default();
    let log = seen.clone();
    mgr.add(move |ctx: Context| async move {
        Controller::for_kind_with::<ConfigMap>(&ctx, watcher::Config::default().labels("test=ns"))
            .run(move |cm: Arc<ConfigMap>, _ctx| {
                let log = log.clone();
                async move {
                    let key = format!("{}/{}", cm.namespace().unwrap_or_default(), cm.name_any());
                    log.lock().unwrap().push(key);
                    Ok::<_, BoxError>(Action::await_change())
                }
            })
            .await
    });
    let running = mgr.spawn();
    wait_reconciled(&seen, &["ns-a/early", "ns-b/early"]).await;
    for ns in ["ns-c", "ns-a", "ns-b"] {
        create(&admin, ns, "late").await;
    }
    wait_reconciled(&seen, &["ns-a/late", "ns-b/late"]).await;
    running.stop().await.expect("clean stop");

    let seen = seen.lock().unwrap().clone();
    assert!(!seen.iter().any(|key| key.starts_with("ns-c/")), "{seen:?}");
    // What the manager asked for ConfigMaps: list and watch in each listed namespace, nothing anywhere else.
    let asked: Vec<_> = env
        .audit_events()
        .expect("audit log")
        .into_iter()
        .filter(|e| e.user == USER && e.resource == "configmaps")
        .collect();
    for ns in ["ns-a", "ns-b"] {
        assert!(
            asked
                .iter()
                .any(|e| e.verb == "watch" && e.namespace.as_deref() == Some(ns)),
            "no watch in {ns}: {asked:#?}"
        );
    }
    let elsewhere: Vec<_> = asked
        .iter()
        .filter(|e| !matches!(e.namespace.as_deref(), Some("ns-a" | "ns-b")))
        .map(|e| format!("{} {}", e.verb, e.request_uri))
        .collect();
    assert!(elsewhere.is_empty(), "{elsewhere:#?}");
}

async fn create(client: &kube::Client, namespace: &str, name: &str) {
    let mut cm = config_map(name, &[("test", "ns")]);
    cm.metadata.namespace = Some(namespace.into());
    Api::<ConfigMap>::namespaced(client.clone(), namespace)
        .create(&PostParams::default(), &cm)
        .await
        .unwrap();
}

/// Waits until each of `keys` (namespace/name) has been reconciled.
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
