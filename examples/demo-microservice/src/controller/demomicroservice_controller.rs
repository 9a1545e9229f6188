// Copyright 2026 The demo-microservice Authors.
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

//! Reconciles DemoMicroService objects: each one runs as a Deployment of the same name (seed 000, section 2).
//!
//! The Deployment is written with server-side apply, so a changed `spec.image` updates it in place (the seed's
//! create-only code failed with "already exists" there). The finalizer removes the Deployment before the
//! DemoMicroService disappears, so a DemoMicroService never leaves a running Deployment behind.

use std::collections::BTreeMap;
use std::sync::Arc;

use rkb_runtime::apply::{apply, apply_status_if_changed, controller_of, set_controller_reference};
use rkb_runtime::conditions::{FALSE, TRUE, new_condition, set_condition};
use rkb_runtime::finalizer::{Event, finalizer};
use rkb_runtime::k8s_openapi::api::apps::v1::{Deployment, DeploymentSpec};
use rkb_runtime::k8s_openapi::api::core::v1::{Container, ContainerPort, PodSpec, PodTemplateSpec};
use rkb_runtime::k8s_openapi::apimachinery::pkg::apis::meta::v1::LabelSelector;
use rkb_runtime::kube::api::{DeleteParams, Preconditions};
use rkb_runtime::{Action, BoxError, Context, Controller, Error, ObjectMeta, ResourceExt};

use crate::api::v1::{DemoMicroService, DemoMicroServiceStatus};

/// Keeps a DemoMicroService from disappearing until `cleanup` has removed its Deployment.
pub const FINALIZER: &str = "demomicroservice.finalizers.devops.my.domain";

/// The port the microservice's container listens on (podinfo's default).
pub const CONTAINER_PORT: i32 = 9898;

/// Condition type: the Deployment has as many available pods as it wants.
pub const AVAILABLE: &str = "Available";
/// Condition type: the Deployment is rolling out the current spec.
pub const PROGRESSING: &str = "Progressing";

