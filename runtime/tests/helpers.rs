//! The reconcile helpers against a real API server, through a controller of a CRD installed from a fixture:
//! finalizers, server-side apply of owned objects and of status, owner references, conditions, events.

mod common;

use std::sync::Arc;
use std::time::Duration;

use common::quiet_options;
use k8s_openapi::api::core::v1::ConfigMap;
use k8s_openapi::api::events::v1::Event as K8sEvent;
use kube::api::{DeleteParams, ListParams, ObjectMeta, Patch, PatchParams, PostParams};
use kube::{Api, ResourceExt};
use rkb_envtest::{Environment, eventually};
use rkb_runtime::conditions::{TRUE, find_condition, new_condition, set_condition};
use rkb_runtime::events::EventType;
use rkb_runtime::{
    Action, BoxError, Condition, Context, Controller, Manager, TypeMeta, apply, finalizer,
};
use serde::{Deserialize, Serialize};

const FINALIZER: &str = "test.rkb.dev/cleanup";
const MANAGER: &str = "rkb-helpers-test";

#[derive(Clone, Debug, Default, Serialize, Deserialize)]
struct Widget {
    #[serde(flatten)]
    type_meta: TypeMeta,
    #[serde(default)]
    metadata: ObjectMeta,
    #[serde(default)]
    spec: WidgetSpec,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    status: Option<WidgetStatus>,
}

#[derive(Clone, Debug, Default, Serialize, Deserialize)]
struct WidgetSpec {
    #[serde(default)]
    size: i64,
}

#[derive(Clone, Debug, Default, Serialize, Deserialize)]
struct WidgetStatus {
    #[serde(default)]
    conditions: Vec<Condition>,
}

test_resource!(Widget, "Widget", "widgets", "v1");

/// What a scaffolded reconcile does: finalizer, owned object, status condition, event.
async fn reconcile(w: Arc<Widget>, ctx: Context) -> Result<Action, BoxError> {
    let ns = w.namespace().ok_or("namespaced")?;
    let api: Api<Widget> = ctx.api_in(&ns);
    if finalizer::is_being_deleted(&*w) {
        ctx.publish_event(&*w, EventType::Normal, "CleanedUp", "Delete", None)
            .await;
        finalizer::remove_finalizer(&api, &*w, FINALIZER).await?;
        return Ok(Action::await_change());
    }
    if !finalizer::has_finalizer(&*w, FINALIZER) {
        finalizer::add_finalizer(&api, &*w, FINALIZER).await?;
    }

    let mut child = ConfigMap {
        metadata: ObjectMeta {
            name: Some(format!("{}-config", w.name_any())),
            namespace: Some(ns.clone()),
            ..ObjectMeta::default()
        },
        data: Some([("size".to_string(), w.spec.size.to_string())].into()),
        ..ConfigMap::default()
    };
    apply::set_controller_reference(&*w, &mut child)?;
    apply::apply(&ctx.api_in::<ConfigMap>(&ns), &child, ctx.field_manager()).await?;

    let mut status = w.status.clone().unwrap_or_default();
    set_condition(
        &mut status.conditions,
        new_condition(
            "Ready",
            TRUE,
            "Reconciled",
            "child applied",
            w.metadata.generation,
        ),
    );
    let patch = Widget {
        metadata: ObjectMeta {
            name: w.metadata.name.clone(),
            namespace: Some(ns),
            ..ObjectMeta::default()
        },
        status: Some(status),
        ..Widget::default()
    };
    apply::apply_status(&api, &patch, ctx.field_manager()).await?;
    ctx.publish_event(
        &*w,
        EventType::Normal,
        "Reconciled",
        "Reconcile",
        Some("child applied".into()),
    )
    .await;
    Ok(Action::await_change())
}

