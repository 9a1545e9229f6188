//! The test kinds of the `test.rkb.dev` group that the webhook tests serve, as the CRDs in `tests/fixtures/`
//! declare them: Gadget (`gadgets.yaml`, v1, for admission) and Gizmo (`gizmos.yaml`, v1 stored and v2 served, for
//! conversion), and Widget (`widgets.yaml`, v1 with a status subresource, for controllers). Only the types and their constructors live here: each test file writes the defaulters, validators
//! and conversions it exercises, since what they do is what that file tests.

use kube::api::ObjectMeta;
use rkb_envtest::{Environment, WebhookServer};
use rkb_runtime::TypeMeta;
use serde::{Deserialize, Serialize};

/// The namespace every test object is created in.
pub const NS: &str = "default";

pub const GADGET_CRD: &str = include_str!("../fixtures/gadgets.yaml");
pub const GIZMO_CRD: &str = include_str!("../fixtures/gizmos.yaml");
pub const WIDGET_CRD: &str = include_str!("../fixtures/widgets.yaml");
/// Gadget's mutating and validating webhook configurations, with the names and paths `rkb manifests` writes.
pub const GADGET_WEBHOOKS: &str = include_str!("../fixtures/gadget_webhooks.yaml");

/// A control plane with the Gadget CRD and its webhook configurations, pointed at the returned server's port and
/// trusting its certificate.
pub async fn gadget_control_plane() -> (Environment, WebhookServer) {
    let env = Environment::start().await.expect("envtest");
    env.install_crds_yaml(GADGET_CRD)
        .await
        .expect("install Gadget CRD");
    let server = env
        .install_webhooks(GADGET_WEBHOOKS)
        .await
        .expect("install webhooks");
    (env, server)
}

#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct Gadget {
    #[serde(flatten)]
    pub type_meta: TypeMeta,
    #[serde(default)]
    pub metadata: ObjectMeta,
    #[serde(default)]
    pub spec: GadgetSpec,
}

#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct GadgetSpec {
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub image: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub replicas: Option<i64>,
}

crate::test_resource!(Gadget, "Gadget", "gadgets", "v1");

impl Gadget {
    /// A Gadget `name` in [`NS`]; an empty `image` is left out, as a client that sets none sends it.
    pub fn new(name: &str, image: &str, replicas: Option<i64>) -> Self {
        Gadget {
            type_meta: type_meta("v1", "Gadget"),
            metadata: meta(name),
            spec: GadgetSpec {
                image: image.into(),
                replicas,
            },
        }
    }
}

/// One version of Gizmo: the same object shape around that version's spec.
macro_rules! gizmo_version {
    ($ty:ident, $spec:ident, $version:literal) => {
        #[derive(Clone, Debug, Default, Serialize, Deserialize)]
        pub struct $ty {
            #[serde(flatten)]
            pub type_meta: TypeMeta,
            #[serde(default)]
            pub metadata: ObjectMeta,
            #[serde(default)]
            pub spec: $spec,
        }

        crate::test_resource!($ty, "Gizmo", "gizmos", $version);
    };
}

gizmo_version!(GizmoV1, SpecV1, "v1");
gizmo_version!(GizmoV2, SpecV2, "v2");

/// Gizmo v1's spec: the stored version (the hub).
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct SpecV1 {
    #[serde(default)]
    pub replicas: i64,
}

/// Gizmo v2's spec: `replicas` renamed `size`, and a `tier` v1 has no field for.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct SpecV2 {
    #[serde(default)]
    pub size: i64,
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub tier: String,
}

impl GizmoV1 {
    /// A Gizmo `name` in [`NS`], written in v1.
    pub fn new(name: &str, replicas: i64) -> Self {
        GizmoV1 {
            type_meta: type_meta("v1", "Gizmo"),
            metadata: meta(name),
            spec: SpecV1 { replicas },
        }
    }
}

impl GizmoV2 {
    /// A Gizmo `name` in [`NS`], written in v2; an empty `tier` is left out.
    pub fn new(name: &str, size: i64, tier: &str) -> Self {
        GizmoV2 {
            type_meta: type_meta("v2", "Gizmo"),
            metadata: meta(name),
            spec: SpecV2 {
                size,
                tier: tier.into(),
            },
        }
    }
}

fn type_meta(version: &str, kind: &str) -> TypeMeta {
    TypeMeta {
        api_version: format!("test.rkb.dev/{version}"),
        kind: kind.into(),
    }
}

fn meta(name: &str) -> ObjectMeta {
    ObjectMeta {
        name: Some(name.into()),
        namespace: Some(NS.into()),
        ..ObjectMeta::default()
    }
}

/// A Widget: a spec to reconcile and a status of any shape.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct Widget {
    #[serde(flatten)]
    pub type_meta: TypeMeta,
    #[serde(default)]
    pub metadata: ObjectMeta,
    #[serde(default)]
    pub spec: WidgetSpec,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status: Option<serde_json::Value>,
}

#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct WidgetSpec {
    #[serde(default)]
    pub size: i64,
}

crate::test_resource!(Widget, "Widget", "widgets", "v1");

impl Widget {
    /// A Widget `name` in [`NS`] with `labels`.
    pub fn new(name: &str, labels: &[(&str, &str)]) -> Self {
        let mut metadata = meta(name);
        metadata.labels = Some(
            labels
                .iter()
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect(),
        );
        Widget {
            type_meta: type_meta("v1", "Widget"),
            metadata,
            ..Widget::default()
        }
    }
}