/// What can go wrong in a reconcile.
#[derive(Debug, thiserror::Error)]
pub enum ReconcileError {
    /// Applying or reading an object failed.
    #[error(transparent)]
    Runtime(#[from] Error),
    /// A Kubernetes API call failed.
    #[error(transparent)]
    Kube(#[from] rkb_runtime::kube::Error),
    /// The Deployment was asked to go but still exists (it has finalizers of its own); retried with backoff.
    #[error("Deployment {0} is still being deleted")]
    DeploymentTerminating(String),
}

/// Runs the DemoMicroService controller until the manager stops.
///
/// +kubebuilder:rbac:groups=devops.my.domain,resources=demomicroservices,verbs=list;watch;patch
/// +kubebuilder:rbac:groups=devops.my.domain,resources=demomicroservices/status,verbs=patch
/// +kubebuilder:rbac:groups=devops.my.domain,resources=demomicroservices/finalizers,verbs=update
/// +kubebuilder:rbac:groups=apps,resources=deployments,verbs=get;list;watch;create;patch;delete
pub async fn controller(ctx: Context) -> Result<(), Error> {
    // A change to an owned Deployment (someone edits it, its status moves) reconciles its DemoMicroService.
    Controller::for_kind::<DemoMicroService>(&ctx)
        .owns::<Deployment>()
        .run(reconcile)
        .await
}

/// Moves the cluster towards the state a DemoMicroService asks for. It runs for every change of the object (and of
/// its Deployment) and is idempotent; an error retries it with per-object exponential backoff.
pub async fn reconcile(obj: Arc<DemoMicroService>, ctx: Context) -> Result<Action, BoxError> {
    let api = ctx.api_in::<DemoMicroService>(&obj.namespace().unwrap_or_default());
    let action = finalizer(&api, FINALIZER, obj, |event| async {
        match event {
            Event::Apply(obj) => apply_deployment(&obj, &ctx).await,
            Event::Cleanup(obj) => cleanup(&obj, &ctx).await,
        }
    })
    .await?;
    Ok(action)
}

/// Server-side applies the Deployment `obj.spec` asks for (creating or updating it in place) and records its
/// rollout in `obj.status`.
async fn apply_deployment(obj: &DemoMicroService, ctx: &Context) -> Result<Action, ReconcileError> {
    let namespace = obj.namespace().unwrap_or_default();
    let deployments = ctx.api_in::<Deployment>(&namespace);
    let deployment = apply(&deployments, &desired_deployment(obj)?, ctx.field_manager()).await?;
    tracing::info!(image = %obj.spec.image, generation = ?deployment.metadata.generation, "applied Deployment");

    // Only the status is sent (the spec stays the user's), and only when it changed: a status write is itself a
    // change of the object, which would reconcile it again.
    let status = observed_status(obj, &deployment);
    let api = ctx.api_in::<DemoMicroService>(&namespace);
    apply_status_if_changed(&api, obj, &status, ctx.field_manager()).await?;
    Ok(Action::await_change())
}

/// Deletes the DemoMicroService's Deployment; the finalizer is removed only once it is gone.
async fn cleanup(obj: &DemoMicroService, ctx: &Context) -> Result<Action, ReconcileError> {
    let name = obj.name_any();
    let deployments = ctx.api_in::<Deployment>(&obj.namespace().unwrap_or_default());
    let Some(deployment) = deployments.get_opt(&name).await? else {
        return Ok(Action::await_change());
    };
    // A Deployment of the same name that this object does not control is someone else's: leave it alone.
    let owned =
        controller_of(&deployment).is_some_and(|r| Some(&r.uid) == obj.metadata.uid.as_ref());
    if !owned {
        return Ok(Action::await_change());
    }
    // The uid precondition makes sure we delete the Deployment we looked at, not a newer one of the same name.
    let params = DeleteParams {
        preconditions: Some(Preconditions {
            uid: deployment.metadata.uid.clone(),
            resource_version: None,
        }),
        ..DeleteParams::default()
    };
    match deployments.delete(&name, &params).await {
        // The server answers with the object while finalizers keep it, or with a Status once it is gone.
        Ok(answer)
            if answer
                .as_ref()
                .left()
                .is_some_and(|d| !d.finalizers().is_empty()) =>
        {
            Err(ReconcileError::DeploymentTerminating(name))
        }
        Ok(_) => {
            tracing::info!("deleted Deployment; removing the finalizer");
            Ok(Action::await_change())
        }
        Err(rkb_runtime::kube::Error::Api(status)) if status.is_not_found() => {
            Ok(Action::await_change())
        }
        Err(e) => Err(e.into()),
    }
}

/// The Deployment that runs `obj`: one container with its image on port 9898, pods labelled `app: <name>`, owned
/// (controller reference) by `obj`. Fields left out (replicas, strategy...) keep their defaults and are not ours,
/// so `kubectl scale` works.
pub fn desired_deployment(obj: &DemoMicroService) -> Result<Deployment, Error> {
    let name = obj.name_any();
    let labels = BTreeMap::from([("app".to_string(), name.clone())]);
    let mut deployment = Deployment {
        metadata: ObjectMeta {
            name: Some(name.clone()),
            namespace: obj.namespace(),
            ..ObjectMeta::default()
        },
        spec: Some(DeploymentSpec {
            selector: LabelSelector {
                match_labels: Some(labels.clone()),
                ..LabelSelector::default()
            },
            template: PodTemplateSpec {
                metadata: Some(ObjectMeta {
                    labels: Some(labels),
                    ..ObjectMeta::default()
                }),
                spec: Some(PodSpec {
                    containers: vec![Container {
                        name,
                        image: Some(obj.spec.image.clone()),
                        image_pull_policy: Some("Always".into()),
                        ports: Some(vec![ContainerPort {
                            container_port: CONTAINER_PORT,
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

/// The status `obj` should show given its Deployment as stored: Available once every wanted pod is available,
/// Progressing while the Deployment controller has not rolled the current spec out. Conditions keep their
/// lastTransitionTime while their status stays the same.
pub fn observed_status(obj: &DemoMicroService, deployment: &Deployment) -> DemoMicroServiceStatus {
    let generation = obj.metadata.generation;
    let wanted = deployment
        .spec
        .as_ref()
        .and_then(|s| s.replicas)
        .unwrap_or(1);
    let status = deployment.status.clone().unwrap_or_default();
    let available = status.available_replicas.unwrap_or(0);
    let updated = status.updated_replicas.unwrap_or(0);
    let seen = status.observed_generation >= deployment.metadata.generation;

    let mut conditions = obj
        .status
        .as_ref()
        .map(|s| s.conditions.clone())
        .unwrap_or_default();
    let message = format!("{available} of {wanted} pods available");
    set_condition(
        &mut conditions,
        if available >= wanted {
            new_condition(AVAILABLE, TRUE, "DeploymentAvailable", message, generation)
        } else {
            new_condition(
                AVAILABLE,
                FALSE,
                "DeploymentUnavailable",
                message,
                generation,
            )
        },
    );
    set_condition(
        &mut conditions,
        if seen && updated >= wanted && available >= wanted {
            new_condition(
                PROGRESSING,
                FALSE,
                "RolloutComplete",
                format!("{updated} of {wanted} pods updated"),
                generation,
            )
        } else {
            new_condition(
                PROGRESSING,
                TRUE,
                "RollingOut",
                format!("{updated} of {wanted} pods updated"),
                generation,
            )
        },
    );
    DemoMicroServiceStatus {
        conditions,
        observed_generation: generation,
    }
}

#[cfg(test)]
mod tests {
    use rkb_runtime::conditions::find_condition;
    use rkb_runtime::k8s_openapi::api::apps::v1::DeploymentStatus;

    use super::*;
    use crate::api::v1::DemoMicroServiceSpec;

    /// A DemoMicroService as the API server returns it (uid set) at `generation`.
    fn dms(generation: i64) -> DemoMicroService {
        let spec = DemoMicroServiceSpec {
            image: "podinfo".into(),
        };
        let mut obj = DemoMicroService::new("web", spec);
        obj.metadata.uid = Some("uid-1".into());
        obj.metadata.generation = Some(generation);
        obj
    }

    /// A Deployment at `generation` whose controller has seen `observed` and reports `updated`/`available` pods.
    fn deployment(
        generation: i64,
        observed: Option<i64>,
        updated: i32,
        available: i32,
    ) -> Deployment {
        let mut d = desired_deployment(&dms(generation)).expect("an owner with a uid");
        d.metadata.generation = Some(generation);
        d.status = Some(DeploymentStatus {
            observed_generation: observed,
            updated_replicas: Some(updated),
            available_replicas: Some(available),
            ..DeploymentStatus::default()
        });
        d
    }

    fn statuses(status: &DemoMicroServiceStatus) -> (&str, &str) {
        let of = |t| find_condition(&status.conditions, t).map_or("", |c| c.status.as_str());
        (of(AVAILABLE), of(PROGRESSING))
    }

    #[test]
    fn a_new_deployment_is_unavailable_and_progressing() {
        let status = observed_status(&dms(1), &deployment(1, None, 0, 0));
        assert_eq!(statuses(&status), (FALSE, TRUE));
        assert_eq!(status.observed_generation, Some(1));
        assert!(
            status
                .conditions
                .iter()
                .all(|c| c.observed_generation == Some(1))
        );
    }

    #[test]
    fn a_rolled_out_deployment_is_available_and_done() {
        let status = observed_status(&dms(1), &deployment(1, Some(1), 1, 1));
        assert_eq!(statuses(&status), (TRUE, FALSE));
    }

    #[test]
    fn an_unobserved_deployment_generation_is_still_progressing() {
        // The old pods are available, but the deployment controller has not seen the new template yet.
        let status = observed_status(&dms(2), &deployment(2, Some(1), 1, 1));
        assert_eq!(statuses(&status), (TRUE, TRUE));
    }

    #[test]
    fn unchanged_conditions_keep_their_transition_time_and_compare_equal() {
        let mut obj = dms(1);
        obj.status = Some(observed_status(&obj, &deployment(1, Some(1), 1, 1)));
        let again = observed_status(&obj, &deployment(1, Some(1), 1, 1));
        // Equal status means no status write, so no new watch event and no reconcile loop.
        assert_eq!(Some(&again), obj.status.as_ref());
    }

    #[test]
    fn the_deployment_is_owned_and_shaped_as_the_seed_says() {
        let d = deployment(1, None, 0, 0);
        let refs = d.metadata.owner_references.clone().unwrap_or_default();
        assert_eq!(refs.len(), 1);
        assert_eq!(
            (
                refs[0].kind.as_str(),
                refs[0].controller,
                refs[0].block_owner_deletion
            ),
            ("DemoMicroService", Some(true), Some(true))
        );
        let pod = d.spec.and_then(|s| s.template.spec).expect("pod spec");
        assert_eq!(
            pod.containers[0]
                .ports
                .as_ref()
                .map(|p| p[0].container_port),
            Some(9898)
        );
    }
}
