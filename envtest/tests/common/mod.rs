//! Helpers shared by the integration tests (each test binary uses a different subset).
#![allow(dead_code)]

use std::path::PathBuf;

use kube::Client;
use kube::api::{Api, ApiResource, DynamicObject};
use rkb_envtest::{Environment, EnvironmentBuilder};

pub const GROUP: &str = "envtest.rkb.dev";

pub fn crd_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/crds")
}

/// Starts the environment or fails the test with the error's full text (which, when the binaries
/// are missing, says how to get them). Never skips.
pub async fn start(builder: EnvironmentBuilder) -> Environment {
    builder
        .start()
        .await
        .unwrap_or_else(|e| panic!("envtest failed to start: {e}"))
}

pub fn widget_resource() -> ApiResource {
    ApiResource {
        group: GROUP.into(),
        version: "v1".into(),
        api_version: format!("{GROUP}/v1"),
        kind: "Widget".into(),
        plural: "widgets".into(),
    }
}

pub fn widgets(client: &Client, namespace: &str) -> Api<DynamicObject> {
    Api::namespaced_with(client.clone(), namespace, &widget_resource())
}

/// A Widget with the given spec.
pub fn widget(name: &str, spec: serde_json::Value) -> DynamicObject {
    DynamicObject::new(name, &widget_resource()).data(serde_json::json!({ "spec": spec }))
}

/// The HTTP status of an API error, or a panic naming what happened instead.
pub fn api_code<T: std::fmt::Debug>(result: Result<T, kube::Error>) -> u16 {
    match result {
        Err(kube::Error::Api(status)) => status.code,
        other => panic!("expected an API error, got {other:?}"),
    }
}
