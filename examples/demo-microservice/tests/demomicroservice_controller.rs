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

//! The DemoMicroService controller against a real kube-apiserver, etcd and kube-controller-manager (`make
//! setup-envtest` builds them once; `make test` runs this with KUBEBUILDER_ASSETS set).
//!
//! One control plane serves the whole story, in order: create (the exact Deployment), status, update in place,
//! drift repair, and deletion through the finalizer. No deployment controller or kubelet runs, so the test plays
//! the deployment controller by writing the Deployment's status itself.

use std::collections::BTreeMap;
use std::time::Duration;

use futures::stream::BoxStream;
use futures::{StreamExt, TryStreamExt};
use rkb_runtime::conditions::{FALSE, TRUE, find_condition};
use rkb_runtime::envtest::{Environment, eventually};
use rkb_runtime::k8s_openapi::api::apps::v1::Deployment;
use rkb_runtime::k8s_openapi::api::core::v1::ContainerPort;
use rkb_runtime::k8s_openapi::apimachinery::pkg::apis::meta::v1::{OwnerReference, Time};
use rkb_runtime::kube::api::{
    DeleteParams, ListParams, Patch, PatchParams, PostParams, WatchEvent, WatchParams,
};
use rkb_runtime::kube::{Api, Client, Resource};
use rkb_runtime::{Manager, ManagerOptions, ResourceExt, RunningManager};
use serde_json::json;

use demo_microservice::api::v1::{DemoMicroService, DemoMicroServiceSpec};
use demo_microservice::controller::demomicroservice_controller::{
    AVAILABLE, FINALIZER, PROGRESSING, controller,
};

const MANAGER: &str = "demo-microservice-test";
const NAMESPACE: &str = "default";
const NAME: &str = "demomicroservice-sample";
/// A finalizer of someone else's, to keep the Deployment terminating.
const HOLD: &str = "test.example.com/hold";
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

fn container_image(deployment: &Deployment) -> Option<String> {
    deployment
        .spec
        .as_ref()?
        .template
        .spec
        .as_ref()?
        .containers
        .first()?
        .image
        .clone()
}

/// Waits for the Deployment to exist with `image`.
async fn deployment_with_image(
    deployments: &Api<Deployment>,
    image: &str,
) -> anyhow::Result<Deployment> {
    eventually(&format!("the Deployment runs {image}"), TIMEOUT, || async {
        Ok::<_, rkb_runtime::kube::Error>(
            deployments
                .get_opt(NAME)
                .await?
                .filter(|d| container_image(d).as_deref() == Some(image)),
        )
    })
    .await
    .map_err(Into::into)
}

/// Plays the deployment controller: all `replicas` pods of the current generation are up and available.
async fn report_rollout_done(deployments: &Api<Deployment>) -> anyhow::Result<()> {
    let current = deployments.get(NAME).await?;
    let status = json!({ "status": {
        "observedGeneration": current.metadata.generation,
        "replicas": 1, "updatedReplicas": 1, "readyReplicas": 1, "availableReplicas": 1,
    }});
    deployments
        .patch_status(NAME, &PatchParams::default(), &Patch::Merge(&status))
        .await?;
    Ok(())
}

/// Waits for the DemoMicroService's status to show `available` / `progressing` for `generation`.
async fn status_is(
    api: &Api<DemoMicroService>,
    generation: i64,
    available: &str,
    progressing: &str,
) -> anyhow::Result<DemoMicroService> {
    eventually(
        &format!(
            "status says Available={available} Progressing={progressing} at generation {generation}"
        ),
        TIMEOUT,
        || async {
            let obj = api.get(NAME).await?;
            let status = obj.status.clone().unwrap_or_default();
            let is = |type_: &str, want: &str| {
                find_condition(&status.conditions, type_)
                    .is_some_and(|c| c.status == want && c.observed_generation == Some(generation))
            };
            let done = status.observed_generation == Some(generation)
                && is(AVAILABLE, available)
                && is(PROGRESSING, progressing);
            Ok::<_, rkb_runtime::kube::Error>(done.then_some(obj))
        },
    )
    .await
    .map_err(Into::into)
}

