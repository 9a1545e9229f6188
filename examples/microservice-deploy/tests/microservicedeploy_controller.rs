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

//! The MicroServiceDeploy controller against a real kube-apiserver and etcd (`make setup-envtest` builds them once;
//! `make test` runs this with KUBEBUILDER_ASSETS set): the seed's exact child objects, every update path, the
//! namespace defaults at start, sharing a Service between versions, and deletion.

mod common;

use common::{
    Harness, MANAGER, assert_contains, eventually, fixture, fixture_of, live, manages, reconciled,
    wait_for,
};
use microservice_deploy::api::v1::MicroServiceDeploy;
use microservice_deploy::controller::children::{
    CREATE_AT_ANNOTATION, LAST_ROLLOUT_AT_ANNOTATION, RESTART_ANNOTATION,
};
use microservice_deploy::controller::microservicedeploy_controller::{READY, Settings};
use microservice_deploy::controller::namespace_defaults::NamespaceDefaults;
use rkb_runtime::Api;
use rkb_runtime::conditions::find_condition;
use rkb_runtime::k8s_openapi::api::apps::v1::Deployment;
use rkb_runtime::k8s_openapi::api::autoscaling::v1::HorizontalPodAutoscaler;
use rkb_runtime::k8s_openapi::api::core::v1::{
    ConfigMap, LimitRange, Namespace, ResourceQuota, Service, ServiceAccount,
};
use rkb_runtime::kube::api::{DeleteParams, Patch, PatchParams, PostParams};
use rkb_runtime::metrics::sample;
use serde_json::{Value, json};

const NS: &str = "default";
const NAME: &str = "ms-sample-v1s0";
const MS: &str = "ms-sample";

/// The seed's MicroServiceDeploy (tests/fixtures/seed_microservicedeploy.yaml).
fn seed() -> MicroServiceDeploy {
    serde_json::from_value(fixture("seed_microservicedeploy.yaml").remove(0))
        .expect("fixture is a MicroServiceDeploy")
}

async fn patch_spec(api: &Api<MicroServiceDeploy>, name: &str, spec: Value) -> anyhow::Result<()> {
    api.patch(
        name,
        &PatchParams::default(),
        &Patch::Merge(json!({ "spec": spec })),
    )
    .await?;
    Ok(())
}

fn api<K>(h: &Harness) -> Api<K>
where
    K: rkb_runtime::Resource<
            DynamicType = (),
            Scope = rkb_runtime::kube::core::NamespaceResourceScope,
        >,
{
    Api::namespaced(h.client.clone(), NS)
}

#[tokio::test]
async fn creates_the_seed_children_and_namespace_defaults() -> anyhow::Result<()> {
    let h = Harness::start(Settings::default(), false).await?;
    let msds = h.msds(NS);
    let created = msds.create(&PostParams::default(), &seed()).await?;
    let msd = reconciled(&msds, NAME).await?;

    let status = msd.status.clone().unwrap_or_default();
    let ready = find_condition(&status.conditions, READY).expect("Ready condition");
    assert_eq!(
        (ready.status.as_str(), ready.reason.as_str()),
        ("True", "Reconciled")
    );
    assert_eq!(status.observed_generation, Some(1));

    let children = fixture("seed_children.yaml");
    let live_children = [
        live(&api::<Service>(&h), MS).await?,
        live(&api::<ServiceAccount>(&h), MS).await?,
        live(&api::<Deployment>(&h), NAME).await?,
        live(&api::<ConfigMap>(&h), NAME).await?,
        live(&api::<HorizontalPodAutoscaler>(&h), NAME).await?,
    ];
    let owner = json!([{
        "apiVersion": "custom.ops/v1",
        "kind": "MicroServiceDeploy",
        "name": NAME,
        "uid": created.metadata.uid,
        "controller": true,
        "blockOwnerDeletion": true,
    }]);
    for actual in &live_children {
        assert_contains(
            actual,
            &fixture_of(&children, actual["kind"].as_str().unwrap_or_default()),
        );
        assert_eq!(
            actual["metadata"]["ownerReferences"], owner,
            "{} owner",
            actual["kind"]
        );
        assert!(
            manages(actual, MANAGER, &["f:metadata", "f:labels"]),
            "{} applied by {MANAGER}",
            actual["kind"]
        );
    }
    // The HPA decides the replica count, so the controller does not own it.
    assert!(!manages(
        &live_children[2],
        MANAGER,
        &["f:spec", "f:replicas"]
    ));

    // The seed's ResourceQuota and LimitRange, applied once at start in the watched namespace ("default" here).
    let defaults = fixture("seed_namespace_defaults.yaml");
    let (quotas, limits) = (api::<ResourceQuota>(&h), api::<LimitRange>(&h));
    eventually("the namespace defaults exist", || async {
        Ok(quotas.get_opt("default-resource-quota").await?.is_some()
            && limits.get_opt("default-limit-range").await?.is_some())
    })
    .await?;
    assert_contains(
        &live(&quotas, "default-resource-quota").await?,
        &fixture_of(&defaults, "ResourceQuota"),
    );
    assert_contains(
        &live(&limits, "default-limit-range").await?,
        &fixture_of(&defaults, "LimitRange"),
    );
    h.stop().await
}

