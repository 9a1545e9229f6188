//! Seed 003's pod-watch example (runtime/examples/pod_watch.rs) against a real kube-apiserver.

#[path = "../examples/pod_watch.rs"]
mod pod_watch;

use std::time::Duration;

use k8s_openapi::api::core::v1::{Container, Pod, PodSpec};
use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;
use rkb_envtest::Environment;
use rkb_runtime::client::{DeleteParams, Patch, PatchParams, PostParams, ResourceClient};
use serde_json::json;
use tokio::sync::mpsc;

async fn next(rx: &mut mpsc::UnboundedReceiver<String>) -> String {
    tokio::time::timeout(Duration::from_secs(20), rx.recv())
        .await
        .expect("a line in time")
        .expect("watch alive")
}

#[tokio::test]
async fn pod_watch_prints_added_modified_deleted() {
    let env = Environment::start().await.expect("envtest");
    let (tx, mut rx) = mpsc::unbounded_channel();
    let factory = pod_watch::watch_pods(env.client(), Some("default".into()), move |l| {
        let _ = tx.send(l);
    })
    .await;
    assert!(factory.wait_for_cache_sync().await);

    let pods: ResourceClient<Pod> = ResourceClient::namespaced(env.client(), "default");
    let pod = Pod {
        metadata: ObjectMeta {
            name: Some("nginx".into()),
            ..Default::default()
        },
        spec: Some(PodSpec {
            containers: vec![Container {
                name: "nginx".into(),
                image: Some("nginx:1.27".into()),
                ..Default::default()
            }],
            ..Default::default()
        }),
        ..Default::default()
    };
    pods.create(&pod, &PostParams::default()).await.unwrap();
    assert_eq!(next(&mut rx).await, "ADDED default/nginx (Pending)");
    pods.patch(
        "nginx",
        &PatchParams::default(),
        &Patch::Merge(json!({"metadata": {"labels": {"app": "web"}}})),
    )
    .await
    .unwrap();
    assert_eq!(next(&mut rx).await, "MODIFIED default/nginx (Pending)");
    // The API server may first record the deletion (MODIFIED, deletionTimestamp set); with no
    // kubelet here the unscheduled pod is then removed.
    pods.delete("nginx", &DeleteParams::default())
        .await
        .unwrap();
    let mut last = next(&mut rx).await;
    while last == "MODIFIED default/nginx (Pending)" {
        last = next(&mut rx).await;
    }
    assert_eq!(last, "DELETED default/nginx (Pending)");
    factory.shutdown().await;
}
