// Copyright 2026 The app-service Authors.
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

//! The AppService controller against a real kube-apiserver, etcd and kube-controller-manager (`make setup-envtest`
//! builds them once; `make test` runs this with KUBEBUILDER_ASSETS set).
//!
//! One control plane serves the whole story, in order: create (the exact Deployment and Service), status, update in
//! place, drift repair, and deletion by the garbage collector. No deployment controller or kubelet runs, so the test
//! plays the deployment controller by writing the Deployment's status itself.

use std::collections::BTreeMap;
use std::time::Duration;

use rkb_runtime::envtest::{Environment, eventually};
use rkb_runtime::k8s_openapi::api::apps::v1::Deployment;
use rkb_runtime::k8s_openapi::api::core::v1::{ContainerPort, Service, ServicePort};
use rkb_runtime::k8s_openapi::apimachinery::pkg::apis::meta::v1::OwnerReference;
use rkb_runtime::k8s_openapi::apimachinery::pkg::util::intstr::IntOrString;
use rkb_runtime::kube::api::{DeleteParams, Patch, PatchParams, PostParams};
use rkb_runtime::kube::{Api, Client};
use rkb_runtime::{Manager, ManagerOptions, ResourceExt, RunningManager};
use serde_json::json;

use app_service::api::v1alpha1::{AppService, AppServiceSpec, AppServiceStatus};
use app_service::controller::appservice_controller::controller;

const MANAGER: &str = "app-service-test";
const NAMESPACE: &str = "default";
const NAME: &str = "appservice-sample";
const TIMEOUT: Duration = Duration::from_secs(30);

/// A manager running the controller, on ports nobody else uses ("0": no metrics or health listeners).
async fn start_manager(client: &Client) -> anyhow::Result<RunningManager> {
    let options = ManagerOptions {
        metrics_bind_address: "0".into(),
        health_probe_bind_address: "0".into(),
        ..ManagerOptions::default()
    };
    let mgr = Manager::builder(MANAGER)
        .client(client.clone())
        .options(options)
        .build()
        .await?;
    mgr.add(controller);
    Ok(mgr.spawn())
}

/// The Deployment once it asks for `replicas` pods of `image`.
async fn deployment_with(
    deployments: &Api<Deployment>,
    replicas: i32,
    image: &str,
) -> anyhow::Result<Deployment> {
    eventually(
        &format!("the Deployment runs {replicas} x {image}"),
        TIMEOUT,
        || async {
            Ok::<_, rkb_runtime::kube::Error>(deployments.get_opt(NAME).await?.filter(|d| {
                let spec = d.spec.as_ref();
                let container = spec
                    .and_then(|s| s.template.spec.as_ref())
                    .and_then(|p| p.containers.first());
                spec.and_then(|s| s.replicas) == Some(replicas)
                    && container.and_then(|c| c.image.as_deref()) == Some(image)
            }))
        },
    )
    .await
    .map_err(Into::into)
}

/// The Service once it exposes `port`.
async fn service_with_port(services: &Api<Service>, port: i32) -> anyhow::Result<Service> {
    eventually(
        &format!("the Service exposes port {port}"),
        TIMEOUT,
        || async {
            Ok::<_, rkb_runtime::kube::Error>(services.get_opt(NAME).await?.filter(|s| {
                let ports = s.spec.as_ref().and_then(|s| s.ports.as_ref());
                ports.is_some_and(|p| p.iter().map(|p| p.port).eq([port]))
            }))
        },
    )
    .await
    .map_err(Into::into)
}

/// Plays the deployment controller: `available` pods of the current generation are available.
async fn report_available(deployments: &Api<Deployment>, available: i32) -> anyhow::Result<()> {
    let current = deployments.get(NAME).await?;
    let status = json!({ "status": {
        "observedGeneration": current.metadata.generation,
        "replicas": available, "updatedReplicas": available, "readyReplicas": available,
        "availableReplicas": available,
    }});
    deployments
        .patch_status(NAME, &PatchParams::default(), &Patch::Merge(&status))
        .await?;
    Ok(())
}

/// Waits for the AppService's status to be exactly `want`.
async fn status_is(api: &Api<AppService>, want: AppServiceStatus) -> anyhow::Result<()> {
    eventually(
        &format!("the AppService's status is {want:?}"),
        TIMEOUT,
        || async {
            Ok::<_, rkb_runtime::kube::Error>(
                (api.get(NAME).await?.status.as_ref() == Some(&want)).then_some(()),
            )
        },
    )
    .await
    .map_err(Into::into)
}

