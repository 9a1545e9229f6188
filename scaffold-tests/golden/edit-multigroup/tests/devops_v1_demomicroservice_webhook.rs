// Copyright 2026 The demo Authors.
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

//! The DemoMicroService webhooks against a real kube-apiserver: the configurations `rkb manifests` writes
//! (config/webhook/manifests.yaml) are installed pointing at this test's webhook server (and the CRD's conversion,
//! when it has one), and a create goes through them (`make test` runs `rkb manifests` first).

use std::time::Duration;

use rkb_runtime::envtest::{Environment, eventually};
use rkb_runtime::kube::Api;
use rkb_runtime::kube::api::PostParams;
use rkb_runtime::{Manager, ManagerOptions};

use demo::api::devops::v1::DemoMicroService;
use demo::webhook;

/// How long the API server may take to reach the webhook server once it listens.
const TIMEOUT: Duration = Duration::from_secs(30);
/// The user the manager acts as, holding only config/rbac/role.yaml.
const MANAGER: &str = "demo-controller-manager";

#[tokio::test]
async fn the_api_server_calls_the_demomicroservice_webhooks() -> anyhow::Result<()> {
    let root = env!("CARGO_MANIFEST_DIR");
    // The audit log lets the test name the requests RBAC refused the manager.
    let env = Environment::builder()
        .crd_dir(format!("{root}/config/crd/bases"))
        .with_audit_log()
        .start()
        .await?;
    let manifests = std::fs::read_to_string(format!("{root}/config/webhook/manifests.yaml"))
        .map_err(|e| {
            anyhow::anyhow!(
                "config/webhook/manifests.yaml: {e}; run `rkb manifests` (make manifests) first"
            )
        })?;
    let server = env.install_webhooks(&manifests).await?;
    env.enable_conversion(
        "demomicroservices.devops.my.domain",
        &server,
        rkb_runtime::webhook::CONVERT_PATH,
    )
    .await?;
    // rkb:scaffold:webhook-test-conversion (rkb create webhook --conversion turns the CRD's conversion on above this line)

    let options = ManagerOptions {
        webhook_port: server.port,
        webhook_cert_path: server.cert_dir.clone(),
        health_probe_bind_address: "0".into(),
        ..ManagerOptions::default()
    };
    // The manager runs with only the role `make manifests` generates from the `+kubebuilder:rbac` markers, as in
    // a cluster: a webhook that reads the API without a marker granting it fails here (403 Forbidden), not there.
    let role = std::fs::read_to_string(format!("{root}/config/rbac/role.yaml")).map_err(|e| {
        anyhow::anyhow!("config/rbac/role.yaml: {e}; run `rkb manifests` (make manifests) first")
    })?;
    let manager_client = env.client_with_roles(MANAGER, &[&role]).await?;
    let mgr = Manager::builder("demo-webhook-test")
        .client(manager_client)
        .options(options)
        .build()
        .await?;
    // Every webhook of the project: the API server calls each version's for an object of any version.
    mgr.serve_webhooks(webhook::webhooks());
    let running = mgr.spawn();

    let api: Api<DemoMicroService> = Api::namespaced(env.client(), "default");
    let sample = DemoMicroService::new("demomicroservice-sample", Default::default());
    // Until the server listens, the API server's calls fail (failurePolicy: Fail), so poll.
    let created = eventually("a create passes the webhooks", TIMEOUT, || async {
        api.create(&PostParams::default(), &sample).await.map(Some)
    })
    .await?;
    assert_eq!(
        created
            .metadata
            .labels
            .as_ref()
            .and_then(|l| l.get("defaulted"))
            .map(String::as_str),
        Some("true")
    );
    assert_eq!(
        created.metadata.name.as_deref(),
        Some("demomicroservice-sample")
    );

    // Read in v2: the API server converts the stored object through the conversion webhook.
    let v2: Api<demo::api::devops::v2::DemoMicroService> = Api::namespaced(env.client(), "default");
    let converted = v2.get("demomicroservice-sample").await?;
    assert_eq!(
        converted.metadata.name.as_deref(),
        Some("demomicroservice-sample")
    );
    // rkb:scaffold:webhook-test-reads (rkb create webhook --conversion adds a read in each spoke version above this line)

    running.stop().await?;
    env.ensure_not_forbidden(MANAGER)?;
    Ok(())
}
