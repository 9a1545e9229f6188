//! The apply helpers against a real kube-apiserver: `apply_controlled` (apply unless another owner controls the
//! live object) and `delete_if_exists`. ConfigMaps stand in for owners and children: ownership is metadata only,
//! nothing here needs a controller.

use std::collections::BTreeMap;

use k8s_openapi::api::core::v1::ConfigMap;
use kube::api::{ObjectMeta, Patch, PatchParams, PostParams};
use kube::{Api, ResourceExt};
use rkb_envtest::Environment;
use rkb_runtime::{Error, apply};

const FM: &str = "rkb-apply-test";

fn config_map(name: &str, value: &str) -> ConfigMap {
    ConfigMap {
        metadata: ObjectMeta {
            name: Some(name.into()),
            namespace: Some("default".into()),
            ..ObjectMeta::default()
        },
        data: Some(BTreeMap::from([("k".to_string(), value.to_string())])),
        ..ConfigMap::default()
    }
}

fn value(cm: &ConfigMap) -> &str {
    cm.data.as_ref().and_then(|d| d.get("k")).map_or("", |v| v)
}

fn is_conflict(e: &Error) -> bool {
    matches!(e, Error::Kube(kube::Error::Api(s)) if s.code == 409)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn apply_controlled_refuses_a_child_controlled_by_another_owner() {
    let env = Environment::start().await.expect("envtest");
    let api: Api<ConfigMap> = Api::namespaced(env.client(), "default");
    let mut owners = Vec::new();
    for name in ["owner-a", "owner-b"] {
        owners.push(
            api.create(&PostParams::default(), &config_map(name, ""))
                .await
                .unwrap(),
        );
    }
    let (a, b) = (&owners[0], &owners[1]);

    // Created with the controller reference controllerutil.SetControllerReference writes.
    let child = apply::apply_controlled(&api, &config_map("shared", "a1"), a, FM)
        .await
        .expect("create");
    let reference = apply::controller_of(&child).expect("controller reference");
    assert_eq!(
        (
            reference.name.as_str(),
            reference.uid.as_str(),
            reference.block_owner_deletion
        ),
        ("owner-a", a.uid().unwrap().as_str(), Some(true))
    );
    assert_eq!(child.owner_references().len(), 1);

    // The same owner applies again (its object from a cache may carry an old resourceVersion: it is replaced).
    let mut stale = config_map("shared", "a2");
    stale.metadata.resource_version = Some("1".into());
    let child = apply::apply_controlled(&api, &stale, a, FM)
        .await
        .expect("same owner");
    assert_eq!(value(&child), "a2");

    // Another owner of the same controller (same field manager) is refused, naming the controller, and nothing
    // is written.
    let err = apply::apply_controlled(&api, &config_map("shared", "b1"), b, FM)
        .await
        .expect_err("another owner controls it");
    match &err {
        Error::ControlledByOther { object, controller } => {
            assert_eq!(object, "ConfigMap default/shared");
            assert_eq!(
                (controller.name.as_str(), controller.uid.as_str()),
                ("owner-a", a.uid().unwrap().as_str())
            );
        }
        other => panic!("expected ControlledByOther, got {other:?}"),
    }
    assert!(
        err.to_string().contains("controlled by ConfigMap owner-a"),
        "{err}"
    );
    let live = api.get("shared").await.unwrap();
    assert_eq!(value(&live), "a2");
    assert_eq!(apply::controller_of(&live).unwrap().name, "owner-a");

    // Why the check exists: a plain apply by the same field manager silently swaps the controller.
    let mut takeover = config_map("stolen", "a");
    apply::set_controller_reference(a, &mut takeover).unwrap();
    apply::apply(&api, &takeover, FM).await.unwrap();
    let mut takeover = config_map("stolen", "b");
    apply::set_controller_reference(b, &mut takeover).unwrap();
    let stolen = apply::apply(&api, &takeover, FM).await.unwrap();
    assert_eq!(stolen.owner_references().len(), 1);
    assert_eq!(apply::controller_of(&stolen).unwrap().name, "owner-b");

    // A child nobody controls is taken over, keeping a plain owner reference someone else wrote.
    let mut loose = config_map("loose", "x");
    apply::set_owner_reference(b, &mut loose).unwrap();
    api.create(&PostParams::default(), &loose).await.unwrap();
    let taken = apply::apply_controlled(&api, &config_map("loose", "y"), a, FM)
        .await
        .expect("uncontrolled child");
    assert_eq!(apply::controller_of(&taken).unwrap().name, "owner-a");
    assert_eq!(taken.owner_references().len(), 2);
    assert_eq!(value(&taken), "y");

    // The precondition apply_controlled relies on: an apply carrying an outdated resourceVersion is a conflict,
    // not a silent overwrite.
    let before = api.get("shared").await.unwrap();
    api.patch(
        "shared",
        &PatchParams::default(),
        &Patch::Merge(serde_json::json!({"metadata": {"labels": {"touched": "yes"}}})),
    )
    .await
    .unwrap();
    let mut outdated = config_map("shared", "b2");
    outdated.metadata.resource_version = before.metadata.resource_version.clone();
    let err = apply::apply(&api, &outdated, FM).await.unwrap_err();
    assert!(is_conflict(&err), "{err:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn delete_if_exists_reports_whether_there_was_something_to_delete() {
    let env = Environment::start().await.expect("envtest");
    let api: Api<ConfigMap> = Api::namespaced(env.client(), "default");
    api.create(&PostParams::default(), &config_map("doomed", "x"))
        .await
        .unwrap();
    assert!(apply::delete_if_exists(&api, "doomed").await.unwrap());
    assert!(api.get_opt("doomed").await.unwrap().is_none());
    assert!(!apply::delete_if_exists(&api, "doomed").await.unwrap());
    assert!(!apply::delete_if_exists(&api, "never-was").await.unwrap());
}

/// `apply_answering_metadata` writes the whole object and is answered with its metadata alone.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_apply_answered_with_metadata_writes_everything_and_returns_metadata_only() {
    let env = Environment::start().await.expect("envtest");
    let api: Api<ConfigMap> = Api::namespaced(env.client(), "default");
    let answer = apply::apply_answering_metadata(&api, &config_map("meta", "v1"), FM)
        .await
        .expect("apply");
    assert_eq!(
        answer.types.as_ref().map(|t| t.kind.as_str()),
        Some("PartialObjectMetadata"),
        "the answer is metadata, not the ConfigMap"
    );
    let stored = api.get("meta").await.unwrap();
    assert_eq!(value(&stored), "v1", "the data was applied");
    assert_eq!(answer.metadata.resource_version, stored.resource_version());
    assert_eq!(answer.metadata.uid, stored.uid());
}
