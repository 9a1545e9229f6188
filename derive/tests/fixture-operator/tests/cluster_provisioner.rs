//! Seed 001's example program (examples/cluster_provisioner.rs) against a real kube-apiserver.

#[path = "../examples/cluster_provisioner.rs"]
mod cluster_provisioner;

use std::time::Duration;

use rkb_envtest::Environment;
use rkb_fixture_operator::api::clusterprovisioner::v1alpha1::{
    Cluster, ClusterClient, ClusterSpec,
};
use rkb_runtime::client::PostParams;
use rkb_runtime::conditions::is_condition_true;
use tokio::sync::mpsc;

async fn next(rx: &mut mpsc::UnboundedReceiver<String>) -> String {
    tokio::time::timeout(Duration::from_secs(20), rx.recv())
        .await
        .expect("a line in time")
        .expect("provisioner alive")
}

#[tokio::test]
async fn clusters_get_provisioned_and_reprovisioned() {
    let env = Environment::start().await.expect("envtest");
    cluster_provisioner::install_crd(&env.client())
        .await
        .unwrap();
    let (tx, mut rx) = mpsc::unbounded_channel();
    let factory = cluster_provisioner::run_provisioner(env.client(), move |l| {
        let _ = tx.send(l);
    })
    .await;

    let clusters = ClusterClient::new(env.client());
    let spec = |p: &str| ClusterSpec {
        config_path: p.into(),
    };
    clusters
        .create(
            &Cluster::new("prod", spec("/etc/prod.yaml")),
            &PostParams::default(),
        )
        .await
        .unwrap();
    assert_eq!(next(&mut rx).await, "provisioned prod from /etc/prod.yaml");
    let c = clusters.get("prod").await.unwrap();
    let status = c.status.clone().unwrap();
    assert_eq!(status.applied_config, "/etc/prod.yaml");
    assert!(is_condition_true(&status.conditions, "Provisioned"));
    assert!(is_condition_true(&status.conditions, "Ready"));

    let mut changed = c.clone();
    changed.spec = spec("/etc/prod-v2.yaml");
    clusters
        .update(&changed, &PostParams::default())
        .await
        .unwrap();
    assert_eq!(
        next(&mut rx).await,
        "provisioned prod from /etc/prod-v2.yaml"
    );
    assert_eq!(
        clusters
            .get("prod")
            .await
            .unwrap()
            .status
            .unwrap()
            .applied_config,
        "/etc/prod-v2.yaml"
    );
    factory.shutdown().await;
}
