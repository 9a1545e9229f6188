//! Errors print each cause once: a failure that reaches the user through layers of context (the runtime's error, the
//! operator's anyhow context, envtest's timeout) shows the kube error that caused it exactly once, whether rendered
//! on one line (anyhow's `{:#}`, as logs do) or as the report `main` prints (anyhow's `Debug`, "Caused by:").
//!
//! kube's own `Api` error is left as kube writes it: its message embeds the server's Status (and its Debug form),
//! which is also its `source()`. What is asserted is that no rkb layer adds another copy of the kube error.

use std::time::Duration;

use k8s_openapi::api::core::v1::ConfigMap;
use kube::Api;
use kube::api::ObjectMeta;
use rkb_envtest::{Environment, eventually};
use rkb_runtime::finalizer;

const FINALIZER: &str = "test.rkb.dev/cleanup";

/// A ConfigMap the API server does not have: what a reconcile holds when the object was deleted meanwhile.
fn ghost() -> ConfigMap {
    ConfigMap {
        metadata: ObjectMeta {
            name: Some("ghost".into()),
            namespace: Some("default".into()),
            ..ObjectMeta::default()
        },
        ..ConfigMap::default()
    }
}

#[tokio::test]
async fn a_kube_error_under_context_is_printed_once() {
    let env = Environment::start().await.expect("envtest");
    let api: Api<ConfigMap> = Api::namespaced(env.client(), "default");

    // The runtime's error: a finalizer patch the API server refuses (404), under the operator's own context.
    let refused = finalizer::add_finalizer(&api, &ghost(), FINALIZER)
        .await
        .unwrap_err();
    let kube_error = match &refused {
        rkb_runtime::Error::Finalizer { source, .. } => source.to_string(),
        other => panic!("not a finalizer error: {other:?}"),
    };
    assert!(
        kube_error.contains(r#"configmaps "ghost" not found"#),
        "{kube_error}"
    );
    let failure = anyhow::Error::new(refused).context("reconciling ConfigMap default/ghost");
    let line = format!("{failure:#}");
    assert!(
        line.starts_with(&format!(
            "reconciling ConfigMap default/ghost: cannot update finalizer {FINALIZER}: {kube_error}"
        )),
        "{line}"
    );
    assert_eq!(line.matches(&kube_error).count(), 1, "{line}");
    let report = format!("{failure:?}");
    assert_eq!(report.matches(&kube_error).count(), 1, "{report}");

    // envtest's timeout: the last failed check is its cause, printed once under the timeout.
    let timeout = eventually("ConfigMap ghost exists", Duration::from_millis(300), || {
        let api = api.clone();
        async move { api.get("ghost").await.map(Some) }
    })
    .await
    .unwrap_err();
    let kube_error = std::error::Error::source(&timeout)
        .expect("the last check's error")
        .to_string();
    let line = format!("{:#}", anyhow::Error::new(timeout));
    assert!(
        line.starts_with(&format!(
            "timed out after 300ms waiting until ConfigMap ghost exists; the last check failed: {kube_error}"
        )),
        "{line}"
    );
    assert_eq!(line.matches(&kube_error).count(), 1, "{line}");
}
