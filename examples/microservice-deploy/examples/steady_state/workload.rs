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
//! The workload both operators are measured on: the MicroServiceDeploys (instance `i` is `ms-<i>-v1s0`), their
//! children as the operator must make them, and "steady state": every child present with the expected content.

use std::collections::HashMap;
use std::fmt::Debug;
use std::time::Instant;

use futures::{StreamExt, TryStreamExt};
use microservice_deploy::api::v1::{MicroServiceDeploy, MicroServiceDeploySpec};
use microservice_deploy::controller::children;
use rkb_runtime::k8s_openapi::api::apps::v1::Deployment;
use rkb_runtime::k8s_openapi::api::autoscaling::v1::HorizontalPodAutoscaler;
use rkb_runtime::k8s_openapi::api::core::v1::{
    ConfigMap, Namespace, ResourceRequirements, Service, ServiceAccount,
};
use rkb_runtime::k8s_openapi::apimachinery::pkg::api::resource::Quantity;
use rkb_runtime::k8s_openapi::apimachinery::pkg::apis::meta::v1::OwnerReference;
use rkb_runtime::kube::api::PostParams;
use rkb_runtime::kube::runtime::WatchStreamExt;
use rkb_runtime::kube::runtime::watcher;
use rkb_runtime::{Api, Client, ObjectMeta, Resource};
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::Value;

use crate::{subset, trace};

/// The spec of instance `i`: the seed's sample with its own names (autoscaling on, so it has all five children).
pub fn spec(i: usize) -> MicroServiceDeploySpec {
    let quantities = |cpu: &str, memory: &str| {
        [("cpu", cpu), ("memory", memory)]
            .into_iter()
            .map(|(k, v)| (k.to_string(), Quantity(v.to_string())))
            .collect()
    };
    MicroServiceDeploySpec {
        ms_name: format!("ms-{i}"),
        full_name: format!("ms-{i}-v1s0"),
        version: "1.0".into(),
        path: "v1".into(),
        image: "stefanprodan/podinfo:6.0.0".into(),
        replicas: 3,
        autoscaling: true,
        need_auth: true,
        config: format!("name=ms-{i}"),
        creation_timestamp: "1535546718115".into(),
        resource_requirements: Some(ResourceRequirements {
            limits: Some(quantities("100m", "400Mi")),
            requests: Some(quantities("100m", "400Mi")),
            ..ResourceRequirements::default()
        }),
        idle: false,
    }
}

pub fn instance(i: usize, namespace: &str) -> MicroServiceDeploy {
    let mut msd = MicroServiceDeploy::new(&format!("ms-{i}-v1s0"), spec(i));
    msd.metadata.namespace = Some(namespace.to_string());
    msd
}

/// The children of instance `i` as the raw client creates them: the builders' output without owner references.
pub struct Children {
    pub service: Service,
    pub account: ServiceAccount,
    pub config: ConfigMap,
    pub deployment: Deployment,
    pub hpa: HorizontalPodAutoscaler,
}

pub fn children_of(i: usize, namespace: &str) -> Children {
    let msd = instance(i, namespace);
    let owner = OwnerReference::default();
    fn orphan<K: Resource>(mut obj: K) -> K {
        obj.meta_mut().owner_references = None;
        obj
    }
    Children {
        service: orphan(children::service(&msd, &owner)),
        account: orphan(children::service_account(&msd, &owner)),
        config: orphan(children::config_map(&msd, &owner)),
        deployment: orphan(children::deployment(&msd, &owner)),
        hpa: orphan(children::hpa(&msd, &owner)),
    }
}

/// A namespaced Kubernetes kind the benchmark reads and writes as typed objects.
pub trait NamespacedKind:
    Resource<DynamicType = (), Scope = rkb_runtime::kube::core::NamespaceResourceScope>
    + Clone
    + DeserializeOwned
    + Serialize
    + Debug
{
}

impl<K> NamespacedKind for K where
    K: Resource<DynamicType = (), Scope = rkb_runtime::kube::core::NamespaceResourceScope>
        + Clone
        + DeserializeOwned
        + Serialize
        + Debug
{
}

