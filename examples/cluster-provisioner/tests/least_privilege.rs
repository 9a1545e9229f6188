// Copyright 2026 The rkb authors.
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
//! leader_election_role.yaml) grant exactly the API calls it makes over a Cluster's life, as the API server's
//! audit log records them. The manager runs as a user holding only those roles, with leader election on and
//! hack/fake-rke.sh as the provisioner, through create (finalizer, `up`, status, an event), a spec change, a
//! failing `up` (a Warning event), deletion (`remove`, finalizer released) and a graceful stop; then every verb
//! granted and never used, and every verb used and not granted, fails the test by name (rkb-envtest's
//! `privilege_report`).
//!
//! The controller creates no Kubernetes objects, so nothing carries an owner reference to the Cluster and
//! `clusters/finalizers` (which only blockOwnerDeletion needs) is not granted: no `Allowance::owner_finalizers`.
//! The finalizer itself is written on the Cluster (`clusters` patch).

use std::time::Duration;

use rkb_runtime::client::{Patch, PatchParams, PostParams};
use rkb_runtime::conditions::find_condition;
use rkb_runtime::envtest::{Allowance, Environment, eventually};
use rkb_runtime::kube::Client;
use rkb_runtime::kube::api::DeleteParams;
use rkb_runtime::{Manager, ManagerOptions, RunningManager};
use serde_json::json;

use cluster_provisioner::api::v1alpha1::{
    CONDITION_PROVISIONED, Cluster, ClusterClient, ClusterSpec,
};
use cluster_provisioner::controller::cluster_controller::{Options, run};
use cluster_provisioner::provisioner::Provisioner;

/// Who the manager is: the roles are bound to this user, and the audit log is read for it.
const USER: &str = "cluster-provisioner-controller-manager";
const NAME: &str = "prod";
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

/// Verbs the roles keep although this run does not use them, each for a path the run does not take.
const ALLOWANCES: &[Allowance] = &[Allowance {
    api_group: "clusterprovisioner.rke.io",
    resource: "clusters",
    verb: "get",
    reason: "a status write that conflicts (409) re-reads the Cluster and applies its change to the fresh copy",
}];

/// The manager as it runs in a cluster: the roles' user, leader election on in the Role's namespace.
async fn start_manager(client: &Client) -> anyhow::Result<RunningManager> {
    let manager_options = ManagerOptions {
        metrics_bind_address: "0".into(),
        health_probe_bind_address: "0".into(),
        leader_elect: true,
        leader_election_namespace: Some("system".into()),
        ..ManagerOptions::default()
    };
    let mgr = Manager::builder("cluster-provisioner")
        .client(client.clone())
        .options(manager_options)
        .build()
        .await?;
    let fake_rke = concat!(env!("CARGO_MANIFEST_DIR"), "/hack/fake-rke.sh");
    let mut options = Options::new(Provisioner::new(fake_rke, TIMEOUT));
    options.retry_base_delay = Duration::from_millis(200);
    mgr.add(move |ctx| run(ctx, options));
    Ok(mgr.spawn())
}

/// Waits until the Cluster's Provisioned condition has `status` and `reason`.
async fn until_provisioned(
    clusters: &ClusterClient,
    what: &str,
    (status, reason): (&str, &str),
) -> anyhow::Result<()> {
    eventually(what, TIMEOUT, || async {
        let cluster = clusters.get(NAME).await?;
        let conditions = cluster.status.map(|s| s.conditions).unwrap_or_default();
        let provisioned = find_condition(&conditions, CONDITION_PROVISIONED);
        let holds = provisioned.is_some_and(|c| c.status == status && c.reason == reason);
        Ok::<_, anyhow::Error>(holds.then_some(()))
    })
    .await?;
    Ok(())
}

/// Writes a (dummy) provisioner config into `dir` and returns its path.
fn config(dir: &tempfile::TempDir, file: &str) -> anyhow::Result<String> {
    let path = dir.path().join(file);
    std::fs::write(&path, "nodes: []\n")?;
    Ok(path.to_str().expect("utf-8 temp dir").to_string())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_roles_grant_exactly_what_the_manager_uses() -> anyhow::Result<()> {
    let env = Environment::builder()
        .crd_dir(concat!(env!("CARGO_MANIFEST_DIR"), "/config/crd/bases"))
        .with_audit_log()
        .start()
        .await?;
    let dir = tempfile::tempdir()?;
    let manager = start_manager(&env.client_with_roles(USER, ROLES).await?).await?;
    let clusters = ClusterClient::new(env.client());

    let spec = ClusterSpec {
        config_path: config(&dir, "prod.yml")?,
    };
    clusters
        .create(&Cluster::new(NAME, spec), &PostParams::default())
        .await?;
    until_provisioned(
        &clusters,
        "the Cluster is provisioned",
        ("True", "Provisioned"),
    )
    .await?;
    let change = json!({ "spec": { "configPath": config(&dir, "prod-v2.yml")? } });
    clusters
        .patch(NAME, &PatchParams::default(), &Patch::Merge(change))
        .await?;
    eventually("the new config is applied", TIMEOUT, || async {
        let cluster = clusters.get(NAME).await?;
        let applied = cluster.status.map(|s| s.applied_config).unwrap_or_default();
        Ok::<_, anyhow::Error>(applied.ends_with("prod-v2.yml").then_some(()))
    })
    .await?;
    // A config that does not exist: `up` fails, a Warning event.
    let missing = dir.path().join("missing.yml");
    let change = json!({ "spec": { "configPath": missing } });
    clusters
        .patch(NAME, &PatchParams::default(), &Patch::Merge(change))
        .await?;
    until_provisioned(&clusters, "the failure shows", ("False", "ProvisionFailed")).await?;
    clusters.delete(NAME, &DeleteParams::default()).await?;
    eventually("the Cluster is gone", TIMEOUT, || async {
        Ok::<_, anyhow::Error>(clusters.get_opt(NAME).await?.is_none().then_some(()))
    })
    .await?;
    // A graceful stop releases the Lease: leader election's last request.
    manager.stop().await?;

    let report = env.privilege_report(USER, ROLES, ALLOWANCES)?;
    assert!(report.is_least(), "{report}");
    env.stop().await?;
    Ok(())
}
