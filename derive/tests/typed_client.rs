//! The generated typed clients of the fixture's kinds against a real kube-apiserver (rkb-envtest).

use std::time::Duration;

use futures::StreamExt;
use k8s_openapi::api::autoscaling::v1::Scale;
use rkb_envtest::Environment;
use rkb_fixture_operator::api::clusterprovisioner::v1alpha1::{
    Cluster, ClusterClient, ClusterSpec, ClusterStatus,
};
use rkb_fixture_operator::api::testing::v1::{
    Gadget, GadgetClient, GadgetSpec, Sensor, SensorClient, SensorSpec, Widget, WidgetClient,
    WidgetSpec, WidgetStatus,
};
use rkb_runtime::client::{
    ApplyOptions, DeleteParams, ListParams, Patch, PatchParams, PostParams, WatchEvent, WatchParams,
};
use serde_json::json;

async fn env() -> Environment {
    let mut builder = Environment::builder();
    for yaml in [
        Widget::crd_yaml(),
        Gadget::crd_yaml(),
        Sensor::crd_yaml(),
        Cluster::crd_yaml(),
    ] {
        builder = builder.crd_yaml(yaml);
    }
    builder
        .start()
        .await
        .expect("envtest with the fixture CRDs")
}

fn widget(name: &str, replicas: i32) -> Widget {
    Widget::new(
        name,
        WidgetSpec {
            replicas,
            ..Default::default()
        },
    )
}

#[tokio::test]
async fn widget_client_has_every_verb() {
    let env = env().await;
    let widgets = WidgetClient::new(env.client(), "default");
    let pp = PostParams::default();

    let w = widgets.create(&widget("w1", 1), &pp).await.unwrap();
    assert_eq!(w.type_meta.api_version, "testing.rkb.example/v1");
    assert!(
        widgets
            .create(&widget("w1", 1), &pp)
            .await
            .unwrap_err()
            .is_already_exists()
    );
    assert_eq!(widgets.get("w1").await.unwrap().spec.replicas, 1);
    assert!(widgets.get_opt("none").await.unwrap().is_none());

    let mut w2 = w.clone();
    w2.spec.color = Some("red".into());
    let w2 = widgets.update(&w2, &pp).await.unwrap();
    assert_eq!(w2.spec.color.as_deref(), Some("red"));
    assert!(
        widgets.update(&w, &pp).await.unwrap_err().is_conflict(),
        "stale resourceVersion"
    );

    let mut s = w2.clone();
    s.status = Some(WidgetStatus {
        replicas: 1,
        ready: true,
        phase: Some("Up".into()),
    });
    let s = widgets.update_status(&s, &pp).await.unwrap();
    assert!(s.status.as_ref().unwrap().ready);
    let p = widgets
        .patch_status(
            "w1",
            &PatchParams::default(),
            &Patch::Merge(json!({"status": {"phase": "Down"}})),
        )
        .await
        .unwrap();
    assert_eq!(p.status.unwrap().phase.as_deref(), Some("Down"));
    let p = widgets
        .patch(
            "w1",
            &PatchParams::default(),
            &Patch::Merge(json!({"spec": {"tags": ["x"]}})),
        )
        .await
        .unwrap();
    assert_eq!(p.spec.tags, ["x"]);

    // +genclient:method extensions on the scale subresource
    let scale: Scale = widgets.get_scale("w1").await.unwrap();
    assert_eq!(scale.spec.as_ref().unwrap().replicas, Some(1));
    let mut bigger = scale.clone();
    bigger.spec.as_mut().unwrap().replicas = Some(4);
    let scaled = widgets.update_scale("w1", &bigger, &pp).await.unwrap();
    assert_eq!(scaled.spec.unwrap().replicas, Some(4));
    assert_eq!(widgets.get("w1").await.unwrap().spec.replicas, 4);
    let patched: Scale = widgets
        .patch_scale(
            "w1",
            &PatchParams::default(),
            &Patch::Merge(json!({"spec": {"replicas": 6}})),
        )
        .await
        .unwrap();
    assert_eq!(patched.spec.unwrap().replicas, Some(6));
    assert_eq!(widgets.get("w1").await.unwrap().spec.replicas, 6);
    // verb=create on the collection: the object names itself.
    let copy = widgets
        .create_copy(&widget("w1-copy", 2), &pp)
        .await
        .unwrap();
    assert_eq!(copy.spec.replicas, 2);
    assert!(widgets.get("w1-copy").await.is_ok());

    // The other verbs client-gen allows a method: apply (on a subresource and on the object), list and watch with
    // another result type, delete and deleteCollection.
    // (An apply to a custom resource's scale subresource is refused by the API server itself, so status here.)
    let status_config = json!({
        "apiVersion": "testing.rkb.example/v1",
        "kind": "Widget",
        "metadata": {"name": "w1"},
        "status": {"phase": "Applied"},
    });
    let applied = widgets
        .apply_phase("w1", &status_config, &ApplyOptions::force())
        .await
        .unwrap();
    assert_eq!(applied.status.unwrap().phase.as_deref(), Some("Applied"));
    let raw_applied = widgets
        .apply_raw(
            &json!({"metadata": {"name": "w1-raw"}, "spec": {"replicas": 3}}),
            &ApplyOptions::default(),
        )
        .await
        .unwrap();
    assert_eq!(raw_applied.spec.replicas, 3);
    let listed = widgets.list_raw(&ListParams::default()).await.unwrap();
    let names: Vec<&str> = listed
        .items
        .iter()
        .filter_map(|w| w["metadata"]["name"].as_str())
        .collect();
    assert!(
        names.contains(&"w1-copy") && names.contains(&"w1-raw"),
        "{names:?}"
    );
    let from = listed.metadata.resource_version.clone().unwrap_or_default();
    let mut events = widgets
        .watch_raw(&WatchParams::default().timeout(10), &from)
        .await
        .unwrap();
    widgets
        .remove("w1-copy", &DeleteParams::default())
        .await
        .unwrap();
    let deleted = tokio::time::timeout(Duration::from_secs(10), async {
        while let Some(event) = events.next().await {
            if let Ok(WatchEvent::Deleted(obj)) = event {
                return obj["metadata"]["name"].as_str().map(str::to_string);
            }
        }
        None
    })
    .await
    .unwrap();
    assert_eq!(deleted.as_deref(), Some("w1-copy"));
    widgets
        .remove_all(
            &DeleteParams::default(),
            &ListParams::default().fields("metadata.name=w1-raw"),
        )
        .await
        .unwrap();
    assert!(widgets.get_opt("w1-raw").await.unwrap().is_none());
    assert!(
        widgets.get_opt("w1").await.unwrap().is_some(),
        "deleteCollection kept to its selector"
    );

    // server-side apply with managers, conflicts and force; apply_status
    let ann = widgets.clone().with_field_manager("ann");
    let ben = widgets.clone().with_field_manager("ben");
    let applied = ann
        .apply(
            &json!({"metadata": {"name": "w2"}, "spec": {"replicas": 2, "color": "blue"}}),
            &ApplyOptions::default(),
        )
        .await
        .unwrap();
    assert_eq!(applied.spec.color.as_deref(), Some("blue"));
    let conflict = ben
        .apply(
            &json!({"metadata": {"name": "w2"}, "spec": {"replicas": 2, "color": "green"}}),
            &ApplyOptions::default(),
        )
        .await
        .unwrap_err();
    assert!(conflict.is_conflict(), "{conflict}");
    let forced = ben
        .apply(
            &json!({"metadata": {"name": "w2"}, "spec": {"replicas": 2, "color": "green"}}),
            &ApplyOptions::force(),
        )
        .await
        .unwrap();
    assert_eq!(forced.spec.color.as_deref(), Some("green"));
    let st = ann
        .apply_status(
            &json!({"metadata": {"name": "w2"}, "status": {"ready": true}}),
            &ApplyOptions::default(),
        )
        .await
        .unwrap();
    assert!(st.status.unwrap().ready);

    // list, watch
    let list = widgets.list(&ListParams::default()).await.unwrap();
    assert_eq!(list.items.len(), 2);
    let rv = list.metadata.resource_version.unwrap();
    let mut watch = widgets.watch(&WatchParams::default(), &rv).await.unwrap();
    widgets
        .delete("w2", &DeleteParams::default())
        .await
        .unwrap();
    let ev = tokio::time::timeout(Duration::from_secs(10), watch.next())
        .await
        .unwrap()
        .unwrap()
        .unwrap();
    assert!(matches!(ev, WatchEvent::Deleted(w) if w.metadata.name.as_deref() == Some("w2")));

    widgets
        .delete_collection(&DeleteParams::default(), &ListParams::default())
        .await
        .unwrap();
    assert!(
        widgets
            .list(&ListParams::default())
            .await
            .unwrap()
            .items
            .is_empty()
    );
}