#[tokio::test]
async fn follows_every_update_path() -> anyhow::Result<()> {
    let h = Harness::start(Settings::default(), false).await?;
    let msds = h.msds(NS);
    let (deployments, hpas) = (api::<Deployment>(&h), api::<HorizontalPodAutoscaler>(&h));
    let mut msd = seed();
    msd.spec.autoscaling = false;
    msd.spec.replicas = 2;
    msds.create(&PostParams::default(), &msd).await?;
    reconciled(&msds, NAME).await?;
    let replicas = |d: &Deployment| d.spec.as_ref().and_then(|s| s.replicas);
    assert_eq!(replicas(&deployments.get(NAME).await?), Some(2));
    assert!(
        hpas.get_opt(NAME).await?.is_none(),
        "no HPA without autoscaling"
    );

    // replicas and image
    patch_spec(
        &msds,
        NAME,
        json!({ "replicas": 4, "image": "stefanprodan/podinfo:6.0.0" }),
    )
    .await?;
    reconciled(&msds, NAME).await?;
    let d = deployments.get(NAME).await?;
    assert_eq!(replicas(&d), Some(4));
    let pod = d
        .spec
        .as_ref()
        .and_then(|s| s.template.spec.as_ref())
        .expect("pod spec");
    assert_eq!(
        pod.containers[0].image.as_deref(),
        Some("stefanprodan/podinfo:6.0.0")
    );

    // config: the ConfigMap follows; the pod template (and so the pods) stays as it is
    let before = deployments.get(NAME).await?;
    patch_spec(&msds, NAME, json!({ "config": "name=bar" })).await?;
    reconciled(&msds, NAME).await?;
    let cm = api::<ConfigMap>(&h).get(NAME).await?;
    assert_eq!(
        cm.data
            .unwrap_or_default()
            .get("ms.properties")
            .map(String::as_str),
        Some("name=bar")
    );
    let after = deployments.get(NAME).await?;
    assert_eq!(
        after.metadata.generation, before.metadata.generation,
        "config change must not touch the Deployment"
    );
    assert_eq!(
        after.spec.map(|s| s.template),
        before.spec.map(|s| s.template)
    );

    // needAuth: the gateway's annotation on the Service
    patch_spec(&msds, NAME, json!({ "needAuth": false })).await?;
    reconciled(&msds, NAME).await?;
    let svc = api::<Service>(&h).get(MS).await?;
    assert_eq!(
        svc.metadata.annotations.unwrap_or_default()["app.ops.my.domain/need-auth"],
        "false"
    );

    // autoscaling on: an HPA, and the replica count is left to it
    patch_spec(&msds, NAME, json!({ "autoscaling": true })).await?;
    reconciled(&msds, NAME).await?;
    let hpa = live(&hpas, NAME).await?;
    assert_contains(
        &hpa,
        &fixture_of(&fixture("seed_children.yaml"), "HorizontalPodAutoscaler"),
    );
    assert!(!manages(
        &live(&deployments, NAME).await?,
        MANAGER,
        &["f:spec", "f:replicas"]
    ));

    // idle on: zero pods and no HPA, even though autoscaling is on
    patch_spec(&msds, NAME, json!({ "idle": true })).await?;
    reconciled(&msds, NAME).await?;
    assert!(hpas.get_opt(NAME).await?.is_none(), "idle removes the HPA");
    assert_eq!(replicas(&deployments.get(NAME).await?), Some(0));

    // idle off: the HPA is back and owns the replica count again
    patch_spec(&msds, NAME, json!({ "idle": false })).await?;
    reconciled(&msds, NAME).await?;
    assert!(hpas.get_opt(NAME).await?.is_some(), "HPA restored");
    assert!(!manages(
        &live(&deployments, NAME).await?,
        MANAGER,
        &["f:spec", "f:replicas"]
    ));

    // autoscaling off: no HPA, spec.replicas again
    patch_spec(&msds, NAME, json!({ "autoscaling": false })).await?;
    reconciled(&msds, NAME).await?;
    assert!(
        hpas.get_opt(NAME).await?.is_none(),
        "autoscaling off removes the HPA"
    );
    assert_eq!(replicas(&deployments.get(NAME).await?), Some(4));

    // the restart annotation rolls the pods: new last-rollout-at and create-at, so a new pod template
    let before = deployments.get(NAME).await?;
    let restart = json!({ "metadata": { "annotations": { RESTART_ANNOTATION: "1700000000000" } } });
    msds.patch(NAME, &PatchParams::default(), &Patch::Merge(restart))
        .await?;
    let rolled = wait_for("the Deployment carries the restart stamp", || async {
        let d = deployments.get(NAME).await?;
        let stamp = d
            .metadata
            .annotations
            .as_ref()
            .and_then(|a| a.get(LAST_ROLLOUT_AT_ANNOTATION))
            .cloned();
        Ok((stamp.as_deref() == Some("1700000000000")).then_some(d))
    })
    .await?;
    let template = |d: &Deployment| {
        d.spec
            .as_ref()
            .map(|s| s.template.clone())
            .unwrap_or_default()
    };
    let annotations = template(&rolled)
        .metadata
        .and_then(|m| m.annotations)
        .unwrap_or_default();
    assert_eq!(annotations[CREATE_AT_ANNOTATION], "1700000000000");
    assert_eq!(
        before.metadata.annotations.unwrap_or_default()[LAST_ROLLOUT_AT_ANNOTATION],
        "1234"
    );
    assert!(
        rolled.metadata.generation > before.metadata.generation,
        "a new pod template is a rollout"
    );

    // drift: an edit of a child by someone else is undone, a deleted child comes back
    let cms = api::<ConfigMap>(&h);
    let tamper = json!({ "data": { "ms.properties": "tampered" } });
    cms.patch(NAME, &PatchParams::default(), &Patch::Merge(tamper))
        .await?;
    eventually("the ConfigMap edit is undone", || async {
        let data = cms.get(NAME).await?.data.unwrap_or_default();
        Ok(data.get("ms.properties").map(String::as_str) == Some("name=bar"))
    })
    .await?;
    let old_uid = deployments.get(NAME).await?.metadata.uid;
    deployments.delete(NAME, &DeleteParams::default()).await?;
    eventually("the deleted Deployment is recreated", || async {
        Ok(deployments
            .get_opt(NAME)
            .await?
            .is_some_and(|d| d.metadata.uid != old_uid))
    })
    .await?;
    h.stop().await
}