async fn ready_condition(api: &Api<Widget>) -> Result<Option<Condition>, kube::Error> {
    let w = api.get("w1").await?;
    Ok(w.status
        .and_then(|s| find_condition(&s.conditions, "Ready").cloned()))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_crd_controller_uses_finalizers_apply_conditions_and_events() {
    let env = Environment::start().await.expect("envtest");
    env.install_crds_yaml(include_str!("fixtures/widgets.yaml"))
        .await
        .expect("install CRD");
    let client = env.client();

    let mgr = Manager::builder(MANAGER)
        .client(client.clone())
        .options(quiet_options())
        .build()
        .await
        .expect("build manager");
    mgr.add(|ctx: Context| async move {
        Controller::for_kind::<Widget>(&ctx)
            .owns::<ConfigMap>()
            .run(reconcile)
            .await
    });
    let running = mgr.spawn();

    let widgets: Api<Widget> = Api::namespaced(client.clone(), "default");
    let w = Widget {
        type_meta: TypeMeta {
            api_version: "test.rkb.dev/v1".into(),
            kind: "Widget".into(),
        },
        metadata: ObjectMeta {
            name: Some("w1".into()),
            ..ObjectMeta::default()
        },
        spec: WidgetSpec { size: 1 },
        status: None,
    };
    widgets
        .create(&PostParams::default(), &w)
        .await
        .expect("create widget");

    let first = eventually("Ready condition", Duration::from_secs(20), || {
        let widgets = widgets.clone();
        async move { ready_condition(&widgets).await }
    })
    .await
    .unwrap();
    assert_eq!(
        (first.status.as_str(), first.reason.as_str()),
        (TRUE, "Reconciled")
    );
    assert_eq!(first.observed_generation, Some(1));

    let stored = widgets.get("w1").await.unwrap();
    assert_eq!(stored.finalizers(), [FINALIZER.to_string()]);
    let status_managers: Vec<_> = stored
        .managed_fields()
        .iter()
        .filter(|f| f.subresource.as_deref() == Some("status"))
        .filter_map(|f| f.manager.clone())
        .collect();
    assert_eq!(status_managers, [MANAGER.to_string()]);

    let configs: Api<ConfigMap> = Api::namespaced(client.clone(), "default");
    let child = configs.get("w1-config").await.expect("child applied");
    let owner = &child.owner_references()[0];
    // What controllerutil.SetControllerReference writes: the garbage collector's foreground deletion of the
    // Widget waits for this child.
    assert_eq!(
        (
            owner.kind.as_str(),
            owner.name.as_str(),
            owner.controller,
            owner.block_owner_deletion
        ),
        ("Widget", "w1", Some(true), Some(true))
    );
    assert_eq!(owner.uid, stored.uid().unwrap());
    assert!(
        child
            .managed_fields()
            .iter()
            .any(|f| f.manager.as_deref() == Some(MANAGER))
    );

    // Past the second the first condition was stamped in, a new generation updates observedGeneration but, with
    // the status unchanged, keeps lastTransitionTime.
    tokio::time::sleep(Duration::from_millis(1100)).await;
    widgets
        .patch(
            "w1",
            &PatchParams::default(),
            &Patch::Merge(serde_json::json!({"spec": {"size": 2}})),
        )
        .await
        .unwrap();
    let second = eventually("observedGeneration 2", Duration::from_secs(20), || {
        let widgets = widgets.clone();
        async move {
            let ready = ready_condition(&widgets).await?;
            Ok::<_, kube::Error>(ready.filter(|c| c.observed_generation == Some(2)))
        }
    })
    .await
    .unwrap();
    assert_eq!(second.last_transition_time, first.last_transition_time);
    eventually("child follows the spec", Duration::from_secs(20), || {
        let configs = configs.clone();
        async move {
            let cm = configs.get("w1-config").await?;
            let size = cm.data.as_ref().and_then(|d| d.get("size"));
            Ok::<_, kube::Error>((size.map(String::as_str) == Some("2")).then_some(()))
        }
    })
    .await
    .unwrap();

    let events: Api<K8sEvent> = Api::namespaced(client.clone(), "default");
    let reasons = |list: Vec<K8sEvent>| -> Vec<String> {
        list.into_iter()
            .filter(|e| e.regarding.as_ref().and_then(|r| r.name.as_deref()) == Some("w1"))
            .filter_map(|e| e.reason)
            .collect()
    };
    let seen = reasons(events.list(&ListParams::default()).await.unwrap().items);
    assert!(seen.iter().any(|r| r == "Reconciled"), "events: {seen:?}");

    // Deletion waits for the finalizer, which the controller removes after cleaning up.
    widgets
        .delete("w1", &DeleteParams::default())
        .await
        .unwrap();
    eventually("widget gone", Duration::from_secs(20), || {
        let widgets = widgets.clone();
        async move { Ok::<_, kube::Error>(widgets.get_opt("w1").await?.is_none().then_some(())) }
    })
    .await
    .unwrap();
    let seen = reasons(events.list(&ListParams::default()).await.unwrap().items);
    assert!(seen.iter().any(|r| r == "CleanedUp"), "events: {seen:?}");

    running.stop().await.expect("clean stop");
}