#[tokio::test]
async fn tags_shape_the_clients_of_other_kinds() {
    let env = env().await;
    let pp = PostParams::default();

    // Cluster: cluster-scoped (genclient:nonNamespaced), no status subresource (noStatus), so
    // status is written with update.
    let clusters = ClusterClient::new(env.client());
    let mut c = clusters
        .create(
            &Cluster::new(
                "prod",
                ClusterSpec {
                    config_path: "/etc/prod.yaml".into(),
                },
            ),
            &pp,
        )
        .await
        .unwrap();
    assert!(c.metadata.namespace.is_none());
    c.status = Some(ClusterStatus {
        applied_config: "/etc/prod.yaml".into(),
        conditions: vec![],
    });
    let c = clusters.update(&c, &pp).await.unwrap();
    assert_eq!(c.status.unwrap().applied_config, "/etc/prod.yaml");

    // Gadget: namespaced, noStatus.
    let gadgets = GadgetClient::new(env.client(), "default");
    gadgets
        .create(&Gadget::new("g", GadgetSpec { size: 3 }), &pp)
        .await
        .unwrap();
    assert_eq!(gadgets.get("g").await.unwrap().spec.size, 3);

    // Sensor: readonly; objects come from elsewhere (here the generic client underneath).
    let sensors = SensorClient::new(env.client());
    sensors
        .inner()
        .create(&Sensor::new("t1", SensorSpec { unit: "C".into() }), &pp)
        .await
        .unwrap();
    assert_eq!(sensors.get("t1").await.unwrap().spec.unit, "C");
    assert_eq!(
        sensors
            .list(&ListParams::default())
            .await
            .unwrap()
            .items
            .len(),
        1
    );
}