/// What the story's steps share: the APIs of the AppService and its children, as the test's admin.
struct Story {
    api: Api<AppService>,
    deployments: Api<Deployment>,
    services: Api<Service>,
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_appservice_runs_as_a_deployment_and_a_service_from_creation_to_deletion()
-> anyhow::Result<()> {
    let env = Environment::builder()
        .crd_dir(concat!(env!("CARGO_MANIFEST_DIR"), "/config/crd/bases"))
        .with_controller_manager()
        .start()
        .await?;
    let client = env.client();
    // The manager acts as it does in a cluster: holding only the generated role.yaml, so a missing
    // +kubebuilder:rbac marker fails the test (the admin client would hide it).
    let manager_client = env
        .client_with_rbac(
            MANAGER,
            include_str!(concat!(
                env!("CARGO_MANIFEST_DIR"),
                "/config/rbac/role.yaml"
            )),
        )
        .await?;
    let manager = start_manager(&manager_client).await?;
    let story = Story {
        api: Api::namespaced(client.clone(), NAMESPACE),
        deployments: Api::namespaced(client.clone(), NAMESPACE),
        services: Api::namespaced(client, NAMESPACE),
    };

    story.negative_replicas_are_refused().await?;
    let (deployment, service) = story.create_makes_a_deployment_and_a_service().await?;
    story.status_mirrors_the_available_replicas().await?;
    story
        .an_update_changes_both_in_place(&deployment, &service)
        .await?;
    story.a_hand_scale_is_undone(&deployment).await?;
    story.deletion_collects_the_children().await?;

    manager.stop().await?;
    env.stop().await?;
    Ok(())
}

impl Story {
    /// The CRD validates: replicas cannot be negative.
    async fn negative_replicas_are_refused(&self) -> anyhow::Result<()> {
        let negative = AppService::new(
            "negative",
            AppServiceSpec {
                replicas: -1,
                image: "nginx".into(),
                port: None,
            },
        );
        let refused = self.api.create(&PostParams::default(), &negative).await;
        assert!(
            matches!(&refused, Err(rkb_runtime::kube::Error::Api(s)) if s.code == 422),
            "replicas -1 must be refused with 422, got {refused:?}"
        );
        Ok(())
    }

    /// Create: port defaults to 80; a Deployment and a Service, both owned by the AppService.
    async fn create_makes_a_deployment_and_a_service(
        &self,
    ) -> anyhow::Result<(Deployment, Service)> {
        let spec = AppServiceSpec {
            replicas: 2,
            image: "nginx:1.27".into(),
            port: None,
        };
        let created = self
            .api
            .create(&PostParams::default(), &AppService::new(NAME, spec))
            .await?;
        assert_eq!(created.spec.port, Some(80), "the CRD defaults spec.port");
        let owner = OwnerReference {
            api_version: "batch.example.com/v1alpha1".into(),
            kind: "AppService".into(),
            name: NAME.into(),
            uid: created.uid().expect("the server sets a uid"),
            controller: Some(true),
            block_owner_deletion: Some(true),
        };
        let labels = BTreeMap::from([("app".to_string(), NAME.to_string())]);

        let deployment = deployment_with(&self.deployments, 2, "nginx:1.27").await?;
        assert_eq!(
            deployment.metadata.owner_references,
            Some(vec![owner.clone()])
        );
        assert_eq!(deployment.metadata.labels.as_ref(), Some(&labels));
        let spec = deployment.spec.clone().expect("a Deployment has a spec");
        assert_eq!(spec.selector.match_labels.as_ref(), Some(&labels));
        assert_eq!(spec.selector.match_expressions, None);
        assert_eq!(
            spec.template
                .metadata
                .as_ref()
                .and_then(|m| m.labels.as_ref()),
            Some(&labels)
        );
        let pod = spec.template.spec.expect("a pod template has a spec");
        assert_eq!(
            pod.containers.len(),
            1,
            "one container: {:?}",
            pod.containers
        );
        assert_eq!(pod.containers[0].name, NAME);
        assert_eq!(
            pod.containers[0].ports,
            Some(vec![ContainerPort {
                name: Some("http".into()),
                container_port: 80,
                protocol: Some("TCP".into()),
                ..ContainerPort::default()
            }])
        );

        let service = service_with_port(&self.services, 80).await?;
        assert_eq!(service.metadata.owner_references, Some(vec![owner]));
        assert_eq!(service.metadata.labels.as_ref(), Some(&labels));
        let service_spec = service.spec.clone().expect("a Service has a spec");
        assert_eq!(service_spec.type_.as_deref(), Some("ClusterIP"));
        assert_eq!(service_spec.selector.as_ref(), Some(&labels));
        assert_eq!(
            service_spec.ports,
            Some(vec![ServicePort {
                name: Some("http".into()),
                port: 80,
                target_port: Some(IntOrString::String("http".into())),
                protocol: Some("TCP".into()),
                ..ServicePort::default()
            }])
        );
        assert!(
            service_spec.cluster_ip.is_some(),
            "the API server allocates a cluster IP"
        );
        Ok((deployment, service))
    }

