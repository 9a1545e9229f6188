//! Informers and the shared factory against a real kube-apiserver (rkb-envtest), on ConfigMaps.

use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::Duration;

use k8s_openapi::api::core::v1::{ConfigMap, Namespace};
use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;
use rkb_envtest::{Environment, eventually};
use rkb_runtime::client::{DeleteParams, PostParams, ResourceClient};
use rkb_runtime::informer::{HandlerFuncs, SharedInformerFactory};
use rkb_runtime::lister::parse_selector;
use tokio::sync::mpsc;

const WAIT: Duration = Duration::from_secs(20);

fn cm(name: &str, labels: &[(&str, &str)], data: &str) -> ConfigMap {
    ConfigMap {
        metadata: ObjectMeta {
            name: Some(name.into()),
            labels: Some(
                labels
                    .iter()
                    .map(|(k, v)| (k.to_string(), v.to_string()))
                    .collect(),
            ),
            ..Default::default()
        },
        data: Some(BTreeMap::from([("k".to_string(), data.to_string())])),
        ..Default::default()
    }
}

async fn namespace(env: &Environment, name: &str) {
    let ns: ResourceClient<Namespace> = ResourceClient::all(env.client());
    let obj = Namespace {
        metadata: ObjectMeta {
            name: Some(name.into()),
            ..Default::default()
        },
        ..Default::default()
    };
    ns.create(&obj, &PostParams::default()).await.unwrap();
}

/// A handler that reports "add name data initial" / "update name old new" / "delete name".
fn recorder() -> (HandlerFuncs<ConfigMap>, mpsc::UnboundedReceiver<String>) {
    let (tx, rx) = mpsc::unbounded_channel();
    let (t1, t2, t3) = (tx.clone(), tx.clone(), tx);
    let data = |c: &ConfigMap| {
        c.data
            .as_ref()
            .and_then(|d| d.get("k").cloned())
            .unwrap_or_default()
    };
    let name = |c: &ConfigMap| c.metadata.name.clone().unwrap_or_default();
    let funcs = HandlerFuncs::new()
        .on_add(move |c: &Arc<ConfigMap>, initial| {
            let _ = t1.send(format!("add {} {} {initial}", name(c), data(c)));
        })
        .on_update(move |o: &Arc<ConfigMap>, n: &Arc<ConfigMap>| {
            let _ = t2.send(format!("update {} {} {}", name(n), data(o), data(n)));
        })
        .on_delete(move |c: &Arc<ConfigMap>| {
            let _ = t3.send(format!("delete {}", name(c)));
        });
    (funcs, rx)
}

async fn next(rx: &mut mpsc::UnboundedReceiver<String>) -> String {
    tokio::time::timeout(WAIT, rx.recv())
        .await
        .expect("an informer event in time")
        .expect("handler alive")
}

