// Copyright 2026 The demo-microservice Authors.
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
//! leader_election_role.yaml) grant exactly the API calls it makes over a DemoMicroService's life, as the API
//! server's audit log records them. The manager runs as a user holding only those roles, with leader election on,
//! through create (finalizer, Deployment, status), an image update, deletion (the finalizer's cleanup deletes the
//! Deployment) and a graceful stop; then every verb granted and never used, and every verb used and not granted,
//! fails the test by name (rkb-envtest's `privilege_report`).

use std::time::Duration;

use demo_microservice::api::v1::{DemoMicroService, DemoMicroServiceSpec};
use demo_microservice::controller::demomicroservice_controller::controller;
use rkb_runtime::envtest::{Allowance, Environment, eventually};
use rkb_runtime::k8s_openapi::api::apps::v1::Deployment;
use rkb_runtime::kube::api::{DeleteParams, Patch, PatchParams, PostParams};
use rkb_runtime::kube::{Api, Client};
use rkb_runtime::{Manager, ManagerOptions, RunningManager};
use serde_json::json;

/// Who the manager is: the roles are bound to this user, and the audit log is read for it.
const USER: &str = "demo-microservice-controller-manager";
const NAMESPACE: &str = "default";
const NAME: &str = "demomicroservice-sample";
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
    "devops.my.domain",
    "demomicroservices/finalizers",
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
    let mgr = Manager::builder("demo-microservice")
        .client(client.clone())
        .options(options)
        .build()
        .await?;
    mgr.add(controller);
    Ok(mgr.spawn())
}

/// Waits until `check` holds for the DemoMicroService and its Deployment.
async fn until(
    what: &str,
    api: &Api<DemoMicroService>,
    deployments: &Api<Deployment>,
    check: impl Fn(Option<&DemoMicroService>, Option<&Deployment>) -> bool,
) -> anyhow::Result<()> {
    eventually(what, TIMEOUT, || async {
        let (demo, deployment) = (api.get_opt(NAME).await?, deployments.get_opt(NAME).await?);
        Ok::<_, rkb_runtime::kube::Error>(check(demo.as_ref(), deployment.as_ref()).then_some(()))
    })
    .await?;
    Ok(())
}

fn image(deployment: Option<&Deployment>) -> Option<String> {
    deployment
        .and_then(|d| d.spec.as_ref())
        .and_then(|s| s.template.spec.as_ref())
        .and_then(|p| p.containers.first())
        .and_then(|c| c.image.clone())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_roles_grant_exactly_what_the_manager_uses() -> anyhow::Result<()> {
    let env = Environment::builder()
        .crd_dir(concat!(env!("CARGO_MANIFEST_DIR"), "/config/crd/bases"))
        .with_audit_log()
        .start()
        .await?;
    let manager = start_manager(&env.client_with_roles(USER, ROLES).await?).await?;
    let api: Api<DemoMicroService> = Api::namespaced(env.client(), NAMESPACE);
    let deployments: Api<Deployment> = Api::namespaced(env.client(), NAMESPACE);

    let spec = DemoMicroServiceSpec {
        image: "stefanprodan/podinfo:0.0.1".into(),
    };
    api.create(&PostParams::default(), &DemoMicroService::new(NAME, spec))
        .await?;
    until(
        "the Deployment and the status",
        &api,
        &deployments,
        |demo, d| {
            image(d).as_deref() == Some("stefanprodan/podinfo:0.0.1")
                && demo.is_some_and(|o| o.status.as_ref().is_some_and(|s| !s.conditions.is_empty()))
        },
    )
    .await?;
    let change = json!({ "spec": { "image": "stefanprodan/podinfo:0.0.2" } });
    api.patch(NAME, &PatchParams::default(), &Patch::Merge(&change))
        .await?;
    until("the image update", &api, &deployments, |_, d| {
        image(d).as_deref() == Some("stefanprodan/podinfo:0.0.2")
    })
    .await?;
    api.delete(NAME, &DeleteParams::default()).await?;
    until("both are gone", &api, &deployments, |demo, d| {
        demo.is_none() && d.is_none()
    })
    .await?;
    // A graceful stop releases the Lease: leader election's last request.
    manager.stop().await?;

    let report = env.privilege_report(USER, ROLES, ALLOWANCES)?;
    assert!(report.is_least(), "{report}");
    env.stop().await?;
    Ok(())
}