    /// Status mirrors the Deployment's available replicas, for the generation applied.
    async fn status_mirrors_the_available_replicas(&self) -> anyhow::Result<()> {
        status_is(
            &self.api,
            AppServiceStatus {
                available_replicas: 0,
                observed_generation: Some(1),
            },
        )
        .await?;
        report_available(&self.deployments, 2).await?;
        status_is(
            &self.api,
            AppServiceStatus {
                available_replicas: 2,
                observed_generation: Some(1),
            },
        )
        .await
    }

    /// Update: replicas, image and port change the same Deployment and Service in place; the Service keeps its
    /// IP, and no annotation on the AppService holds an old spec.
    async fn an_update_changes_both_in_place(
        &self,
        deployment: &Deployment,
        service: &Service,
    ) -> anyhow::Result<()> {
        let change = json!({ "spec": { "replicas": 3, "image": "nginx:1.28", "port": 8080 } });
        self.api
            .patch(NAME, &PatchParams::default(), &Patch::Merge(&change))
            .await?;
        let updated = deployment_with(&self.deployments, 3, "nginx:1.28").await?;
        assert_eq!(
            updated.uid(),
            deployment.uid(),
            "the Deployment is updated, not replaced"
        );
        let container = &updated
            .spec
            .as_ref()
            .and_then(|s| s.template.spec.as_ref())
            .expect("pod spec")
            .containers[0];
        assert_eq!(
            container
                .ports
                .as_ref()
                .map(|p| p.iter().map(|p| p.container_port).collect()),
            Some(vec![8080])
        );
        let updated_service = service_with_port(&self.services, 8080).await?;
        assert_eq!(
            updated_service.uid(),
            service.uid(),
            "the Service is updated, not replaced"
        );
        assert_eq!(
            updated_service.spec.and_then(|s| s.cluster_ip),
            service.spec.as_ref().and_then(|s| s.cluster_ip.clone())
        );
        status_is(
            &self.api,
            AppServiceStatus {
                available_replicas: 2,
                observed_generation: Some(2),
            },
        )
        .await?;
        report_available(&self.deployments, 3).await?;
        status_is(
            &self.api,
            AppServiceStatus {
                available_replicas: 3,
                observed_generation: Some(2),
            },
        )
        .await?;
        assert_eq!(self.api.get(NAME).await?.metadata.annotations, None);
        Ok(())
    }

    /// Drift: scaling the Deployment by hand is undone (the controller watches what it owns).
    async fn a_hand_scale_is_undone(&self, deployment: &Deployment) -> anyhow::Result<()> {
        let scale = json!({ "spec": { "replicas": 7 } });
        let scaled = self
            .deployments
            .patch(NAME, &PatchParams::default(), &Patch::Merge(&scale))
            .await?;
        assert_eq!(scaled.spec.and_then(|s| s.replicas), Some(7));
        let repaired = deployment_with(&self.deployments, 3, "nginx:1.28").await?;
        assert_eq!(repaired.uid(), deployment.uid());
        Ok(())
    }

    /// Delete: the AppService goes at once (no finalizer), the garbage collector removes its children.
    async fn deletion_collects_the_children(&self) -> anyhow::Result<()> {
        let (api, deployments, services) = (&self.api, &self.deployments, &self.services);
        api.delete(NAME, &DeleteParams::default()).await?;
        eventually("the AppService is gone", TIMEOUT, || async {
            Ok::<_, rkb_runtime::kube::Error>(api.get_opt(NAME).await?.is_none().then_some(()))
        })
        .await?;
        eventually(
            "the Deployment and Service are garbage collected",
            TIMEOUT,
            || async {
                let gone = deployments.get_opt(NAME).await?.is_none()
                    && services.get_opt(NAME).await?.is_none();
                Ok::<_, rkb_runtime::kube::Error>(gone.then_some(()))
            },
        )
        .await?;
        Ok(())
    }
}