/// A raw watch: every event of one object, each with the etcd revision it happened at.
type Events<K> = BoxStream<'static, Result<WatchEvent<K>, rkb_runtime::kube::Error>>;

/// Opens a watch on the object called NAME of kind K from now on.
async fn watch_named<K>(api: &Api<K>) -> anyhow::Result<Events<K>>
where
    K: Resource + Clone + serde::de::DeserializeOwned + std::fmt::Debug + Send + 'static,
{
    let selector = format!("metadata.name={NAME}");
    let list = api
        .list_metadata(&ListParams::default().fields(&selector))
        .await?;
    let version = list.metadata.resource_version.unwrap_or_default();
    Ok(api
        .watch(
            &WatchParams::default().fields(&selector).timeout(60),
            &version,
        )
        .await?
        .boxed())
}

/// The etcd revision at which the watched object was deleted.
async fn deleted_at<K: Resource>(mut events: Events<K>) -> anyhow::Result<u64> {
    let deleted = tokio::time::timeout(TIMEOUT, async {
        while let Some(event) = events.try_next().await? {
            if let WatchEvent::Deleted(obj) = event {
                return Ok(obj.meta().resource_version.clone().unwrap_or_default());
            }
        }
        anyhow::bail!("the watch ended before the object was deleted")
    })
    .await
    .map_err(|_| anyhow::anyhow!("timed out waiting for the deletion"))??;
    Ok(deleted.parse()?)
}

/// What the story's steps share: the DemoMicroService and Deployment APIs (as the test's admin), and the client
/// the manager runs with.
struct Story {
    api: Api<DemoMicroService>,
    deployments: Api<Deployment>,
    manager_client: Client,
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_demomicroservice_runs_as_a_deployment_from_creation_to_deletion() -> anyhow::Result<()> {
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
    let story = Story {
        api: Api::namespaced(client.clone(), NAMESPACE),
        deployments: Api::namespaced(client, NAMESPACE),
        manager_client,
    };
    let manager = start_manager(&story.manager_client).await?;

    story.an_empty_image_is_refused().await?;
    let deployment = story.create_makes_the_seeds_deployment().await?;
    let available_since = story.status_follows_the_rollout().await?;
    story
        .an_update_changes_the_deployment_in_place(&deployment, available_since)
        .await?;
    story.a_hand_edit_is_put_back(&deployment).await?;
    manager.stop().await?;
    story
        .the_finalizer_holds_the_object_while_the_controller_is_away(&deployment)
        .await?;
    story
        .the_deployment_goes_before_the_demomicroservice()
        .await?;

    env.stop().await?;
    Ok(())
}

impl Story {
    /// The CRD validates: an image is required and not empty.
    async fn an_empty_image_is_refused(&self) -> anyhow::Result<()> {
        let empty = DemoMicroService::new(
            "no-image",
            DemoMicroServiceSpec {
                image: String::new(),
            },
        );
        let refused = self.api.create(&PostParams::default(), &empty).await;
        assert!(
            matches!(&refused, Err(rkb_runtime::kube::Error::Api(s)) if s.code == 422),
            "an empty spec.image must be refused with 422, got {refused:?}"
        );
        Ok(())
    }

