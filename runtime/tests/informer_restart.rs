//! An informer keeps its event order across a kube-apiserver restart mid-watch: the watch breaks,
//! the watcher reconnects with backoff (resuming, or relisting when the server answers 410), and
//! changes made while it was reconnecting still reach the handlers, in order.

use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::Duration;

use k8s_openapi::api::core::v1::{ConfigMap, Namespace};
use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;
use rkb_envtest::Environment;
use rkb_runtime::client::{DeleteParams, PostParams, ResourceClient};
use rkb_runtime::informer::{HandlerFuncs, SharedInformerFactory};
use tokio::sync::mpsc;

fn cm(name: &str, v: &str) -> ConfigMap {
    ConfigMap {
        metadata: ObjectMeta {
            name: Some(name.into()),
            ..Default::default()
        },
        data: Some(BTreeMap::from([("v".to_string(), v.to_string())])),
        ..Default::default()
    }
}

async fn next(rx: &mut mpsc::UnboundedReceiver<String>) -> String {
    tokio::time::timeout(Duration::from_secs(90), rx.recv())
        .await
        .expect("an informer event in time")
        .expect("handler alive")
}

#[tokio::test]
async fn informer_resumes_after_apiserver_restart() {
    let mut env = Environment::start().await.expect("envtest");
    let ns: ResourceClient<Namespace> = ResourceClient::all(env.client());
    ns.create(
        &Namespace {
            metadata: ObjectMeta {
                name: Some("restart".into()),
                ..Default::default()
            },
            ..Default::default()
        },
        &PostParams::default(),
    )
    .await
    .unwrap();
    let cms: ResourceClient<ConfigMap> = ResourceClient::namespaced(env.client(), "restart");
    let pp = PostParams::default();

    let factory = SharedInformerFactory::builder(env.client())
        .namespace("restart")
        .build();
    let informer = factory.informer::<ConfigMap>();
    let (tx, mut rx) = mpsc::unbounded_channel::<String>();
    let (t1, t2, t3) = (tx.clone(), tx.clone(), tx);
    let v = |c: &ConfigMap| c.data.as_ref().map(|d| d["v"].clone()).unwrap_or_default();
    informer.add_event_handler(
        HandlerFuncs::new()
            .on_add(move |c: &Arc<ConfigMap>, _| {
                let _ = t1.send(format!(
                    "add {} {}",
                    c.metadata.name.as_deref().unwrap(),
                    v(c)
                ));
            })
            .on_update(move |_, c: &Arc<ConfigMap>| {
                let _ = t2.send(format!(
                    "update {} {}",
                    c.metadata.name.as_deref().unwrap(),
                    v(c)
                ));
            })
            .on_delete(move |c: &Arc<ConfigMap>| {
                let _ = t3.send(format!("delete {}", c.metadata.name.as_deref().unwrap()));
            }),
    );
    factory.start();
    assert!(factory.wait_for_cache_sync().await);

    cms.create(&cm("a", "1"), &pp).await.unwrap();
    assert_eq!(next(&mut rx).await, "add a 1");

    env.restart_apiserver().await.expect("apiserver restart");

    // Right after the restart, before the informer has necessarily reconnected. The restarted
    // server's watch cache may not reach back to our resourceVersion (410), in which case the
    // watcher relists and the informer diffs the list against its cache: same events either way.
    let b = cms.create(&cm("b", "1"), &pp).await.unwrap();
    cms.delete("a", &DeleteParams::default()).await.unwrap();
    assert_eq!(next(&mut rx).await, "add b 1");
    assert_eq!(next(&mut rx).await, "delete a");

    // Once reconnected, every change arrives as it happens.
    let mut b2 = b.clone();
    b2.data = Some(BTreeMap::from([("v".to_string(), "2".to_string())]));
    cms.update(&b2, &pp).await.unwrap();
    assert_eq!(next(&mut rx).await, "update b 2");

    // And the watch keeps working afterwards; the lister agrees with the server.
    cms.create(&cm("c", "1"), &pp).await.unwrap();
    assert_eq!(next(&mut rx).await, "add c 1");
    let view = informer.lister().namespace("restart");
    assert!(view.get("a").is_none());
    assert_eq!(view.get("b").unwrap().data.as_ref().unwrap()["v"], "2");
    assert!(view.get("c").is_some());
    factory.shutdown().await;
}
