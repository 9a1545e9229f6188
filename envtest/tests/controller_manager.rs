//! With kube-controller-manager, cluster behaviour that needs controllers is real: owner-reference
//! cascade deletion (garbage collector) and namespace finalization.

mod common;

use std::time::{Duration, Instant};

use common::{crd_dir, start, widget, widgets};
use k8s_openapi::api::core::v1::{ConfigMap, Namespace};
use k8s_openapi::apimachinery::pkg::apis::meta::v1::{ObjectMeta, OwnerReference};
use kube::api::{Api, DeleteParams, PostParams};
use kube::{Resource, ResourceExt};
use rkb_envtest::Environment;
use serde_json::json;

/// Polls `gone` until it returns true, failing the test after a minute.
async fn eventually(what: &str, mut gone: impl AsyncFnMut() -> bool) {
    let deadline = Instant::now() + Duration::from_secs(60);
    while !gone().await {
        assert!(Instant::now() < deadline, "timed out waiting: {what}");
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

#[tokio::test]
async fn deleting_an_owner_deletes_its_owned_config_map() {
    let env = start(
        Environment::builder()
            .crd_dir(crd_dir())
            .with_controller_manager(),
    )
    .await;
    assert!(env.has_controller_manager());
    let client = env.client();
    let owners = widgets(&client, "default");
    let owner = owners
        .create(
            &PostParams::default(),
            &widget("owner", json!({"size": "small"})),
        )
        .await
        .unwrap();

    let config_maps: Api<ConfigMap> = Api::namespaced(client.clone(), "default");
    let owned = ConfigMap {
        metadata: ObjectMeta {
            name: Some("owned".into()),
            owner_references: Some(vec![OwnerReference {
                api_version: "envtest.rkb.dev/v1".into(),
                kind: "Widget".into(),
                name: owner.name_any(),
                uid: owner.meta().uid.clone().unwrap(),
                controller: Some(true),
                block_owner_deletion: Some(true),
            }]),
            ..Default::default()
        },
        data: Some([("k".to_string(), "v".to_string())].into()),
        ..Default::default()
    };
    config_maps
        .create(&PostParams::default(), &owned)
        .await
        .unwrap();
    // An unowned neighbour must survive: the collector deletes dependents, not everything.
    let bystander = ConfigMap {
        metadata: ObjectMeta {
            name: Some("bystander".into()),
            ..Default::default()
        },
        ..Default::default()
    };
    config_maps
        .create(&PostParams::default(), &bystander)
        .await
        .unwrap();

    owners
        .delete("owner", &DeleteParams::background())
        .await
        .unwrap();
    eventually(
        "garbage collector deletes the owned ConfigMap",
        async || config_maps.get_opt("owned").await.unwrap().is_none(),
    )
    .await;
    assert!(config_maps.get_opt("bystander").await.unwrap().is_some());
    env.stop().await.unwrap();
}

#[tokio::test]
async fn deleting_a_namespace_finalizes_it() {
    let env = start(Environment::builder().with_controller_manager()).await;
    let namespaces: Api<Namespace> = Api::all(env.client());
    let ns = Namespace {
        metadata: ObjectMeta {
            name: Some("doomed".into()),
            ..Default::default()
        },
        ..Default::default()
    };
    namespaces
        .create(&PostParams::default(), &ns)
        .await
        .unwrap();
    let config_maps: Api<ConfigMap> = Api::namespaced(env.client(), "doomed");
    let cm = ConfigMap {
        metadata: ObjectMeta {
            name: Some("inside".into()),
            ..Default::default()
        },
        ..Default::default()
    };
    config_maps
        .create(&PostParams::default(), &cm)
        .await
        .unwrap();

    namespaces
        .delete("doomed", &DeleteParams::default())
        .await
        .unwrap();
    // Without the namespace controller it would stay Terminating forever.
    eventually(
        "namespace controller removes namespace doomed",
        async || namespaces.get_opt("doomed").await.unwrap().is_none(),
    )
    .await;
}
