// Copyright 2026 The kinds Authors.
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

//! The DemoMicroService controller against a real kube-apiserver and etcd (`make setup-envtest` builds them once;
//! `make test` runs this with KUBEBUILDER_ASSETS set).

use std::time::Duration;

use rkb_runtime::Manager;
use rkb_runtime::envtest::{Environment, eventually};
use rkb_runtime::kube::Api;
use rkb_runtime::kube::api::{DeleteParams, PostParams};

use kinds::api::v1::DemoMicroService;
use kinds::controller::demomicroservice_controller::{FINALIZER, controller};

/// How long the controller may take to act on a change.
const TIMEOUT: Duration = Duration::from_secs(30);
/// The user the manager acts as, holding only config/rbac/role.yaml.
const MANAGER: &str = "kinds-controller-manager";

#[tokio::test]
async fn reconciles_a_demomicroservice_from_creation_to_deletion() -> anyhow::Result<()> {
    let root = env!("CARGO_MANIFEST_DIR");
    // The audit log lets the test name the requests RBAC refused the manager.
    let env = Environment::builder()
        .crd_dir(format!("{root}/config/crd/bases"))
        .with_audit_log()
        .start()
        .await?;
    let client = env.client();
    // The manager runs as it does in a cluster: with only the role `make manifests` generates from the
    // `+kubebuilder:rbac` markers. The test's admin client would hide a missing marker, which then fails only
    // in the cluster; with this one it fails here, naming the refused request (403 Forbidden).
    let role = std::fs::read_to_string(format!("{root}/config/rbac/role.yaml")).map_err(|e| {
        anyhow::anyhow!("config/rbac/role.yaml: {e}; run `rkb manifests` (make manifests) first")
    })?;
    let manager_client = env.client_with_roles(MANAGER, &[&role]).await?;

    let mgr = Manager::builder("kinds-test")
        .client(manager_client)
        .build()
        .await?;
    mgr.add(controller);
    let running = mgr.spawn();

    let api: Api<DemoMicroService> = Api::namespaced(client.clone(), "default");
    let name = "demomicroservice-sample";
    api.create(
        &PostParams::default(),
        &DemoMicroService::new(name, Default::default()),
    )
    .await?;

    // The finalizer shows that reconcile ran for the new object. A refused request explains a timeout best, so it
    // is reported first.
    let added = eventually("the controller adds its finalizer", TIMEOUT, || async {
        let obj = api.get(name).await?;
        let finalizers = obj.metadata.finalizers.unwrap_or_default();
        Ok::<_, rkb_runtime::kube::Error>(finalizers.iter().any(|f| f == FINALIZER).then_some(()))
    })
    .await;
    env.ensure_not_forbidden(MANAGER)?;
    added?;

    // Deletion waits for cleanup, then the object is gone.
    api.delete(name, &DeleteParams::default()).await?;
    let deleted = eventually("the DemoMicroService is deleted", TIMEOUT, || async {
        Ok::<_, rkb_runtime::kube::Error>(api.get_opt(name).await?.is_none().then_some(()))
    })
    .await;
    env.ensure_not_forbidden(MANAGER)?;
    deleted?;

    running.stop().await?;
    Ok(())
}