    /// Create: the Deployment the seed describes, owned by the DemoMicroService, written by server-side apply.
    async fn create_makes_the_seeds_deployment(&self) -> anyhow::Result<Deployment> {
        let spec = DemoMicroServiceSpec {
            image: "stefanprodan/podinfo:0.0.1".into(),
        };
        let created = self
            .api
            .create(&PostParams::default(), &DemoMicroService::new(NAME, spec))
            .await?;
        let deployment =
            deployment_with_image(&self.deployments, "stefanprodan/podinfo:0.0.1").await?;
        let labels = BTreeMap::from([("app".to_string(), NAME.to_string())]);
        assert_eq!(deployment.metadata.namespace.as_deref(), Some(NAMESPACE));
        assert_eq!(
            deployment.metadata.owner_references,
            Some(vec![OwnerReference {
                api_version: "devops.my.domain/v1".into(),
                kind: "DemoMicroService".into(),
                name: NAME.into(),
                uid: created.uid().expect("the server sets a uid"),
                controller: Some(true),
                block_owner_deletion: Some(true),
            }])
        );
        let spec = deployment.spec.clone().expect("a Deployment has a spec");
        assert_eq!(
            spec.replicas,
            Some(1),
            "replicas is left to the API server's default"
        );
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
        let container = &pod.containers[0];
        assert_eq!(container.name, NAME);
        assert_eq!(container.image_pull_policy.as_deref(), Some("Always"));
        assert_eq!(
            container.ports,
            Some(vec![ContainerPort {
                container_port: 9898,
                protocol: Some("TCP".into()),
                ..ContainerPort::default()
            }])
        );
        let applied_by: Vec<_> = deployment
            .metadata
            .managed_fields
            .iter()
            .flatten()
            .map(|m| {
                (
                    m.manager.as_deref().unwrap_or_default(),
                    m.operation.as_deref().unwrap_or_default(),
                )
            })
            .collect();
        assert_eq!(
            applied_by,
            [(MANAGER, "Apply")],
            "written by server-side apply only"
        );
        assert!(
            self.api
                .get(NAME)
                .await?
                .finalizers()
                .iter()
                .any(|f| f == FINALIZER),
            "the finalizer is set"
        );
        Ok(deployment)
    }

    /// Status follows the Deployment: nothing available yet, then the rollout completes. Returns when Available
    /// turned true.
    async fn status_follows_the_rollout(&self) -> anyhow::Result<Time> {
        status_is(&self.api, 1, FALSE, TRUE).await?;
        report_rollout_done(&self.deployments).await?;
        let ready = status_is(&self.api, 1, TRUE, FALSE).await?;
        Ok(
            find_condition(&ready.status.unwrap_or_default().conditions, AVAILABLE)
                .map(|c| c.last_transition_time.clone())
                .expect("Available is set"),
        )
    }

    /// Update: a new image changes the same Deployment in place (the seed's create failed with "already exists").
    /// While the new generation rolls out, Available keeps the transition time it had.
    async fn an_update_changes_the_deployment_in_place(
        &self,
        deployment: &Deployment,
        available_since: Time,
    ) -> anyhow::Result<()> {
        let new_image = json!({ "spec": { "image": "stefanprodan/podinfo:0.0.2" } });
        self.api
            .patch(NAME, &PatchParams::default(), &Patch::Merge(&new_image))
            .await?;
        let updated =
            deployment_with_image(&self.deployments, "stefanprodan/podinfo:0.0.2").await?;
        assert_eq!(
            updated.uid(),
            deployment.uid(),
            "the Deployment is updated, not replaced"
        );
        assert_eq!(updated.metadata.generation, Some(2));
        let rolling = status_is(&self.api, 2, TRUE, TRUE).await?;
        let available = find_condition(
            &rolling.status.clone().unwrap_or_default().conditions,
            AVAILABLE,
        )
        .cloned();
        assert_eq!(
            available.map(|c| c.last_transition_time),
            Some(available_since)
        );
        report_rollout_done(&self.deployments).await?;
        status_is(&self.api, 2, TRUE, FALSE).await?;
        Ok(())
    }

    /// Drift: a hand edit of the Deployment is put back (the controller watches the Deployments it owns).
    async fn a_hand_edit_is_put_back(&self, deployment: &Deployment) -> anyhow::Result<()> {
        let hand_edit = json!({ "spec": { "template": { "spec": { "containers": [
            { "name": NAME, "image": "localhost:5000/hand-edited:1" }
        ]}}}});
        let edited = self
            .deployments
            .patch(NAME, &PatchParams::default(), &Patch::Strategic(&hand_edit))
            .await?;
        assert_eq!(
            container_image(&edited).as_deref(),
            Some("localhost:5000/hand-edited:1")
        );
        let repaired =
            deployment_with_image(&self.deployments, "stefanprodan/podinfo:0.0.2").await?;
        assert_eq!(repaired.uid(), deployment.uid());
        Ok(())
    }

