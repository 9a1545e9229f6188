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

//! What the controller tests share: a control plane with the CRD and a running manager, polling, fixtures.
#![allow(dead_code)] // each test binary uses its own part

pub mod subset;

use std::future::Future;
use std::time::Duration;

use microservice_deploy::api::v1::MicroServiceDeploy;
use microservice_deploy::controller::microservicedeploy_controller::{
    READY, Settings, controller_with,
};
use rkb_runtime::conditions::is_condition_true;
use rkb_runtime::envtest::Environment;
use rkb_runtime::{Api, Client, Manager, ManagerOptions, RunningManager};
use serde_json::Value;

/// The manager name in tests: the field manager of every apply.
pub const MANAGER: &str = "microservice-deploy.ops";

/// A control plane with the MicroServiceDeploy CRD and a manager running the controller.
pub struct Harness {
    pub env: Environment,
    pub client: Client,
    manager: RunningManager,
}

impl Harness {
    /// Starts the control plane (with kube-controller-manager when `garbage_collector`, for cascading deletion)
    /// and the manager with `settings`.
    pub async fn start(settings: Settings, garbage_collector: bool) -> anyhow::Result<Self> {
        let mut builder = Environment::builder()
            .crd_dir(concat!(env!("CARGO_MANIFEST_DIR"), "/config/crd/bases"));
        if garbage_collector {
            builder = builder.with_controller_manager();
        }
        let env = builder.start().await?;
        let client = env.client();
        let options = ManagerOptions {
            health_probe_bind_address: "0".into(),
            metrics_bind_address: "0".into(),
            ..ManagerOptions::default()
        };
        let mgr = Manager::builder(MANAGER)
            .client(client.clone())
            .options(options)
            .build()
            .await?;
        mgr.add(move |ctx| controller_with(ctx, settings));
        Ok(Self {
            env,
            client,
            manager: mgr.spawn(),
        })
    }

    /// Stops the manager gracefully and reports how it ended.
    pub async fn stop(self) -> anyhow::Result<()> {
        Ok(self.manager.stop().await?)
    }

    pub fn msds(&self, namespace: &str) -> Api<MicroServiceDeploy> {
        Api::namespaced(self.client.clone(), namespace)
    }
}

/// How long tests wait for the controller.
const TIMEOUT: Duration = Duration::from_secs(30);

/// Polls `check` until it returns true (rkb-envtest's `eventually`), failing after 30 seconds.
pub async fn eventually<F, Fut>(what: &str, mut check: F) -> anyhow::Result<()>
where
    F: FnMut() -> Fut,
    Fut: Future<Output = anyhow::Result<bool>>,
{
    wait_for(what, || {
        let fut = check();
        async move { Ok(fut.await?.then_some(())) }
    })
    .await
}

/// Polls `check` until it returns a value (rkb-envtest's `eventually`), failing after 30 seconds.
pub async fn wait_for<T, F, Fut>(what: &str, check: F) -> anyhow::Result<T>
where
    F: FnMut() -> Fut,
    Fut: Future<Output = anyhow::Result<Option<T>>>,
{
    Ok(rkb_runtime::envtest::eventually(what, TIMEOUT, check).await?)
}

/// Waits until the controller has reconciled the current generation of `name` (Ready=True for it).
pub async fn reconciled(
    api: &Api<MicroServiceDeploy>,
    name: &str,
) -> anyhow::Result<MicroServiceDeploy> {
    wait_for(&format!("{name} is reconciled"), || async {
        let msd = api.get(name).await?;
        let status = msd.status.clone().unwrap_or_default();
        let done = status.observed_generation == msd.metadata.generation
            && is_condition_true(&status.conditions, READY);
        Ok(done.then_some(msd))
    })
    .await
}

/// Parses a multi-document YAML fixture.
pub fn fixture(name: &str) -> Vec<Value> {
    let path = format!("{}/tests/fixtures/{name}", env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    serde_saphyr::from_multiple(&text).unwrap_or_else(|e| panic!("{path}: {e}"))
}

/// The fixture document of `kind`.
pub fn fixture_of(docs: &[Value], kind: &str) -> Value {
    docs.iter()
        .find(|d| d["kind"] == kind)
        .unwrap_or_else(|| panic!("no {kind} in fixture"))
        .clone()
}

/// The live object as JSON.
pub async fn live<K>(api: &Api<K>, name: &str) -> anyhow::Result<Value>
where
    K: rkb_runtime::Resource<DynamicType = ()>
        + Clone
        + serde::de::DeserializeOwned
        + serde::Serialize
        + std::fmt::Debug,
{
    Ok(serde_json::to_value(api.get(name).await?)?)
}

/// Fails with the first difference when `actual` does not contain `expected`.
pub fn assert_contains(actual: &Value, expected: &Value) {
    if let Err(diff) = subset::contains(actual, expected) {
        panic!(
            "{} {}: {diff}",
            expected["kind"], expected["metadata"]["name"]
        );
    }
}

/// Whether the field manager `manager` owns `field` (e.g. "f:replicas" under "f:spec") of `obj`.
pub fn manages(obj: &Value, manager: &str, path: &[&str]) -> bool {
    obj["metadata"]["managedFields"]
        .as_array()
        .into_iter()
        .flatten()
        .any(|entry| {
            entry["manager"] == manager
                && path
                    .iter()
                    .try_fold(&entry["fieldsV1"], |v, key| v.get(*key))
                    .is_some()
        })
}
