//! What an operator relies on from a real API server: CRD installation, schema validation,
//! status subresource, finalizers, optimistic concurrency and watches.

mod common;

use std::time::Duration;

use common::{api_code, crd_dir, start, widget, widgets};
use futures::{StreamExt, TryStreamExt};
use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinition;
use kube::ResourceExt;
use kube::api::{Api, DeleteParams, Patch, PatchParams, PostParams, WatchEvent, WatchParams};
use rkb_envtest::Environment;
use serde_json::json;

#[tokio::test]
async fn crds_from_a_directory_are_established() {
    let env = start(Environment::builder().crd_dir(crd_dir())).await;
    let crds: Api<CustomResourceDefinition> = Api::all(env.client());
    let mut names: Vec<String> = crds
        .list(&Default::default())
        .await
        .unwrap()
        .items
        .iter()
        .filter(|crd| {
            crd.status
                .as_ref()
                .and_then(|s| s.conditions.as_ref())
                .is_some_and(|cs| {
                    cs.iter()
                        .any(|c| c.type_ == "Established" && c.status == "True")
                })
        })
        .map(|crd| crd.name_any())
        .collect();
    names.sort();
    // Both the .yaml and the .yml file; the ConfigMap document in widgets.yaml was skipped.
    assert_eq!(
        names,
        ["gadgets.envtest.rkb.dev", "widgets.envtest.rkb.dev"]
    );
    env.stop().await.unwrap();
}

#[tokio::test]
async fn custom_resource_create_read_update_status_delete() {
    let env = start(Environment::builder().crd_dir(crd_dir())).await;
    let api = widgets(&env.client(), "default");

    let created = api
        .create(
            &PostParams::default(),
            &widget("w1", json!({"size": "small", "replicas": 1})),
        )
        .await
        .unwrap();
    assert!(created.uid().is_some());

    let mut read = api.get("w1").await.unwrap();
    assert_eq!(read.data["spec"]["replicas"], 1);

    read.data["spec"]["replicas"] = json!(3);
    let updated = api
        .replace("w1", &PostParams::default(), &read)
        .await
        .unwrap();
    assert_eq!(updated.data["spec"]["replicas"], 3);
    assert_ne!(updated.resource_version(), read.resource_version());

    // With the status subresource, status is written only through /status...
    let status = json!({"status": {"phase": "Ready"}});
    let patched = api
        .patch_status("w1", &PatchParams::default(), &Patch::Merge(&status))
        .await
        .unwrap();
    assert_eq!(patched.data["status"]["phase"], "Ready");
    // ...and the main resource ignores status changes.
    let mut sneaky = patched.clone();
    sneaky.data["status"]["phase"] = json!("Hacked");
    let after = api
        .replace("w1", &PostParams::default(), &sneaky)
        .await
        .unwrap();
    assert_eq!(after.data["status"]["phase"], "Ready");

    api.delete("w1", &DeleteParams::default()).await.unwrap();
    assert_eq!(api_code(api.get("w1").await), 404);
}

#[tokio::test]
async fn schema_violations_are_rejected_with_422() {
    let env = start(Environment::builder().crd_dir(crd_dir())).await;
    let api = widgets(&env.client(), "default");

    let too_many = widget("big", json!({"size": "small", "replicas": 99}));
    let err = api
        .create(&PostParams::default(), &too_many)
        .await
        .unwrap_err();
    let kube::Error::Api(status) = err else {
        panic!("expected an API error, got {err:?}")
    };
    assert_eq!(status.code, 422, "{status:?}");
    assert_eq!(status.reason, "Invalid");
    assert!(
        status.message.contains("spec.replicas"),
        "{}",
        status.message
    );

    let bad_enum = widget("odd", json!({"size": "medium"}));
    assert_eq!(
        api_code(api.create(&PostParams::default(), &bad_enum).await),
        422
    );
    let missing_required = widget("empty", json!({}));
    assert_eq!(
        api_code(api.create(&PostParams::default(), &missing_required).await),
        422
    );
}

