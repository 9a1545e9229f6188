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

//! The deployment controller against a real kube-apiserver and etcd (`make setup-envtest` builds them
//! once; `make test` runs this with KUBEBUILDER_ASSETS set).

use std::time::Duration;

use rkb_runtime::Manager;
use rkb_runtime::envtest::{Environment, eventually};
use rkb_runtime::kube::Api;
use rkb_runtime::kube::api::PostParams;

use k8s_openapi::api::apps::v1::Deployment;
use kinds::controller::deployment_controller::{NAME, controller};

/// How long the controller may take to act on a change.
const TIMEOUT: Duration = Duration::from_secs(30);

/// A Deployment the API server accepts. TODO(user): make it the object your controller acts on.
const SAMPLE: &str = r#"{"spec": {"selector": {"matchLabels": {"app": "sample"}}, "template": {"metadata": {"labels": {"app": "sample"}}, "spec": {"containers": [{"name": "app", "image": "registry.k8s.io/pause:3.10"}]}}}}"#;

#[tokio::test]
async fn reconciles_a_deployment() -> anyhow::Result<()> {
    let env = Environment::builder().start().await?;
    let client = env.client();

    let mgr = Manager::builder("kinds-test")
        .client(client.clone())
        .build()
        .await?;
    let metrics = mgr.metrics().clone();
    mgr.add(controller);
    let running = mgr.spawn();

    let api: Api<Deployment> = Api::namespaced(client.clone(), "default");
    let mut sample: Deployment = serde_json::from_str(SAMPLE)?;
    sample.metadata.name = Some("deployment-sample".into());
    api.create(&PostParams::default(), &sample).await?;

    // The controller's reconcile count (its metrics label is its name) shows that reconcile ran for the object.
    let reconciled = [
        "controller_runtime_reconcile_total{controller=\"",
        NAME,
        "\",result=\"success\"} ",
    ]
    .concat();
    eventually(
        "the controller reconciles the Deployment",
        TIMEOUT,
        || async {
            let count = metrics.encode().lines().find_map(|line| {
                line.strip_prefix(reconciled.as_str())?
                    .trim()
                    .parse::<u64>()
                    .ok()
            });
            Ok::<_, rkb_runtime::kube::Error>(count.filter(|&n| n > 0).map(|_| ()))
        },
    )
    .await?;

    running.stop().await?;
    Ok(())
}
