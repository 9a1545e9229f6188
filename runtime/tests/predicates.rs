//! Predicates on a real API server: which writes to a watched object queue a reconcile.
//!
//! "Did not queue" is read without waiting for something not to happen: each controller's queue counts the
//! requests its watches add (`workqueue_adds_total`), and an object's events arrive in order on the kind's one
//! watch. So once a later write to another object (the barrier) has been reconciled, the earlier write has been
//! through the predicate, and the count says whether it passed.

mod common;

use std::collections::BTreeMap;
use std::convert::Infallible;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use common::kinds::{WIDGET_CRD, Widget, WidgetSpec};
use common::quiet_options;
use k8s_openapi::api::core::v1::ConfigMap;
use kube::api::{Patch, PatchParams, PostParams};
use kube::runtime::watcher;
use kube::{Api, Resource, ResourceExt};
use rkb_envtest::{Environment, eventually};
use rkb_runtime::metrics::sample;
use rkb_runtime::{Action, BoxError, Context, Controller, Manager, Predicate, RunningManager};

/// Each reconcile as "<controller> <object>".
type Log = Arc<Mutex<Vec<String>>>;

/// A controller named `name` that only records its reconciles.
async fn recording<K>(
    ctx: Context,
    name: &'static str,
    config: watcher::Config,
    predicate: Predicate<K>,
    log: Log,
) -> Result<(), rkb_runtime::Error>
where
    K: Resource<DynamicType = (), Scope = kube::core::NamespaceResourceScope>
        + Clone
        + serde::de::DeserializeOwned
        + std::fmt::Debug
        + Send
        + Sync
        + 'static,
{
    Controller::for_kind_with::<K>(&ctx, config)
        .named(name)
        .with_predicate(predicate)
        .run(move |obj: Arc<K>, _ctx| {
            let log = log.clone();
            async move {
                log.lock()
                    .unwrap()
                    .push(format!("{name} {}", obj.name_any()));
                Ok::<_, BoxError>(Action::await_change())
            }
        })
        .await
}

fn widget(name: &str, labels: &[(&str, &str)]) -> Widget {
    Widget {
        spec: WidgetSpec { size: 1 },
        ..Widget::new(name, labels)
    }
}

struct Cluster {
    widgets: Api<Widget>,
    config_maps: Api<ConfigMap>,
    log: Log,
    ctx: Context,
}

impl Cluster {
    async fn merge<K>(api: &Api<K>, name: &str, patch: serde_json::Value)
    where
        K: Resource + Clone + serde::de::DeserializeOwned + std::fmt::Debug,
    {
        api.patch(name, &PatchParams::default(), &Patch::Merge(&patch))
            .await
            .expect("patch");
    }

    async fn spec(&self, name: &str, size: i64) {
        Self::merge(
            &self.widgets,
            name,
            serde_json::json!({"spec": {"size": size}}),
        )
        .await;
    }

    async fn label(&self, name: &str, key: &str, value: &str) {
        let patch = serde_json::json!({"metadata": {"labels": {key: value}}});
        Self::merge(&self.widgets, name, patch).await;
    }

    /// Sets a Ready condition with `reason`: a write to the status only (the generation stays).
    async fn status(&self, name: &str, reason: &str) {
        let before = self.widgets.get(name).await.expect("get");
        let condition = serde_json::json!({
            "type": "Ready", "status": "True", "reason": reason, "message": "set by the test",
            "lastTransitionTime": "2026-01-01T00:00:00Z",
        });
        let patch = serde_json::json!({"status": {"conditions": [condition]}});
        let after = self
            .widgets
            .patch_status(name, &PatchParams::default(), &Patch::Merge(&patch))
            .await
            .expect("patch status");
        assert_ne!(
            before.resource_version(),
            after.resource_version(),
            "the status changed"
        );
        assert_eq!(before.meta().generation, after.meta().generation);
    }

    fn reconciles(&self, controller: &str, object: &str) -> usize {
        let entry = format!("{controller} {object}");
        self.log
            .lock()
            .unwrap()
            .iter()
            .filter(|e| **e == entry)
            .count()
    }

    /// Waits until `controller` has reconciled `object` `times` times.
    async fn wait_for(&self, controller: &str, object: &str, times: usize) {
        eventually(
            &format!("{controller} reconciles {object} {times} times"),
            Duration::from_secs(20),
            || {
                let count = self.reconciles(controller, object);
                async move { Ok::<_, Infallible>((count >= times).then_some(())) }
            },
        )
        .await
        .unwrap();
    }

    /// The requests `controller`'s watches have queued.
    fn queued(&self, controller: &str) -> f64 {
        let text = self.ctx.metrics().encode();
        sample(&text, "workqueue_adds_total", &[("name", controller)]).unwrap_or(0.0)
    }