#[tokio::test]
async fn a_finalizer_holds_deletion_until_removed() {
    let env = start(Environment::builder().crd_dir(crd_dir())).await;
    let api = widgets(&env.client(), "default");
    let mut w = widget("held", json!({"size": "large"}));
    w.metadata.finalizers = Some(vec!["envtest.rkb.dev/hold".into()]);
    api.create(&PostParams::default(), &w).await.unwrap();

    api.delete("held", &DeleteParams::default()).await.unwrap();
    let terminating = api.get("held").await.unwrap();
    assert!(terminating.metadata.deletion_timestamp.is_some());
    assert_eq!(terminating.finalizers(), ["envtest.rkb.dev/hold"]);

    let release = json!({"metadata": {"finalizers": null}});
    api.patch("held", &PatchParams::default(), &Patch::Merge(&release))
        .await
        .unwrap();
    assert_eq!(api_code(api.get("held").await), 404);
}

#[tokio::test]
async fn an_update_with_a_stale_resource_version_conflicts_with_409() {
    let env = start(Environment::builder().crd_dir(crd_dir())).await;
    let api = widgets(&env.client(), "default");
    api.create(
        &PostParams::default(),
        &widget("c", json!({"size": "small"})),
    )
    .await
    .unwrap();

    let mut first = api.get("c").await.unwrap();
    let mut stale = first.clone();
    first.data["spec"]["replicas"] = json!(2);
    api.replace("c", &PostParams::default(), &first)
        .await
        .unwrap();

    stale.data["spec"]["replicas"] = json!(5);
    let err = api
        .replace("c", &PostParams::default(), &stale)
        .await
        .unwrap_err();
    let kube::Error::Api(status) = err else {
        panic!("expected an API error, got {err:?}")
    };
    assert_eq!(status.code, 409, "{status:?}");
    assert_eq!(status.reason, "Conflict");
    assert_eq!(api.get("c").await.unwrap().data["spec"]["replicas"], 2);
}

#[tokio::test]
async fn watches_see_changes() {
    let env = start(Environment::builder().crd_dir(crd_dir())).await;
    let api = widgets(&env.client(), "default");
    let mut events = api
        .watch(&WatchParams::default().timeout(30), "0")
        .await
        .unwrap()
        .boxed();
    api.create(
        &PostParams::default(),
        &widget("watched", json!({"size": "small"})),
    )
    .await
    .unwrap();
    let added = tokio::time::timeout(Duration::from_secs(30), async {
        // Bookmarks (progress markers) may come first.
        while let Some(event) = events.try_next().await.unwrap() {
            match event {
                WatchEvent::Bookmark(_) => continue,
                other => return other,
            }
        }
        panic!("watch ended without an event");
    })
    .await
    .expect("no watch event within 30s");
    match added {
        WatchEvent::Added(obj) => assert_eq!(obj.name_any(), "watched"),
        other => panic!("expected Added, got {other:?}"),
    }
}

#[tokio::test]
async fn crds_can_be_installed_later_and_rejections_carry_the_server_message() {
    let env = start(Environment::builder()).await;
    let installed = env.install_crds_from(crd_dir()).await.unwrap();
    assert_eq!(installed.len(), 2);
    // Installing again updates in place.
    env.install_crds_from(crd_dir()).await.unwrap();

    let invalid = "apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: broken.envtest.rkb.dev
spec:
  group: envtest.rkb.dev
  names: {kind: Broken, plural: brokens}
  scope: Namespaced
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec: {type: notatype}
";
    let err = env
        .install_crds_yaml(invalid)
        .await
        .unwrap_err()
        .to_string();
    assert!(err.contains("broken.envtest.rkb.dev"), "{err}");
    assert!(err.contains("rejected by the API server"), "{err}");
    assert!(err.contains("notatype"), "{err}");
}