    /// Delete with the controller stopped: the finalizer holds the DemoMicroService, and its Deployment stays.
    /// A foreign finalizer on the Deployment will keep it terminating for a while once the controller deletes it.
    async fn the_finalizer_holds_the_object_while_the_controller_is_away(
        &self,
        deployment: &Deployment,
    ) -> anyhow::Result<()> {
        let (api, deployments) = (&self.api, &self.deployments);
        let hold = json!({ "metadata": { "finalizers": [HOLD] } });
        deployments
            .patch(NAME, &PatchParams::default(), &Patch::Merge(&hold))
            .await?;
        api.delete(NAME, &DeleteParams::default()).await?;
        // The stopped manager writes nothing; the garbage collector, the only other actor, reads
        // DemoMicroServices in order: once it has handled a later deletion, it has seen this one and done whatever
        // it was to do about it. (A foreground deletion waits for the garbage collector to release it.)
        api.create(
            &PostParams::default(),
            &DemoMicroService::new("gc-witness", DemoMicroServiceSpec { image: "w".into() }),
        )
        .await?;
        api.delete("gc-witness", &DeleteParams::foreground())
            .await?;
        eventually(
            "the garbage collector releases gc-witness",
            TIMEOUT,
            || async {
                Ok::<_, rkb_runtime::kube::Error>(
                    api.get_opt("gc-witness").await?.is_none().then_some(()),
                )
            },
        )
        .await?;
        let held = api
            .get_opt(NAME)
            .await?
            .expect("the finalizer keeps the DemoMicroService");
        assert!(held.metadata.deletion_timestamp.is_some());
        assert_eq!(held.finalizers(), [FINALIZER]);
        let kept = deployments.get(NAME).await?;
        assert_eq!(kept.uid(), deployment.uid());
        assert!(
            kept.metadata.deletion_timestamp.is_none(),
            "nobody deleted the Deployment yet"
        );
        Ok(())
    }

    /// With the controller back, the Deployment is deleted; while it terminates, the DemoMicroService waits; once
    /// it is gone, so is the DemoMicroService, in that order (etcd revisions order them).
    async fn the_deployment_goes_before_the_demomicroservice(&self) -> anyhow::Result<()> {
        let (api, deployments) = (&self.api, &self.deployments);
        let deployment_events = watch_named(deployments).await?;
        let dms_events = watch_named(api).await?;
        let manager = start_manager(&self.manager_client).await?;
        eventually("the controller deletes the Deployment", TIMEOUT, || async {
            Ok::<_, rkb_runtime::kube::Error>(
                deployments
                    .get(NAME)
                    .await?
                    .metadata
                    .deletion_timestamp
                    .map(|_| ()),
            )
        })
        .await?;
        // Reconciles run one at a time: once a DemoMicroService created now is reconciled, the reconcile that
        // deleted the Deployment has ended, and released the finalizer if it was going to.
        api.create(
            &PostParams::default(),
            &DemoMicroService::new("witness", DemoMicroServiceSpec { image: "w".into() }),
        )
        .await?;
        eventually("the controller to reconcile witness", TIMEOUT, || async {
            Ok::<_, rkb_runtime::kube::Error>(deployments.get_opt("witness").await?.map(|_| ()))
        })
        .await?;
        let waiting = api
            .get_opt(NAME)
            .await?
            .expect("the DemoMicroService waits for its Deployment");
        assert_eq!(waiting.finalizers(), [FINALIZER]);

        let release = json!({ "metadata": { "finalizers": null } });
        deployments
            .patch(NAME, &PatchParams::default(), &Patch::Merge(&release))
            .await?;
        let deployment_gone = deleted_at(deployment_events).await?;
        let dms_gone = deleted_at(dms_events).await?;
        assert!(
            deployment_gone < dms_gone,
            "the Deployment (deleted at revision {deployment_gone}) must go before the DemoMicroService \
             (revision {dms_gone})"
        );
        assert!(deployments.get_opt(NAME).await?.is_none());
        assert!(api.get_opt(NAME).await?.is_none());
        manager.stop().await?;
        Ok(())
    }
}
