//! Conversion through a real kube-apiserver: a CRD with two versions stores v1, and the manager's conversion webhook
//! converts v2 to v1 and back through the hub. A field only v2 has survives the round trip (kept in an
//! annotation, as kubebuilder's multiversion tutorial keeps it); lists convert every item; a conversion error
//! reaches the client naming the object and the versions.

mod common;

use std::collections::BTreeMap;
use std::time::Duration;

use common::kinds::{GIZMO_CRD, GizmoV1, GizmoV2, NS, SpecV1, SpecV2};
use common::quiet_options;
use kube::Api;
use kube::api::{ListParams, PostParams};
use rkb_envtest::{Environment, eventually};
use rkb_runtime::webhook::{CONVERT_PATH, Webhooks};
use rkb_runtime::{Manager, ManagerOptions, TypeMeta};

/// Where v1 keeps v2's tier.
const TIER_ANNOTATION: &str = "test.rkb.dev/tier";

/// v2 -> the hub: the tier, which v1 has no field for, goes into an annotation.
impl TryFrom<GizmoV2> for GizmoV1 {
    type Error = String;
    fn try_from(v2: GizmoV2) -> Result<Self, String> {
        if v2.spec.size < 0 {
            return Err(format!("size must not be negative, got {}", v2.spec.size));
        }
        let mut metadata = v2.metadata;
        if !v2.spec.tier.is_empty() {
            metadata
                .annotations
                .get_or_insert_with(BTreeMap::new)
                .insert(TIER_ANNOTATION.into(), v2.spec.tier);
        }
        Ok(GizmoV1 {
            type_meta: TypeMeta::default(),
            metadata,
            spec: SpecV1 {
                replicas: v2.spec.size,
            },
        })
    }
}

/// The hub -> v2: the tier comes back out of the annotation.
impl From<GizmoV1> for GizmoV2 {
    fn from(v1: GizmoV1) -> Self {
        let mut metadata = v1.metadata;
        let tier = metadata
            .annotations
            .as_mut()
            .and_then(|a| a.remove(TIER_ANNOTATION))
            .unwrap_or_default();
        if metadata
            .annotations
            .as_ref()
            .is_some_and(BTreeMap::is_empty)
        {
            metadata.annotations = None;
        }
        GizmoV2 {
            type_meta: TypeMeta::default(),
            metadata,
            spec: SpecV2 {
                size: v1.spec.replicas,
                tier,
            },
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn objects_convert_between_versions_through_the_hub() {
    let env = Environment::start().await.expect("envtest");
    env.install_crds_yaml(GIZMO_CRD).await.expect("install CRD");
    let server = env.install_webhooks("").await.expect("webhook server");
    env.enable_conversion("gizmos.test.rkb.dev", &server, CONVERT_PATH)
        .await
        .expect("conversion on");
    let options = ManagerOptions {
        webhook_port: server.port,
        webhook_cert_path: server.cert_dir.clone(),
        ..quiet_options()
    };
    let mgr = Manager::builder("rkb-conversion-test")
        .client(env.client())
        .options(options)
        .build()
        .await
        .expect("build manager");
    mgr.serve_webhooks(Webhooks::new().conversion::<GizmoV1, GizmoV2>());
    let running = mgr.spawn();

    let v1s: Api<GizmoV1> = Api::namespaced(env.client(), NS);
    let v2s: Api<GizmoV2> = Api::namespaced(env.client(), NS);
    let pp = PostParams::default();
    // Written in v2, stored in v1: the API server converts through the webhook (poll until it listens).
    eventually(
        "a v2 create is converted",
        Duration::from_secs(30),
        || async {
            v2s.create(&pp, &GizmoV2::new("g1", 3, "gold"))
                .await
                .map(Some)
        },
    )
    .await
    .expect("the conversion webhook answers");

    let stored = v1s.get("g1").await.expect("read in v1");
    assert_eq!(stored.spec.replicas, 3);
    let annotations = stored.metadata.annotations.clone().unwrap_or_default();
    assert_eq!(
        annotations.get(TIER_ANNOTATION).map(String::as_str),
        Some("gold")
    );

    let back = v2s.get("g1").await.expect("read in v2");
    assert_eq!((back.spec.size, back.spec.tier.as_str()), (3, "gold"));
    assert_eq!(back.type_meta.api_version, "test.rkb.dev/v2");
    assert!(
        back.metadata
            .annotations
            .as_ref()
            .is_none_or(|a| !a.contains_key(TIER_ANNOTATION)),
        "{:?}",
        back.metadata.annotations
    );

    // A list in the other version converts every item.
    let hub = GizmoV1::new("g2", 2);
    v1s.create(&pp, &hub).await.expect("create in v1");
    let listed = v2s.list(&ListParams::default()).await.expect("list in v2");
    let mut sizes: Vec<(String, i64)> = listed
        .items
        .iter()
        .map(|g| (g.metadata.name.clone().unwrap_or_default(), g.spec.size))
        .collect();
    sizes.sort();
    assert_eq!(sizes, [("g1".to_string(), 3), ("g2".to_string(), 2)]);

    // A failed conversion reaches the client with the object and the versions.
    let refused = v2s.create(&pp, &GizmoV2::new("bad", -1, "")).await;
    let Err(kube::Error::Api(status)) = refused else {
        panic!("a negative size was converted: {refused:?}");
    };
    assert!(
        status.message.contains(
            "cannot convert Gizmo default/bad from test.rkb.dev/v2 to test.rkb.dev/v1: size must not be negative, got -1"
        ),
        "{}",
        status.message
    );
    running.stop().await.expect("manager stops");
}
