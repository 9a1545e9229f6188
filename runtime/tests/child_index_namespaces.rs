//! A child index under a WATCH_NAMESPACE list: `owns_indexed` watches its child kind in each watched namespace (one
//! watch per namespace, as the controller's own kind), so a manager holding only a Role in each namespace runs it.
//! Owners in both namespaces get their children, a child deleted by someone else in either is written again (the
//! index saw the deletion and reconciled its owner), and the audit log shows no request outside the two namespaces.

mod common;

use std::convert::Infallible;
use std::sync::Arc;
use std::time::Duration;

use common::{config_map, create_namespace, manager_roles, quiet_options};
use k8s_openapi::api::core::v1::{ConfigMap, Secret};
use kube::api::{DeleteParams, ObjectMeta, PostParams};
use kube::runtime::watcher;
use kube::{Api, Resource, ResourceExt};
use rkb_envtest::{Environment, eventually};
use rkb_runtime::child_index::ChildIndex;
use rkb_runtime::{Action, BoxError, Context, Controller, Manager};

const USER: &str = "rkb-index-namespaces";
const WATCHED: [&str; 2] = ["ns-a", "ns-b"];

/// What each watched namespace's Role grants the manager: its owners (ConfigMaps) and children (Secrets).
const RULES: &str = "- apiGroups: [\"\"]
  resources: [configmaps]
  verbs: [get, list, watch]
- apiGroups: [\"\"]
  resources: [secrets]
  verbs: [get, list, watch, create, patch, delete]
";

/// The Secret a ConfigMap owns, named after it and labelled for the index's watch.
fn child_of(owner: &ConfigMap) -> Secret {
    Secret {
        metadata: ObjectMeta {
            name: Some(format!("{}-child", owner.name_any())),
            namespace: owner.namespace(),
            labels: Some([("test".to_string(), "child".to_string())].into()),
            owner_references: owner.controller_owner_ref(&()).map(|r| vec![r]),
            ..ObjectMeta::default()
        },
        string_data: Some([("from".to_string(), owner.name_any())].into()),
        ..Secret::default()
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_indexed_child_kind_is_watched_in_each_namespace_only() {
    let env = Environment::builder()
        .with_audit_log()
        .start()
        .await
        .expect("envtest");
    let admin = env.client();
    for ns in ["ns-a", "ns-b", "ns-c"] {
        create_namespace(&admin, ns).await;
        let mut owner = config_map("owner", &[("test", "owner")]);
        owner.metadata.namespace = Some(ns.into());
        Api::<ConfigMap>::namespaced(admin.clone(), ns)
            .create(&PostParams::default(), &owner)
            .await
            .unwrap();
    }
    let rbac = manager_roles(&WATCHED, RULES);
    let client = env.client_with_rbac(USER, &rbac).await.expect("roles");
    let mgr = Manager::builder("rkb-index-namespaces-test")
        .client(client)
        .options(quiet_options())
        .watch_namespaces(WATCHED)
        .build()
        .await
        .expect("build manager");
    mgr.add(move |ctx: Context| async move {
        let index = ChildIndex::default();
        let children = watcher::Config::default().labels("test=child");
        Controller::for_kind_with::<ConfigMap>(
            &ctx,
            watcher::Config::default().labels("test=owner"),
        )
        .owns_indexed::<Secret>(&index, children)
        .run(move |owner: Arc<ConfigMap>, ctx: Context| {
            let index = index.clone();
            async move {
                let ns = owner.namespace().unwrap_or_default();
                let secrets: Api<Secret> = ctx.api_in(&ns);
                index
                    .apply(&secrets, &child_of(&owner), ctx.field_manager())
                    .await?;
                Ok::<_, BoxError>(Action::await_change())
            }
        })
        .await
    });
    let running = mgr.spawn();
    for ns in WATCHED {
        wait_child(&admin, ns).await;
    }
    // Deleted by someone else in each namespace: the index's watch there reconciles the owner, which writes it again.
    for ns in WATCHED {
        Api::<Secret>::namespaced(admin.clone(), ns)
            .delete("owner-child", &DeleteParams::default())
            .await
            .unwrap();
        wait_child(&admin, ns).await;
    }
    running.stop().await.expect("clean stop");

    let untouched = Api::<Secret>::namespaced(admin.clone(), "ns-c")
        .get_opt("owner-child")
        .await
        .unwrap();
    assert!(
        untouched.is_none(),
        "an owner outside the watched namespaces got a child"
    );
    let asked: Vec<_> = env
        .audit_events()
        .expect("audit log")
        .into_iter()
        .filter(|e| e.user == USER && !e.is_non_resource())
        .collect();
    for ns in WATCHED {
        assert!(
            asked.iter().any(|e| e.verb == "watch"
                && e.resource == "secrets"
                && e.namespace.as_deref() == Some(ns)),
            "no watch of secrets in {ns}: {asked:#?}"
        );
    }
    let elsewhere: Vec<_> = asked
        .iter()
        .filter(|e| !matches!(e.namespace.as_deref(), Some("ns-a" | "ns-b")))
        .map(|e| format!("{} {} (code {:?})", e.verb, e.request_uri, e.code))
        .collect();
    assert!(elsewhere.is_empty(), "{elsewhere:#?}");
}

/// Waits until the owner's child exists in `namespace` (recreated after a deletion: a new uid each time is fine).
async fn wait_child(admin: &kube::Client, namespace: &str) {
    let secrets = Api::<Secret>::namespaced(admin.clone(), namespace);
    eventually(
        &format!("the child in {namespace}"),
        Duration::from_secs(30),
        || {
            let secrets = secrets.clone();
            async move {
                let found = secrets.get_opt("owner-child").await.ok().flatten();
                Ok::<_, Infallible>(found.map(|_| ()))
            }
        },
    )
    .await
    .unwrap();
}
