//! A process started with `spawn_as_service_account` acts as that ServiceAccount, with its namespace as the
//! default one, and is refused what the ServiceAccount's RBAC does not grant: what an e2e test relies on to run a
//! manager under the project's roles.

mod common;

use std::time::Duration;

use common::start;
use k8s_openapi::api::core::v1::{Namespace, ServiceAccount};
use kube::api::{Api, ObjectMeta, PostParams};
use rkb_envtest::{Environment, eventually};

const NAMESPACE: &str = "team";
const ACCOUNT: &str = "robot";

async fn with_service_account() -> Environment {
    let env = start(Environment::builder()).await;
    let named = |name: &str| ObjectMeta {
        name: Some(name.to_string()),
        ..ObjectMeta::default()
    };
    let post = PostParams::default();
    Api::<Namespace>::all(env.client())
        .create(
            &post,
            &Namespace {
                metadata: named(NAMESPACE),
                ..Namespace::default()
            },
        )
        .await
        .unwrap();
    Api::<ServiceAccount>::namespaced(env.client(), NAMESPACE)
        .create(
            &post,
            &ServiceAccount {
                metadata: named(ACCOUNT),
                ..ServiceAccount::default()
            },
        )
        .await
        .unwrap();
    env
}

#[tokio::test]
async fn a_spawned_process_acts_as_the_service_account_in_its_namespace() {
    let env = with_service_account().await;
    let kubectl = env.binaries().dir.join("kubectl");
    // Who the API server says the process is, its default namespace, and whether RBAC lets it list Secrets there
    // (nothing grants it anything: `no`, exit status 1, hence the `|| true`).
    let script = format!(
        "{k} auth whoami -o jsonpath='{{.status.userInfo.username}}'; echo; \
         {k} config view --minify -o jsonpath='{{..namespace}}'; echo; \
         {k} auth can-i list secrets || true",
        k = kubectl.display()
    );
    let mut process = env
        .spawn_as_service_account(
            (NAMESPACE, ACCOUNT),
            "probe",
            "/bin/sh".as_ref(),
            &["-c".into(), script],
            &[],
        )
        .await
        .unwrap();
    let exited = eventually("the probe script exits", Duration::from_secs(30), || {
        std::future::ready(Ok::<_, String>(
            process.ensure_running().is_err().then_some(()),
        ))
    })
    .await;
    let log = std::fs::read_to_string(process.log_path()).unwrap();
    exited.unwrap_or_else(|e| panic!("{e}; log:\n{log}"));
    assert_eq!(
        log, "system:serviceaccount:team:robot\nteam\nno\n",
        "log:\n{log}"
    );
}

#[tokio::test]
async fn a_token_of_a_missing_service_account_is_refused_with_404() {
    let env = start(Environment::builder()).await;
    let err = env
        .service_account_kubeconfig("default", "nobody")
        .await
        .unwrap_err();
    assert!(
        format!("{err:?}").contains("\"nobody\" not found"),
        "{err:?}"
    );
}
