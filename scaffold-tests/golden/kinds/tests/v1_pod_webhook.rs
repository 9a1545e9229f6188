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

//! The Pod webhooks against a real kube-apiserver: the configurations `rkb manifests` writes
//! (config/webhook/manifests.yaml) are installed pointing at this test's webhook server, and a create goes through
//! them (`make test` runs `rkb manifests` first).

use std::time::Duration;

use rkb_runtime::envtest::{Environment, eventually};
use rkb_runtime::kube::Api;
use rkb_runtime::kube::api::PostParams;
use rkb_runtime::{Manager, ManagerOptions};

use k8s_openapi::api::core::v1::Pod;
use kinds::webhook;

/// How long the API server may take to reach the webhook server once it listens.
const TIMEOUT: Duration = Duration::from_secs(30);

/// A Pod the API server accepts. TODO(user): make it an object your webhooks act on.
const SAMPLE: &str =
    r#"{"spec": {"containers": [{"name": "app", "image": "registry.k8s.io/pause:3.10"}]}}"#;

#[tokio::test]
async fn the_api_server_calls_the_pod_webhooks() -> anyhow::Result<()> {
    let root = env!("CARGO_MANIFEST_DIR");
    let env = Environment::builder().start().await?;
    let manifests = std::fs::read_to_string(format!("{root}/config/webhook/manifests.yaml"))
        .map_err(|e| {
            anyhow::anyhow!(
                "config/webhook/manifests.yaml: {e}; run `rkb manifests` (make manifests) first"
            )
        })?;
    let server = env.install_webhooks(&manifests).await?;

    let options = ManagerOptions {
        webhook_port: server.port,
        webhook_cert_path: server.cert_dir.clone(),
        health_probe_bind_address: "0".into(),
        ..ManagerOptions::default()
    };
    let mgr = Manager::builder("kinds-webhook-test")
        .client(env.client())
        .options(options)
        .build()
        .await?;
    mgr.serve_webhooks(webhook::webhooks());
    let running = mgr.spawn();

    let api: Api<Pod> = Api::namespaced(env.client(), "default");
    let mut sample: Pod = serde_json::from_str(SAMPLE)?;
    sample.metadata.name = Some("pod-sample".into());
    // Until the server listens, the API server's calls fail (failurePolicy: Fail), so poll: a create that passes
    // shows the API server called the webhooks and they admitted it.
    let created = eventually("a create passes the webhooks", TIMEOUT, || async {
        api.create(&PostParams::default(), &sample).await.map(Some)
    })
    .await?;
    // TODO(user): assert the defaults your defaulter sets, and that invalid objects are refused.
    assert_eq!(created.metadata.name.as_deref(), Some("pod-sample"));

    running.stop().await?;
    Ok(())
}
