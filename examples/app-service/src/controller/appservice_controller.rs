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

//! Reconciles AppService objects (seed 003): each one runs as a Deployment and a Service of the same name.
//!
//! Both are written with server-side apply on every reconcile, so they follow the spec (and drift back when edited
//! by hand) without the seed's annotation holding the previous spec: the API server compares the applied fields with
//! what this manager owns, and changes only what differs (a Service keeps its clusterIP because we never set it).
//! Both carry a controller reference to the AppService, so the garbage collector deletes them with it; no finalizer
//! is needed.

use std::collections::BTreeMap;
use std::sync::Arc;

use rkb_runtime::apply::{apply, apply_status, set_controller_reference};
use rkb_runtime::k8s_openapi::api::apps::v1::{Deployment, DeploymentSpec};
use rkb_runtime::k8s_openapi::api::core::v1::{
    Container, ContainerPort, PodSpec, PodTemplateSpec, Service, ServicePort, ServiceSpec,
};
use rkb_runtime::k8s_openapi::apimachinery::pkg::apis::meta::v1::LabelSelector;
use rkb_runtime::k8s_openapi::apimachinery::pkg::util::intstr::IntOrString;
use rkb_runtime::{Action, BoxError, Context, Controller, Error, ObjectMeta, ResourceExt};

use crate::api::v1alpha1::{AppService, AppServiceStatus};

/// Runs the AppService controller until the manager stops.
///
/// +kubebuilder:rbac:groups=batch.example.com,resources=appservices,verbs=list;watch
/// +kubebuilder:rbac:groups=batch.example.com,resources=appservices/status,verbs=patch
/// +kubebuilder:rbac:groups=batch.example.com,resources=appservices/finalizers,verbs=update
/// +kubebuilder:rbac:groups=apps,resources=deployments,verbs=list;watch;create;patch
/// +kubebuilder:rbac:groups="",resources=services,verbs=list;watch;create;patch
pub async fn controller(ctx: Context) -> Result<(), Error> {
    // Changes to an owned Deployment (its status moves, someone scales it) or Service reconcile their AppService.
    Controller::for_kind::<AppService>(&ctx)
        .owns::<Deployment>()
        .owns::<Service>()
        .run(reconcile)
        .await
}

/// Moves the cluster towards the state an AppService asks for. It runs for every change of the object and of its
/// children, and is idempotent; an error retries it with per-object exponential backoff.
pub async fn reconcile(obj: Arc<AppService>, ctx: Context) -> Result<Action, BoxError> {
    if obj.metadata.deletion_timestamp.is_some() {
        // The garbage collector removes the children once the AppService is gone.
        return Ok(Action::await_change());
    }
    let namespace = obj.namespace().unwrap_or_default();
    let deployment = apply(
        &ctx.api_in::<Deployment>(&namespace),
        &desired_deployment(&obj)?,
        ctx.field_manager(),
    )
    .await?;
    apply(
        &ctx.api_in::<Service>(&namespace),
        &desired_service(&obj)?,
        ctx.field_manager(),
    )
    .await?;

    tracing::info!(
        replicas = obj.spec.replicas,
        image = %obj.spec.image,
        port = obj.spec.port(),
        "applied Deployment and Service"
    );

    let status = observed_status(&obj, &deployment);
    if obj.status.as_ref() != Some(&status) {
        // apply_status sends only the status (with name and namespace): the spec stays the user's.
        let mut patch = (*obj).clone();
        patch.status = Some(status);
        apply_status(
            &ctx.api_in::<AppService>(&namespace),
            &patch,
            ctx.field_manager(),
        )
        .await?;
    }
    Ok(Action::await_change())
}

/// The pod labels (and selector) of an AppService's pods.
pub fn pod_labels(obj: &AppService) -> BTreeMap<String, String> {
    BTreeMap::from([("app".to_string(), obj.name_any())])
}