/// Expected content per child kind, by name.
pub fn expectations(count: usize, namespace: &str) -> [(&'static str, HashMap<String, Value>); 5] {
    let mut out: [(&'static str, HashMap<String, Value>); 5] = [
        ("Service", HashMap::new()),
        ("ServiceAccount", HashMap::new()),
        ("ConfigMap", HashMap::new()),
        ("Deployment", HashMap::new()),
        ("HorizontalPodAutoscaler", HashMap::new()),
    ];
    for i in 0..count {
        let c = children_of(i, namespace);
        let values = [
            json(&c.service),
            json(&c.account),
            json(&c.config),
            json(&c.deployment),
            json(&c.hpa),
        ];
        for ((_, map), value) in out.iter_mut().zip(values) {
            map.insert(
                value["metadata"]["name"]
                    .as_str()
                    .unwrap_or_default()
                    .to_string(),
                value,
            );
        }
    }
    out
}

pub fn json<K: Serialize>(obj: &K) -> Value {
    serde_json::to_value(obj).expect("k8s objects serialize")
}

/// Resolves once every expected object of kind K in `namespace` is present with the expected content.
pub async fn all_present<K>(
    client: Client,
    namespace: &str,
    mut expected: HashMap<String, Value>,
) -> anyhow::Result<()>
where
    K: NamespacedKind + Send + 'static,
{
    let started = Instant::now();
    let api: Api<K> = Api::namespaced(client, namespace);
    // With backoff, so a kube-apiserver restart (--outage) is ridden out; errors are only traced.
    let mut events = std::pin::pin!(watcher(api, watcher::Config::default()).default_backoff());
    while !expected.is_empty() {
        let event = match events.next().await {
            Some(Ok(event)) => event,
            Some(Err(e)) => {
                trace(&format!("{namespace}: watch of {}: {e}", K::kind(&())));
                continue;
            }
            None => anyhow::bail!("watch ended"),
        };
        let mut check = |obj: K| {
            let name = obj.meta().name.clone().unwrap_or_default();
            if let Some(want) = expected.get(&name)
                && subset::contains(&json(&obj), want).is_ok()
            {
                expected.remove(&name);
            }
        };
        match event {
            watcher::Event::Apply(obj) | watcher::Event::InitApply(obj) => check(obj),
            _ => {}
        }
    }
    trace(&format!(
        "{namespace}: every {} in place after {:.2?}",
        K::kind(&()),
        started.elapsed()
    ));
    Ok(())
}

pub async fn steady_state(client: &Client, count: usize, namespace: &str) -> anyhow::Result<()> {
    let [svc, sa, cm, dep, hpa] = expectations(count, namespace);
    tokio::try_join!(
        all_present::<Service>(client.clone(), namespace, svc.1),
        all_present::<ServiceAccount>(client.clone(), namespace, sa.1),
        all_present::<ConfigMap>(client.clone(), namespace, cm.1),
        all_present::<Deployment>(client.clone(), namespace, dep.1),
        all_present::<HorizontalPodAutoscaler>(client.clone(), namespace, hpa.1),
    )?;
    Ok(())
}

pub async fn create_namespace(client: &Client, name: &str) -> anyhow::Result<()> {
    let ns = Namespace {
        metadata: ObjectMeta {
            name: Some(name.into()),
            ..ObjectMeta::default()
        },
        ..Namespace::default()
    };
    Api::<Namespace>::all(client.clone())
        .create(&PostParams::default(), &ns)
        .await?;
    Ok(())
}

pub async fn create<K>(client: &Client, namespace: &str, obj: &K) -> anyhow::Result<()>
where
    K: NamespacedKind,
{
    Api::<K>::namespaced(client.clone(), namespace)
        .create(&PostParams::default(), obj)
        .await?;
    Ok(())
}

/// Runs `work(i)` for every instance with at most `concurrency` requests in flight.
pub async fn for_each_instance<F, Fut>(
    count: usize,
    concurrency: usize,
    work: F,
) -> anyhow::Result<()>
where
    F: Fn(usize) -> Fut,
    Fut: Future<Output = anyhow::Result<()>>,
{
    futures::stream::iter(0..count)
        .map(work)
        .buffer_unordered(concurrency)
        .try_collect::<()>()
        .await
}

/// Creates one throwaway MicroServiceDeploy outside the measured namespace. The first create of a freshly
/// installed CRD's kind takes the API server about 2 s (built-in kinds are warm from its start); this keeps that
/// out of the measurement.
pub async fn warm_up(client: &Client, count: usize) -> anyhow::Result<()> {
    create_namespace(client, "warm-up").await?;
    create(client, "warm-up", &instance(count, "warm-up")).await
}

/// The MicroServiceDeploys POSTed, `concurrency` at a time.
pub async fn create_instances(
    client: &Client,
    count: usize,
    concurrency: usize,
    namespace: &str,
) -> anyhow::Result<()> {
    let started = Instant::now();
    for_each_instance(count, concurrency, |i| async move {
        create(client, namespace, &instance(i, namespace)).await
    })
    .await?;
    trace(&format!(
        "{namespace}: {count} MicroServiceDeploys created after {:.2?}",
        started.elapsed()
    ));
    Ok(())
}