    /// Each controller's reconciles of each object, sorted.
    fn counts(&self) -> BTreeMap<String, usize> {
        let mut counts = BTreeMap::new();
        for entry in self.log.lock().unwrap().iter() {
            *counts.entry(entry.clone()).or_default() += 1;
        }
        counts
    }
}

/// The test's three recording controllers, running on `env` (the Widget CRD installed): "by-generation" (Widgets,
/// spec changes), "by-labels" (the test's ConfigMaps, label changes) and "composed" (Widgets labelled `tier`, on a
/// change of their spec or their labels).
async fn recording_controllers(env: &Environment) -> (Cluster, RunningManager) {
    env.install_crds_yaml(WIDGET_CRD)
        .await
        .expect("install CRD");
    let client = env.client();
    let mgr = Manager::builder("rkb-predicates-test")
        .client(client.clone())
        .options(quiet_options())
        .build()
        .await
        .expect("build manager");
    let log = Log::default();
    let cluster = Cluster {
        widgets: Api::namespaced(client.clone(), "default"),
        config_maps: Api::namespaced(client.clone(), "default"),
        log: log.clone(),
        ctx: mgr.context(),
    };
    let all = watcher::Config::default;
    let l = log.clone();
    mgr.add(move |ctx| {
        recording::<Widget>(
            ctx,
            "by-generation",
            all(),
            Predicate::generation_changed(),
            l,
        )
    });
    let l = log.clone();
    mgr.add(move |ctx| {
        let ours = all().labels("test=predicates");
        recording::<ConfigMap>(ctx, "by-labels", ours, Predicate::labels_changed(), l)
    });
    // Widgets labelled `tier`, on a change of their spec or their labels.
    let tiered = Predicate::filter(|w: &Widget| w.labels().contains_key("tier"))
        & (Predicate::generation_changed() | Predicate::labels_changed());
    let l = log.clone();
    mgr.add(move |ctx| recording::<Widget>(ctx, "composed", all(), tiered, l));
    (cluster, mgr.spawn())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn predicates_decide_which_writes_queue_a_reconcile() {
    let env = Environment::start().await.expect("envtest");
    let (cluster, running) = recording_controllers(&env).await;
    let post = PostParams::default();
    for w in [widget("w1", &[("tier", "web")]), widget("w2", &[])] {
        cluster.widgets.create(&post, &w).await.expect("create");
    }
    let cm = common::config_map("c1", &[("test", "predicates")]);
    cluster
        .config_maps
        .create(&post, &cm)
        .await
        .expect("create");
    cluster.wait_for("by-generation", "w1", 1).await;
    cluster.wait_for("by-generation", "w2", 1).await;
    cluster.wait_for("composed", "w1", 1).await;
    cluster.wait_for("by-labels", "c1", 1).await;

    // A status-only write, then a spec change of another widget (the barrier).
    cluster.status("w1", "Ready").await;
    cluster.spec("w2", 2).await;
    cluster.wait_for("by-generation", "w2", 2).await;
    assert_eq!(
        cluster.reconciles("by-generation", "w1"),
        1,
        "{:?}",
        cluster.counts()
    );
    assert_eq!(
        cluster.queued("by-generation"),
        3.0,
        "w1, w2 created; w2's spec"
    );

    // A spec change of w1 passes.
    cluster.spec("w1", 2).await;
    cluster.wait_for("by-generation", "w1", 2).await;
    cluster.wait_for("composed", "w1", 2).await;

    // The composition: w2 has no tier (neither its creation nor its spec change passed); w1's status did not
    // pass, its label change and its spec change did.
    cluster.label("w1", "owner", "team-a").await;
    cluster.wait_for("composed", "w1", 3).await;
    assert_eq!(
        cluster.reconciles("composed", "w2"),
        0,
        "{:?}",
        cluster.counts()
    );
    assert_eq!(
        cluster.queued("composed"),
        3.0,
        "w1 created, its spec, its label"
    );

    // Labels on a ConfigMap: a data change does not pass, a label change does.
    Cluster::merge(
        &cluster.config_maps,
        "c1",
        serde_json::json!({"data": {"k": "2"}}),
    )
    .await;
    let labels = serde_json::json!({"metadata": {"labels": {"more": "yes"}}});
    Cluster::merge(&cluster.config_maps, "c1", labels).await;
    cluster.wait_for("by-labels", "c1", 2).await;
    assert_eq!(cluster.queued("by-labels"), 2.0, "c1 created, its label");

    // The label change of w1 changed no generation: by-generation saw its two passing events only.
    cluster.spec("w2", 3).await;
    cluster.wait_for("by-generation", "w2", 3).await;
    assert_eq!(
        cluster.reconciles("by-generation", "w1"),
        2,
        "{:?}",
        cluster.counts()
    );
    assert_eq!(cluster.queued("by-generation"), 5.0);

    running.stop().await.expect("clean stop");
}
