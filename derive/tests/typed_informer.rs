//! The generated `<Kind>Informer` / `<Kind>Lister` of the fixture's kinds against a real
//! kube-apiserver: a namespaced kind (per-namespace lister view) and a cluster-scoped one (get by
//! name), both from one shared factory.

use std::sync::Arc;
use std::time::Duration;

use k8s_openapi::api::core::v1::Namespace;
use rkb_envtest::Environment;
use rkb_fixture_operator::api::clusterprovisioner::v1alpha1::{
    Cluster, ClusterClient, ClusterInformer, ClusterLister, ClusterSpec,
};
use rkb_fixture_operator::api::testing::v1::{
    Widget, WidgetClient, WidgetInformer, WidgetLister, WidgetSpec,
};
use rkb_runtime::client::{DeleteParams, PostParams, ResourceClient};
use rkb_runtime::informer::{HandlerFuncs, SharedInformerFactory};
use rkb_runtime::lister::parse_selector;
use tokio::sync::mpsc;

async fn next(rx: &mut mpsc::UnboundedReceiver<String>) -> String {
    tokio::time::timeout(Duration::from_secs(20), rx.recv())
        .await
        .expect("an event in time")
        .expect("handler alive")
}

#[tokio::test]
async fn generated_informers_and_listers_follow_the_server() {
    let env = Environment::builder()
        .crd_yaml(Widget::crd_yaml())
        .crd_yaml(Cluster::crd_yaml())
        .start()
        .await
        .expect("envtest with the fixture CRDs");
    let pp = PostParams::default();
    let factory = SharedInformerFactory::new(env.client());
    let widgets_informer: WidgetInformer = factory.informer::<Widget>();
    let clusters_informer: ClusterInformer = factory.informer::<Cluster>();

    let (tx, mut rx) = mpsc::unbounded_channel::<String>();
    let (t1, t2, t3) = (tx.clone(), tx.clone(), tx);
    clusters_informer.add_event_handler(
        HandlerFuncs::new()
            .on_add(move |c: &Arc<Cluster>, _| {
                let _ = t1.send(format!("add {}", c.spec.config_path));
            })
            .on_update(move |_, c: &Arc<Cluster>| {
                let _ = t2.send(format!("update {}", c.spec.config_path));
            })
            .on_delete(move |c: &Arc<Cluster>| {
                let _ = t3.send(format!("delete {}", c.spec.config_path));
            }),
    );
    factory.start();
    assert!(factory.wait_for_cache_sync().await);

    // Cluster-scoped: handlers see add, update, delete; the lister gets by name.
    let clusters = ClusterClient::new(env.client());
    let spec = |p: &str| ClusterSpec {
        config_path: p.into(),
    };
    let c = clusters
        .create(&Cluster::new("edge", spec("/a")), &pp)
        .await
        .unwrap();
    assert_eq!(next(&mut rx).await, "add /a");
    let lister: ClusterLister = clusters_informer.lister();
    assert_eq!(lister.get("edge").unwrap().spec.config_path, "/a");
    let mut c2 = c.clone();
    c2.spec = spec("/b");
    clusters.update(&c2, &pp).await.unwrap();
    assert_eq!(next(&mut rx).await, "update /b");
    assert_eq!(lister.get("edge").unwrap().spec.config_path, "/b");
    clusters
        .delete("edge", &DeleteParams::default())
        .await
        .unwrap();
    assert_eq!(next(&mut rx).await, "delete /b");
    assert!(lister.get("edge").is_none());

    // Namespaced: the per-namespace view and label selectors.
    let namespaces: ResourceClient<Namespace> = ResourceClient::all(env.client());
    for ns in ["team-a", "team-b"] {
        let mut n = Namespace::default();
        n.metadata.name = Some(ns.into());
        namespaces.create(&n, &pp).await.unwrap();
        let w = WidgetClient::new(env.client(), ns);
        let mut obj = Widget::new(
            "w",
            WidgetSpec {
                replicas: 1,
                ..Default::default()
            },
        );
        obj.metadata.labels = Some([("team".to_string(), ns.to_string())].into());
        w.create(&obj, &pp).await.unwrap();
    }
    let lister: WidgetLister = widgets_informer.lister();
    tokio::time::timeout(Duration::from_secs(20), async {
        while lister.len() < 2 {
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    })
    .await
    .expect("both widgets cached");
    let a = lister.namespace("team-a");
    assert_eq!(
        a.get("w").unwrap().metadata.namespace.as_deref(),
        Some("team-a")
    );
    assert_eq!(a.list(&parse_selector("team=team-a").unwrap()).len(), 1);
    assert!(a.list(&parse_selector("team=team-b").unwrap()).is_empty());
    assert_eq!(lister.list(&parse_selector("team").unwrap()).len(), 2);
    factory.shutdown().await;
}