/// The Deployment that runs `obj`: `spec.replicas` pods labelled `app: <name>`, one container with `spec.image`
/// listening on `spec.port`, controlled by `obj`.
pub fn desired_deployment(obj: &AppService) -> Result<Deployment, Error> {
    let name = obj.name_any();
    let mut deployment = Deployment {
        metadata: ObjectMeta {
            name: Some(name.clone()),
            namespace: obj.namespace(),
            labels: Some(pod_labels(obj)),
            ..ObjectMeta::default()
        },
        spec: Some(DeploymentSpec {
            replicas: Some(obj.spec.replicas),
            selector: LabelSelector {
                match_labels: Some(pod_labels(obj)),
                ..LabelSelector::default()
            },
            template: PodTemplateSpec {
                metadata: Some(ObjectMeta {
                    labels: Some(pod_labels(obj)),
                    ..ObjectMeta::default()
                }),
                spec: Some(PodSpec {
                    containers: vec![Container {
                        name,
                        image: Some(obj.spec.image.clone()),
                        ports: Some(vec![ContainerPort {
                            name: Some("http".into()),
                            container_port: obj.spec.port(),
                            ..ContainerPort::default()
                        }]),
                        ..Container::default()
                    }],
                    ..PodSpec::default()
                }),
            },
            ..DeploymentSpec::default()
        }),
        ..Deployment::default()
    };
    set_controller_reference(obj, &mut deployment)?;
    Ok(deployment)
}

/// The Service in front of `obj`'s pods: port `spec.port` to the pods' `http` port, controlled by `obj`. The
/// cluster IP is left to the API server.
pub fn desired_service(obj: &AppService) -> Result<Service, Error> {
    let mut service = Service {
        metadata: ObjectMeta {
            name: Some(obj.name_any()),
            namespace: obj.namespace(),
            labels: Some(pod_labels(obj)),
            ..ObjectMeta::default()
        },
        spec: Some(ServiceSpec {
            selector: Some(pod_labels(obj)),
            ports: Some(vec![ServicePort {
                name: Some("http".into()),
                port: obj.spec.port(),
                target_port: Some(IntOrString::String("http".into())),
                protocol: Some("TCP".into()),
                ..ServicePort::default()
            }]),
            ..ServiceSpec::default()
        }),
        ..Service::default()
    };
    set_controller_reference(obj, &mut service)?;
    Ok(service)
}

/// The status `obj` should show: the Deployment's available replicas, for the generation just applied.
pub fn observed_status(obj: &AppService, deployment: &Deployment) -> AppServiceStatus {
    AppServiceStatus {
        available_replicas: deployment
            .status
            .as_ref()
            .and_then(|s| s.available_replicas)
            .unwrap_or(0),
        observed_generation: obj.metadata.generation,
    }
}

#[cfg(test)]
mod tests {
    use rkb_runtime::k8s_openapi::api::apps::v1::DeploymentStatus;

    use super::*;
    use crate::api::v1alpha1::AppServiceSpec;

    /// An AppService as the API server returns it (uid set) at `generation`, port left to the default.
    fn app(generation: i64) -> AppService {
        let spec = AppServiceSpec {
            replicas: 2,
            image: "nginx:1.27".into(),
            port: None,
        };
        let mut obj = AppService::new("web", spec);
        obj.metadata.uid = Some("uid-1".into());
        obj.metadata.generation = Some(generation);
        obj
    }

    #[test]
    fn children_use_the_default_port_and_the_same_labels() {
        let obj = app(1);
        let deployment = desired_deployment(&obj).expect("an owner with a uid");
        let service = desired_service(&obj).expect("an owner with a uid");
        let spec = deployment.spec.expect("spec");
        assert_eq!(spec.replicas, Some(2));
        let port = &spec.template.spec.expect("pod spec").containers[0]
            .ports
            .clone()
            .expect("ports")[0];
        assert_eq!(
            (port.name.as_deref(), port.container_port),
            (Some("http"), 80)
        );
        let service_spec = service.spec.expect("spec");
        assert_eq!(
            service_spec.selector,
            spec.template.metadata.and_then(|m| m.labels)
        );
        let service_port = &service_spec.ports.expect("ports")[0];
        assert_eq!(service_port.port, 80);
        assert_eq!(
            service_port.target_port,
            Some(IntOrString::String("http".into()))
        );
        // The cluster IP is the API server's to allocate and keep.
        assert_eq!(service_spec.cluster_ip, None);
    }

    #[test]
    fn status_mirrors_the_deployment() {
        let mut deployment = desired_deployment(&app(3)).expect("an owner with a uid");
        assert_eq!(
            observed_status(&app(3), &deployment),
            AppServiceStatus {
                available_replicas: 0,
                observed_generation: Some(3)
            }
        );
        deployment.status = Some(DeploymentStatus {
            available_replicas: Some(2),
            ..DeploymentStatus::default()
        });
        assert_eq!(observed_status(&app(3), &deployment).available_replicas, 2);
    }
}