#[tokio::test]
async fn informer_sees_add_update_delete_in_order_and_lister_follows() {
    let env = Environment::start().await.expect("envtest");
    namespace(&env, "inf").await;
    namespace(&env, "other").await;
    let cms: ResourceClient<ConfigMap> = ResourceClient::namespaced(env.client(), "inf");
    let others: ResourceClient<ConfigMap> = ResourceClient::namespaced(env.client(), "other");
    let pp = PostParams::default();
    cms.create(&cm("before", &[("app", "x")], "0"), &pp)
        .await
        .unwrap();
    // Outside the factory's namespace, and outside its label selector: never seen.
    others
        .create(&cm("elsewhere", &[("app", "x")], "0"), &pp)
        .await
        .unwrap();
    cms.create(&cm("unlabelled", &[], "0"), &pp).await.unwrap();

    let factory = SharedInformerFactory::builder(env.client())
        .namespace("inf")
        .tweak_list_options(|c| c.labels("app"))
        .build();
    let informer = factory.informer::<ConfigMap>();
    assert!(
        informer.ptr_eq(&factory.informer::<ConfigMap>()),
        "one informer per kind"
    );
    let (handler, mut rx) = recorder();
    let registration = informer.add_event_handler(handler);
    assert!(!informer.has_synced());
    factory.start();
    assert!(
        tokio::time::timeout(WAIT, factory.wait_for_cache_sync())
            .await
            .unwrap()
    );
    assert!(informer.has_synced() && factory.has_synced());
    assert_eq!(next(&mut rx).await, "add before 0 true");

    let a = cms
        .create(&cm("a", &[("app", "web")], "1"), &pp)
        .await
        .unwrap();
    assert_eq!(next(&mut rx).await, "add a 1 false");
    let mut a2 = a.clone();
    a2.data = Some(BTreeMap::from([("k".to_string(), "2".to_string())]));
    cms.update(&a2, &pp).await.unwrap();
    assert_eq!(next(&mut rx).await, "update a 1 2");
    cms.delete("a", &DeleteParams::default()).await.unwrap();
    assert_eq!(next(&mut rx).await, "delete a");
    assert!(registration.has_synced());

    // The lister reflects the server once the events have been delivered.
    cms.create(&cm("b", &[("app", "web"), ("tier", "front")], "3"), &pp)
        .await
        .unwrap();
    assert_eq!(next(&mut rx).await, "add b 3 false");
    let lister = informer.lister();
    let inf = lister.namespace("inf");
    assert_eq!(inf.get("b").unwrap().data.as_ref().unwrap()["k"], "3");
    assert!(inf.get("a").is_none(), "deleted objects leave the cache");
    assert!(
        inf.get("unlabelled").is_none(),
        "the tweak's label selector applies"
    );
    assert!(
        lister.namespace("other").get("elsewhere").is_none(),
        "namespace-scoped factory"
    );
    let mut names: Vec<_> = lister
        .list(&parse_selector("app").unwrap())
        .iter()
        .map(|c| c.metadata.name.clone().unwrap())
        .collect();
    names.sort();
    assert_eq!(names, ["b", "before"]);
    let front: Vec<_> = inf
        .list(&parse_selector("tier=front").unwrap())
        .iter()
        .map(|c| c.metadata.name.clone().unwrap())
        .collect();
    assert_eq!(front, ["b"]);

    // A handler added late gets the cache as initial adds.
    let (late, mut late_rx) = recorder();
    let late_reg = informer.add_event_handler(late);
    let mut initial = vec![next(&mut late_rx).await, next(&mut late_rx).await];
    initial.sort();
    assert_eq!(initial, ["add b 3 true", "add before 0 true"]);
    eventually(
        "the late handler has synced",
        Duration::from_secs(10),
        || async { Ok::<_, String>(late_reg.has_synced().then_some(())) },
    )
    .await
    .unwrap();

    // After shutdown no handler hears anything. A witness informer, still running, shows when the event has
    // reached watchers: by then the stopped one would have heard it too.
    let witness_factory = SharedInformerFactory::builder(env.client())
        .namespace("inf")
        .tweak_list_options(|c| c.labels("app"))
        .build();
    let (witness, mut witness_rx) = recorder();
    witness_factory
        .informer::<ConfigMap>()
        .add_event_handler(witness);
    witness_factory.start();
    assert!(
        tokio::time::timeout(WAIT, witness_factory.wait_for_cache_sync())
            .await
            .unwrap()
    );
    factory.shutdown().await;
    cms.create(&cm("after", &[("app", "web")], "9"), &pp)
        .await
        .unwrap();
    while next(&mut witness_rx).await != "add after 9 false" {}
    assert!(rx.try_recv().is_err(), "no events after shutdown");
    assert!(late_rx.try_recv().is_err(), "no events after shutdown");
    witness_factory.shutdown().await;
}

#[tokio::test]
async fn resync_replays_the_cache_as_updates() {
    let env = Environment::start().await.expect("envtest");
    namespace(&env, "resync").await;
    let cms: ResourceClient<ConfigMap> = ResourceClient::namespaced(env.client(), "resync");
    cms.create(&cm("only", &[], "1"), &PostParams::default())
        .await
        .unwrap();
    let factory = SharedInformerFactory::builder(env.client())
        .namespace("resync")
        .resync(Duration::from_millis(500))
        .build();
    let informer = factory.informer::<ConfigMap>();
    let (handler, mut rx) = recorder();
    informer.add_event_handler(handler);
    factory.start();
    assert_eq!(next(&mut rx).await, "add only 1 true");
    assert_eq!(next(&mut rx).await, "update only 1 1");
    assert_eq!(next(&mut rx).await, "update only 1 1");
    factory.shutdown().await;
}
