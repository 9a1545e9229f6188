//! Every verb of the generic `ResourceClient` against a real kube-apiserver (rkb-envtest), on
//! Deployments: a built-in kind with a status subresource and nothing reconciling it here.

use std::collections::BTreeMap;

use futures::StreamExt;
use k8s_openapi::api::apps::v1::{Deployment, DeploymentSpec, DeploymentStatus};
use k8s_openapi::api::core::v1::{Container, Namespace, PodSpec, PodTemplateSpec};
use k8s_openapi::apimachinery::pkg::apis::meta::v1::{LabelSelector, ObjectMeta};
use rkb_envtest::Environment;
use rkb_runtime::client::{
    ApplyOptions, DeleteParams, ListParams, Patch, PatchParams, PostParams, ResourceClient,
    WatchEvent, WatchParams,
};
use serde_json::json;

fn deployment(name: &str, team: &str) -> Deployment {
    let labels = BTreeMap::from([("app".to_string(), name.to_string())]);
    Deployment {
        metadata: ObjectMeta {
            name: Some(name.into()),
            labels: Some(BTreeMap::from([("team".to_string(), team.to_string())])),
            ..Default::default()
        },
        spec: Some(DeploymentSpec {
            replicas: Some(1),
            selector: LabelSelector {
                match_labels: Some(labels.clone()),
                ..Default::default()
            },
            template: PodTemplateSpec {
                metadata: Some(ObjectMeta {
                    labels: Some(labels),
                    ..Default::default()
                }),
                spec: Some(PodSpec {
                    containers: vec![Container {
                        name: "app".into(),
                        image: Some("registry.example/app:1".into()),
                        ..Default::default()
                    }],
                    ..Default::default()
                }),
            },
            ..Default::default()
        }),
        status: None,
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

#[tokio::test]
async fn every_verb_against_the_api_server() {
    let env = Environment::start().await.expect("envtest");
    namespace(&env, "verbs").await;
    let deploys: ResourceClient<Deployment> = ResourceClient::namespaced(env.client(), "verbs");

    // create, and create of a taken name
    let web = deploys
        .create(&deployment("web", "a"), &PostParams::default())
        .await
        .unwrap();
    assert!(web.metadata.uid.is_some());
    let again = deploys
        .create(&deployment("web", "a"), &PostParams::default())
        .await
        .unwrap_err();
    assert!(again.is_already_exists(), "{again}");

    // get, get_opt, not found
    assert_eq!(
        deploys.get("web").await.unwrap().metadata.uid,
        web.metadata.uid
    );
    assert!(deploys.get_opt("nope").await.unwrap().is_none());
    assert!(deploys.get("nope").await.unwrap_err().is_not_found());

    // update; a stale resourceVersion is a conflict
    let mut changed = web.clone();
    changed.spec.as_mut().unwrap().replicas = Some(2);
    let updated = deploys
        .update(&changed, &PostParams::default())
        .await
        .unwrap();
    assert_eq!(updated.spec.as_ref().unwrap().replicas, Some(2));
    let stale = deploys
        .update(&changed, &PostParams::default())
        .await
        .unwrap_err();
    assert!(stale.is_conflict(), "{stale}");

    // update_status writes status only; update ignores status (status subresource)
    let mut with_status = updated.clone();
    with_status.status = Some(DeploymentStatus {
        observed_generation: Some(7),
        replicas: Some(2),
        ..Default::default()
    });
    with_status.spec.as_mut().unwrap().replicas = Some(9);
    let status_written = deploys
        .update_status(&with_status, &PostParams::default())
        .await
        .unwrap();
    assert_eq!(
        status_written.status.as_ref().unwrap().observed_generation,
        Some(7)
    );
    assert_eq!(status_written.spec.as_ref().unwrap().replicas, Some(2));
    let mut status_via_update = status_written.clone();
    status_via_update
        .status
        .as_mut()
        .unwrap()
        .observed_generation = Some(99);
    let ignored = deploys
        .update(&status_via_update, &PostParams::default())
        .await
        .unwrap();
    assert_eq!(ignored.status.unwrap().observed_generation, Some(7));

    // patch (merge) and patch_status
    let patched = deploys
        .patch(
            "web",
            &PatchParams::default(),
            &Patch::Merge(json!({"metadata": {"labels": {"tier": "front"}}})),
        )
        .await
        .unwrap();
    assert_eq!(patched.metadata.labels.unwrap()["tier"], "front");
    let status_patched = deploys
        .patch_status(
            "web",
            &PatchParams::default(),
            &Patch::Merge(json!({"status": {"readyReplicas": 1}})),
        )
        .await
        .unwrap();
    assert_eq!(status_patched.status.unwrap().ready_replicas, Some(1));

    // list with a label selector; watch sees a later create
    deploys
        .create(&deployment("db", "b"), &PostParams::default())
        .await
        .unwrap();
    let team_a = deploys
        .list(&ListParams::default().labels("team=a"))
        .await
        .unwrap();
    let names: Vec<_> = team_a
        .items
        .iter()
        .map(|d| d.metadata.name.clone().unwrap())
        .collect();
    assert_eq!(names, ["web"]);
    let rv = team_a.metadata.resource_version.unwrap();
    let mut events = deploys.watch(&WatchParams::default(), &rv).await.unwrap();
    deploys
        .create(&deployment("cache", "b"), &PostParams::default())
        .await
        .unwrap();
    let first = tokio::time::timeout(std::time::Duration::from_secs(10), events.next())
        .await
        .expect("a watch event")
        .unwrap()
        .unwrap();
    match first {
        WatchEvent::Added(d) => assert_eq!(d.metadata.name.as_deref(), Some("cache")),
        other => panic!("expected Added(cache), got {other:?}"),
    }

    // server-side apply: creates, conflicts between managers, force takes ownership
    let alice = deploys.clone().with_field_manager("alice");
    let bob = deploys.clone().with_field_manager("bob");
    let mut applied_obj = deployment("api", "c");
    applied_obj.spec.as_mut().unwrap().replicas = Some(3);
    let applied = alice
        .apply(&applied_obj, &ApplyOptions::default())
        .await
        .unwrap();
    assert_eq!(applied.spec.as_ref().unwrap().replicas, Some(3));
    assert_eq!(
        applied.metadata.managed_fields.as_ref().unwrap()[0]
            .manager
            .as_deref(),
        Some("alice")
    );
    let bob_config = json!({"metadata": {"name": "api"}, "spec": {"replicas": 5}});
    let conflict = bob
        .apply(&bob_config, &ApplyOptions::default())
        .await
        .unwrap_err();
    assert!(conflict.is_conflict(), "{conflict}");
    assert!(conflict.to_string().contains("alice"), "{conflict}");
    let forced = bob
        .apply(&bob_config, &ApplyOptions::force())
        .await
        .unwrap();
    assert_eq!(forced.spec.unwrap().replicas, Some(5));
    // apply_status under its own manager
    let status_applied = alice
        .apply_status(
            &json!({"metadata": {"name": "api"}, "status": {"replicas": 4, "readyReplicas": 4, "availableReplicas": 4}}),
            &ApplyOptions::default(),
        )
        .await
        .unwrap();
    assert_eq!(status_applied.status.unwrap().available_replicas, Some(4));
    // an apply config without a name is rejected before any request
    assert!(matches!(
        alice
            .apply(&json!({"spec": {}}), &ApplyOptions::default())
            .await,
        Err(rkb_runtime::client::Error::MissingName)
    ));

    // delete and delete_collection
    deploys
        .delete("web", &DeleteParams::default())
        .await
        .unwrap();
    assert!(deploys.get_opt("web").await.unwrap().is_none());
    assert!(
        deploys
            .delete("web", &DeleteParams::default())
            .await
            .unwrap_err()
            .is_not_found()
    );
    deploys
        .delete_collection(
            &DeleteParams::default(),
            &ListParams::default().labels("team=b"),
        )
        .await
        .unwrap();
    let left: Vec<_> = deploys
        .list(&ListParams::default())
        .await
        .unwrap()
        .items
        .into_iter()
        .map(|d| d.metadata.name.unwrap())
        .collect();
    assert_eq!(left, ["api"]);
}