#[tokio::test]
async fn versions_of_one_microservice_share_its_service() -> anyhow::Result<()> {
    let h = Harness::start(Settings::default(), false).await?;
    let msds = h.msds(NS);
    let first = msds.create(&PostParams::default(), &seed()).await?;
    reconciled(&msds, NAME).await?;

    let mut v2 = seed();
    v2.metadata.name = Some("ms-sample-v2s0".into());
    v2.spec.full_name = "ms-sample-v2s0".into();
    v2.spec.version = "2.0".into();
    msds.create(&PostParams::default(), &v2).await?;
    let v2 = reconciled(&msds, "ms-sample-v2s0").await?;
    let ready = find_condition(&v2.status.unwrap_or_default().conditions, READY)
        .cloned()
        .expect("Ready");
    assert_eq!(ready.reason, "SharingService", "{}", ready.message);

    // The Service and ServiceAccount stay with the first instance; the second has its own Deployment.
    for kind_owner in [
        api::<Service>(&h).get(MS).await?.metadata.owner_references,
        api::<ServiceAccount>(&h)
            .get(MS)
            .await?
            .metadata
            .owner_references,
    ] {
        let uids: Vec<_> = kind_owner
            .unwrap_or_default()
            .into_iter()
            .map(|r| r.uid)
            .collect();
        assert_eq!(uids, vec![first.metadata.uid.clone().unwrap_or_default()]);
    }
    let d2 = api::<Deployment>(&h).get("ms-sample-v2s0").await?;
    let host_path = d2
        .spec
        .and_then(|s| s.template.spec)
        .and_then(|p| p.volumes)
        .unwrap_or_default()[0]
        .host_path
        .clone()
        .map(|h| h.path);
    assert_eq!(host_path.as_deref(), Some("/data0/logs/ms-sample/2.0"));
    h.stop().await
}

