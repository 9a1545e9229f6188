// Copyright 2026 The microservice-deploy Authors.
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
//! leader_election_role.yaml) grant exactly the API calls it makes over a MicroServiceDeploy's life, as the API
//! server's audit log records them. The manager runs as a user holding only those roles, with leader election on,
//! through create, update, the HPA's removal (autoscaling off), deletion and a graceful stop; then every verb
//! granted and never used, and every verb used and not granted, fails the test by name (rkb-envtest's
//! `privilege_report`).

mod common;

use common::{fixture, reconciled, wait_for};
use microservice_deploy::api::v1::MicroServiceDeploy;
use microservice_deploy::controller::microservicedeploy_controller::{Settings, controller_with};
use rkb_runtime::envtest::{Allowance, Environment};
use rkb_runtime::k8s_openapi::api::autoscaling::v1::HorizontalPodAutoscaler;
use rkb_runtime::kube::api::{DeleteParams, Patch, PatchParams, PostParams};
use rkb_runtime::{Api, Client, Manager, ManagerOptions, RunningManager};
use serde_json::json;

/// Who the manager is: the roles are bound to this user, and the audit log is read for it.
const USER: &str = "microservice-deploy-controller-manager";
const NS: &str = "default";
const NAME: &str = "ms-sample-v1s0";
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
    "custom.ops",
    "microservicedeploys/finalizers",
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
    let mgr = Manager::builder(common::MANAGER)
        .client(client.clone())
        .options(options)
        .build()
        .await?;
    mgr.add(|ctx| controller_with(ctx, Settings::default()));
    Ok(mgr.spawn())
}

async fn patch_spec(api: &Api<MicroServiceDeploy>, spec: serde_json::Value) -> anyhow::Result<()> {
    let patch = Patch::Merge(json!({ "spec": spec }));
    api.patch(NAME, &PatchParams::default(), &patch).await?;
    reconciled(api, NAME).await?;
    Ok(())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_roles_grant_exactly_what_the_manager_uses() -> anyhow::Result<()> {
    let env = Environment::builder()
        .crd_dir(concat!(env!("CARGO_MANIFEST_DIR"), "/config/crd/bases"))
        .with_audit_log()
        .start()
        .await?;
    let manager = start_manager(&env.client_with_roles(USER, ROLES).await?).await?;
    let msds: Api<MicroServiceDeploy> = Api::namespaced(env.client(), NS);
    let hpas: Api<HorizontalPodAutoscaler> = Api::namespaced(env.client(), NS);

    let seed: MicroServiceDeploy =
        serde_json::from_value(fixture("seed_microservicedeploy.yaml").remove(0))?;
    msds.create(&PostParams::default(), &seed).await?;
    reconciled(&msds, NAME).await?;
    patch_spec(&msds, json!({ "replicas": 2, "config": "name=bar" })).await?;
    // Autoscaling off: the controller deletes the HPA it made.
    patch_spec(&msds, json!({ "autoscaling": false })).await?;
    wait_for("the HPA is deleted", || async {
        Ok(hpas.get_opt(NAME).await?.is_none().then_some(()))
    })
    .await?;
    msds.delete(NAME, &DeleteParams::default()).await?;
    wait_for("the MicroServiceDeploy is gone", || async {
        Ok(msds.get_opt(NAME).await?.is_none().then_some(()))
    })
    .await?;
    // A graceful stop releases the Lease: leader election's last request.
    manager.stop().await?;

    let report = env.privilege_report(USER, ROLES, ALLOWANCES)?;
    assert!(report.is_least(), "{report}");
    env.stop().await?;
    Ok(())
}
