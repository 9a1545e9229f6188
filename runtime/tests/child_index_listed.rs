//! A controller with a child index starts reconciling once the index has listed its children (as
//! controller-runtime's controllers start once every cache has synced): its first reconcile already knows a child
//! that existed before the process started, however long the child watch's initial list takes.

mod common;

use std::collections::BTreeMap;
use std::convert::Infallible;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use common::{config_map, create_config_map, quiet_options};
use k8s_openapi::api::core::v1::{ConfigMap, Secret};
use kube::api::PostParams;
use kube::runtime::watcher;
use kube::{Api, Client};
use rkb_envtest::{Environment, eventually};
use rkb_runtime::child_index::{ChildIndex, Key};
use rkb_runtime::{Action, Context, Controller, Manager};

const NS: &str = "default";
const OWNERS: &str = "test=owner";
const CHILDREN: &str = "test=child";
/// Children the watch lists before the owner's own (the watch cache lists in name order), so that the child
/// watch's initial list takes longer than the owner watch's.
const OTHER_CHILDREN: usize = 400;

async fn children(client: &Client) {
    let secrets: Api<Secret> = Api::namespaced(client.clone(), NS);
    let names = (0..OTHER_CHILDREN)
        .map(|i| format!("child-{i:04}"))
        .chain(["zzz-owners-child".to_string()]);
    for name in names {
        let mut secret = Secret::default();
        secret.metadata.name = Some(name);
        secret.metadata.labels = Some(BTreeMap::from([("test".into(), "child".into())]));
        secrets
            .create(&PostParams::default(), &secret)
            .await
            .expect("create a child");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_first_reconcile_knows_the_children_listed_before_it() {
    let env = Environment::start().await.expect("envtest");
    let client = env.client();
    children(&client).await;
    create_config_map(&client, &config_map("owner", &[("test", "owner")])).await;

    let mgr = Manager::builder("rkb-index-listed-test")
        .config(env.config().clone())
        .options(quiet_options())
        .build()
        .await
        .expect("build manager");
    // Whether each reconcile found the owner's child in the index.
    let known: Arc<Mutex<Vec<bool>>> = Arc::default();
    let recorded = known.clone();
    mgr.add(move |ctx: Context| {
        let index = ChildIndex::default();
        let reconciling = index.clone();
        Controller::for_kind_with::<ConfigMap>(&ctx, watcher::Config::default().labels(OWNERS))
            .owns_indexed::<Secret>(&index, watcher::Config::default().labels(CHILDREN))
            .run(move |_: Arc<ConfigMap>, _| {
                let child = Key::of::<Secret>(NS, "zzz-owners-child");
                recorded.lock().unwrap().push(reconciling.exists(&child));
                async { Ok::<_, Infallible>(Action::await_change()) }
            })
    });
    let running = mgr.spawn();

    eventually("a reconcile", Duration::from_secs(30), || {
        let reconciled = !known.lock().unwrap().is_empty();
        async move { Ok::<_, Infallible>(reconciled.then_some(())) }
    })
    .await
    .unwrap();
    assert!(
        known.lock().unwrap()[0],
        "the first reconcile knew the child"
    );
    running.stop().await.expect("stop the manager");
    env.stop().await.expect("stop envtest");
}
