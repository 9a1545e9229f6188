//! The events of a controller's own writes through its child index, a child's apply and the object's status,
//! reconcile nothing: the reconcile that wrote them knew what they show (child_index.rs, "Echoes"). A change by
//! anyone else still reconciles.
//!
//! "Did not reconcile" is read without waiting for something not to happen, as predicates.rs does: the events of a
//! kind arrive in order on its watch, so once a later write by someone else (the barrier) to each watched kind has
//! been reconciled and the controller's queue is empty, every earlier event has been through the controller.

mod common;

use std::convert::Infallible;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use common::kinds::{NS, WIDGET_CRD, Widget};
use common::{config_map, quiet_options, touch_config_map};
use k8s_openapi::api::core::v1::ConfigMap;
use kube::api::PostParams;
use kube::runtime::watcher;
use kube::{Api, Resource, ResourceExt};
use rkb_envtest::{Environment, eventually};
use rkb_runtime::child_index::ChildIndex;
use rkb_runtime::metrics::sample;
use rkb_runtime::{Action, BoxError, Context, Controller, Manager};

const TIMEOUT: Duration = Duration::from_secs(30);
const CONTROLLER: &str = "echoes";
const CHILDREN: &str = "test=echoes";

/// Each reconcile, by the name of the Widget it was given.
type Log = Arc<Mutex<Vec<String>>>;

/// What a reconcile through the index does: apply the Widget's ConfigMap, then write its status.
async fn reconcile(w: Arc<Widget>, ctx: Context, index: ChildIndex) -> Result<Action, BoxError> {
    let mut child = config_map(&format!("{}-child", w.name_any()), &[("test", "echoes")]);
    child.metadata.owner_references = Some(vec![w.controller_owner_ref(&()).ok_or("no uid")?]);
    index
        .apply(&ctx.api_in::<ConfigMap>(NS), &child, ctx.field_manager())
        .await?;
    let ready = serde_json::json!({
        "type": "Ready",
        "status": "True",
        "lastTransitionTime": "2026-01-01T00:00:00Z",
        "reason": "Reconciled",
        "message": format!("size {}", w.spec.size),
    });
    let status = serde_json::json!({ "conditions": [ready] });
    index
        .apply_status(&ctx.api_in::<Widget>(NS), &*w, &status, ctx.field_manager())
        .await?;
    Ok(Action::await_change())
}

fn reconciles(log: &Log, name: &str) -> usize {
    log.lock().unwrap().iter().filter(|n| *n == name).count()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_controllers_own_writes_reconcile_nothing() {
    let env = Environment::start().await.expect("envtest");
    env.install_crds_yaml(WIDGET_CRD)
        .await
        .expect("install CRD");
    let client = env.client();
    // The manager's own client, as an operator's: the index's and `.owns()`'s watches are protobuf on the wire.
    let mgr = Manager::builder("rkb-echoes-test")
        .config(env.config().clone())
        .options(quiet_options())
        .build()
        .await
        .expect("build manager");
    let ctx = mgr.context();
    let log = Log::default();
    let logged = log.clone();
    mgr.add(move |ctx: Context| {
        let index = ChildIndex::default();
        let reconciling = index.clone();
        Controller::for_kind::<Widget>(&ctx)
            .named(CONTROLLER)
            .owns_indexed::<ConfigMap>(&index, watcher::Config::default().labels(CHILDREN))
            .run(move |w: Arc<Widget>, ctx| {
                logged.lock().unwrap().push(w.name_any());
                reconcile(w, ctx, reconciling.clone())
            })
    });
    let running = mgr.spawn();
    let widgets: Api<Widget> = Api::namespaced(client.clone(), NS);
    let reconciled = |name: &'static str, times: usize| {
        let log = log.clone();
        move || {
            let done = reconciles(&log, name) >= times;
            async move { Ok::<_, Infallible>(done.then_some(())) }
        }
    };

    // Reconciled once: it applies its child and writes its status, and neither event reconciles it again.
    let pp = PostParams::default();
    widgets
        .create(&pp, &Widget::new("first", &[]))
        .await
        .expect("create first");
    let written = |name: &'static str| {
        let widgets = widgets.clone();
        move || {
            let widgets = widgets.clone();
            async move {
                let status = widgets.get(name).await?.status;
                Ok::<_, kube::Error>(status.is_some().then_some(()))
            }
        }
    };
    eventually("first's status", TIMEOUT, written("first"))
        .await
        .unwrap();

    // The barrier, created after first's status write (so after its echoes on both watches) by someone else:
    // a Widget, then an edit of its child by another writer, which does reconcile it.
    widgets
        .create(&pp, &Widget::new("barrier", &[]))
        .await
        .expect("create barrier");
    eventually("barrier's status", TIMEOUT, written("barrier"))
        .await
        .unwrap();
    touch_config_map(&client, "barrier-child", "edited").await;
    eventually(
        "barrier's child edited by someone else",
        TIMEOUT,
        reconciled("barrier", 2),
    )
    .await
    .unwrap();
    eventually("an empty queue", TIMEOUT, || {
        let text = ctx.metrics().encode();
        let label = [("name", CONTROLLER)];
        let depth = sample(&text, "workqueue_depth", &label);
        let running = sample(&text, "controller_runtime_active_workers", &[("controller", CONTROLLER)]);
        async move { Ok::<_, Infallible>((depth == Some(0.0) && running == Some(0.0)).then_some(())) }
    })
    .await
    .unwrap();
    assert_eq!(
        reconciles(&log, "first"),
        1,
        "the events of first's own child apply and status write reconciled it again: {:?}",
        log.lock().unwrap()
    );
    assert_eq!(reconciles(&log, "barrier"), 2, "{:?}", log.lock().unwrap());
    running.stop().await.expect("manager stops");
}
