// Copyright 2026 The app-service Authors.
//
// Licensed under the Apache License, Version 2.0 (the "License");
// you may not use this file except in compliance with the License.
// You may obtain a copy of the License at
//
//     http://www.apache.org/licenses/LICENSE-2.0
//
// Unless required by applicable law or agreed to in writing, software
// distributed under the License is distributed on an "AS IS" BASIS,
// WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
// See the License for the specific language governing permissions and
// limitations under the License.

//! Least privilege: the manager's roles (config/rbac/role.yaml from the `+kubebuilder:rbac` markers, and
//! leader_election_role.yaml) grant exactly the API calls it makes over an AppService's life, as the API server's
//! audit log records them. The manager runs as a user holding only those roles, with leader election on, through
//! create, status, update, deletion and a graceful stop; then every verb granted and never used, and every verb
//! used and not granted, fails the test by name (rkb-envtest's `privilege_report`).

use std::time::Duration;

use app_service::api::v1alpha1::{AppService, AppServiceSpec};
use app_service::controller::appservice_controller::controller;
use rkb_runtime::envtest::{Allowance, Environment, eventually};
use rkb_runtime::k8s_openapi::api::apps::v1::Deployment;
use rkb_runtime::kube::api::{DeleteParams, Patch, PatchParams, PostParams};
use rkb_runtime::kube::{Api, Client};
use rkb_runtime::{Manager, ManagerOptions, RunningManager};
use serde_json::json;

/// Who the manager is: the roles are bound to this user, and the audit log is read for it.
const USER: &str = "app-service-controller-manager";
const NAMESPACE: &str = "default";
const NAME: &str = "appservice-sample";
const TIMEOUT: Duration = Duration::from_secs(30);
const ROLES: &[&str] = &[
    include_str!(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/config/rbac/role.yaml"
    )),
    include_str!(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/config/rbac/leader_election_role.yaml"
    )),
];

/// Verbs the roles keep although this run does not use them: update on the finalizers, which the children's
/// blockOwnerDeletion needs where OwnerReferencesPermissionEnforcement runs (see `Allowance::owner_finalizers`).
const ALLOWANCES: &[Allowance] = &[Allowance::owner_finalizers(
    "batch.example.com",
    "appservices/finalizers",
)];

/// The manager as it runs in a cluster: the roles' user, leader election on in the Role's namespace.
async fn start_manager(client: &Client) -> anyhow::Result<RunningManager> {
    let options = ManagerOptions {
        metrics_bind_address: "0".into(),
        health_probe_bind_address: "0".into(),
        leader_elect: true,
        leader_election_namespace: Some("system".into()),
        ..ManagerOptions::default()
    };
    let mgr = Manager::builder("app-service")
        .client(client.clone())
        .options(options)
        .build()
        .await?;
    mgr.add(controller);
    Ok(mgr.spawn())
}

/// Waits until `check` holds for the AppService and its Deployment.
async fn until(
    what: &str,
    api: &Api<AppService>,
    deployments: &Api<Deployment>,
    check: impl Fn(Option<&AppService>, Option<&Deployment>) -> bool,
) -> anyhow::Result<()> {
    eventually(what, TIMEOUT, || async {
        let (app, deployment) = (api.get_opt(NAME).await?, deployments.get_opt(NAME).await?);
        Ok::<_, rkb_runtime::kube::Error>(check(app.as_ref(), deployment.as_ref()).then_some(()))
    })
    .await?;
    Ok(())
}

fn replicas(deployment: Option<&Deployment>) -> Option<i32> {
    deployment
        .and_then(|d| d.spec.as_ref())
        .and_then(|s| s.replicas)
}

fn observed(app: Option<&AppService>) -> Option<i64> {
    app.and_then(|a| a.status.as_ref())
        .and_then(|s| s.observed_generation)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_roles_grant_exactly_what_the_manager_uses() -> anyhow::Result<()> {
    let env = Environment::builder()
        .crd_dir(concat!(env!("CARGO_MANIFEST_DIR"), "/config/crd/bases"))
        .with_audit_log()
        .start()
        .await?;
    let manager = start_manager(&env.client_with_roles(USER, ROLES).await?).await?;
    let api: Api<AppService> = Api::namespaced(env.client(), NAMESPACE);
    let deployments: Api<Deployment> = Api::namespaced(env.client(), NAMESPACE);

    let spec = AppServiceSpec {
        replicas: 2,
        image: "nginx:1.27".into(),
        port: None,
    };
    api.create(&PostParams::default(), &AppService::new(NAME, spec))
        .await?;
    until(
        "the AppService is reconciled",
        &api,
        &deployments,
        |app, d| replicas(d) == Some(2) && observed(app) == Some(1),
    )
    .await?;
    let change = json!({ "spec": { "replicas": 3, "port": 8080 } });
    api.patch(NAME, &PatchParams::default(), &Patch::Merge(&change))
        .await?;
    until("the update is reconciled", &api, &deployments, |app, d| {
        replicas(d) == Some(3) && observed(app) == Some(2)
    })
    .await?;
    api.delete(NAME, &DeleteParams::default()).await?;
    until("the AppService is gone", &api, &deployments, |app, _| {
        app.is_none()
    })
    .await?;
    // A graceful stop releases the Lease: leader election's last request.
    manager.stop().await?;

    let report = env.privilege_report(USER, ROLES, ALLOWANCES)?;
    assert!(report.is_least(), "{report}");
    env.stop().await?;
    Ok(())
}