#[tokio::test]
async fn namespace_defaults_follow_the_flags() -> anyhow::Result<()> {
    let settings = Settings {
        namespace_defaults: NamespaceDefaults {
            defaults_namespace: Some("team-a".into()),
            quota_requests_cpu: "8".into(),
            limit_max_memory: "4Gi".into(),
            ..NamespaceDefaults::default()
        },
        ..Settings::default()
    };
    let h = Harness::start(settings, false).await?;
    // The namespace appears after the manager has tried to apply there (the API server counts the refusal):
    // applying retries until it exists.
    eventually("a refused apply of the ResourceQuota", || async {
        let metrics = rkb_runtime::kube::core::Request::new("")
            .get("metrics", &rkb_runtime::kube::api::GetParams::default())?;
        let text = h.client.request_text(metrics).await?;
        let refused = [
            ("verb", "APPLY"),
            ("resource", "resourcequotas"),
            ("code", "404"),
        ];
        Ok(sample(&text, "apiserver_request_total", &refused).is_some())
    })
    .await?;
    let ns: Namespace = serde_json::from_value(json!({ "metadata": { "name": "team-a" } }))?;
    Api::<Namespace>::all(h.client.clone())
        .create(&PostParams::default(), &ns)
        .await?;

    let quotas: Api<ResourceQuota> = Api::namespaced(h.client.clone(), "team-a");
    let limits: Api<LimitRange> = Api::namespaced(h.client.clone(), "team-a");
    eventually("the namespace defaults exist in team-a", || async {
        Ok(quotas.get_opt("default-resource-quota").await?.is_some()
            && limits.get_opt("default-limit-range").await?.is_some())
    })
    .await?;
    let quota = live(&quotas, "default-resource-quota").await?;
    assert_eq!(
        quota["spec"]["hard"],
        json!({
            "requests.cpu": "8", "limits.cpu": "352", "requests.memory": "112Gi", "limits.memory": "448Gi"
        })
    );
    let limit = live(&limits, "default-limit-range").await?;
    assert_eq!(
        limit["spec"]["limits"][0]["max"],
        json!({ "cpu": "2", "memory": "4Gi" })
    );
    assert!(
        api::<ResourceQuota>(&h)
            .get_opt("default-resource-quota")
            .await?
            .is_none(),
        "nothing in default"
    );
    h.stop().await
}

#[tokio::test]
async fn deleting_the_microservicedeploy_deletes_every_child() -> anyhow::Result<()> {
    let h = Harness::start(Settings::default(), true).await?;
    let msds = h.msds(NS);
    msds.create(&PostParams::default(), &seed()).await?;
    reconciled(&msds, NAME).await?;
    assert!(
        api::<HorizontalPodAutoscaler>(&h)
            .get_opt(NAME)
            .await?
            .is_some()
    );

    msds.delete(NAME, &DeleteParams::default()).await?;
    eventually("the garbage collector deletes every child", || async {
        Ok(msds.get_opt(NAME).await?.is_none()
            && api::<Service>(&h).get_opt(MS).await?.is_none()
            && api::<ServiceAccount>(&h).get_opt(MS).await?.is_none()
            && api::<Deployment>(&h).get_opt(NAME).await?.is_none()
            && api::<ConfigMap>(&h).get_opt(NAME).await?.is_none()
            && api::<HorizontalPodAutoscaler>(&h)
                .get_opt(NAME)
                .await?
                .is_none())
    })
    .await?;
    // Namespace settings are not children: they stay.
    assert!(
        api::<ResourceQuota>(&h)
            .get_opt("default-resource-quota")
            .await?
            .is_some()
    );
    h.stop().await
}
