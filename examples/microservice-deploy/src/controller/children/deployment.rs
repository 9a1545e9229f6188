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

//! The Deployment `<fullName>`: the seed's pod (section 3.2.2) with the replica count that idle and autoscaling
//! decide, and the rollout stamp that forces a restart.

use std::collections::BTreeMap;

use rkb_runtime::k8s_openapi::api::apps::v1::{Deployment, DeploymentSpec, DeploymentStrategy};
use rkb_runtime::k8s_openapi::api::core::v1::{
    ConfigMapVolumeSource, Container, ContainerPort, EnvVar, EnvVarSource, HostPathVolumeSource,
    ObjectFieldSelector, PodSpec, PodTemplateSpec, Volume, VolumeMount,
};
use rkb_runtime::k8s_openapi::apimachinery::pkg::apis::meta::v1::{LabelSelector, OwnerReference};
use rkb_runtime::{ObjectMeta, ResourceExt};

use super::{APP_LABEL, HTTP_PORT, child_meta, labels};
use crate::api::v1::MicroServiceDeploy;

/// On the Deployment: the stamp of the last forced rollout.
pub const LAST_ROLLOUT_AT_ANNOTATION: &str = "app.ops.my.domain/last-rollout-at";
/// On the pod template: the same stamp; changing it changes the template, which rolls every pod.
pub const CREATE_AT_ANNOTATION: &str = "app.ops.my.domain/create-at";
/// On the MicroServiceDeploy: set or change it (any value, e.g. the time in milliseconds) to restart all pods,
/// like `kubectl rollout restart`. Annotations do not bump metadata.generation, so the spec stays untouched.
pub const RESTART_ANNOTATION: &str = "app.ops.my.domain/restart-at";
/// Where the container writes its logs; the host keeps them under /data0/logs/<msName>/<version>.
pub const LOG_MOUNT_PATH: &str = "/home/admin/logs";
/// Where the ConfigMap appears in the container.
pub const CONFIG_MOUNT_PATH: &str = "/home/admin/conf";

const LOG_VOLUME: &str = "log";
const CONFIG_VOLUME: &str = "config";
/// The ConfigMap volume's file mode, 0644 (the seed's 420).
const CONFIG_FILE_MODE: i32 = 0o644;

/// The host directory the logs of `msd` go to.
pub fn log_host_path(msd: &MicroServiceDeploy) -> String {
    format!("/data0/logs/{}/{}", msd.spec.ms_name, msd.spec.version)
}

/// The value of last-rollout-at and create-at: the restart annotation when present, else spec.creationTimestamp,
/// else the object's own creation time in milliseconds. It is derived from the object, never from the clock, so
/// reconciling again changes nothing and only an explicit restart rolls the pods.
pub fn rollout_stamp(msd: &MicroServiceDeploy) -> String {
    if let Some(restart) = msd.annotations().get(RESTART_ANNOTATION) {
        return restart.clone();
    }
    if !msd.spec.creation_timestamp.is_empty() {
        return msd.spec.creation_timestamp.clone();
    }
    msd.metadata
        .creation_timestamp
        .as_ref()
        .map(|t| t.0.as_millisecond().to_string())
        .unwrap_or_default()
}

/// The replica count to apply: none while the HPA decides (so server-side apply leaves the field to it),
/// zero while idle.
fn replicas(msd: &MicroServiceDeploy) -> Option<i32> {
    if msd.spec.idle {
        Some(0)
    } else if msd.spec.autoscaling {
        None
    } else {
        Some(msd.spec.replicas)
    }
}

/// The Deployment of `msd`, controlled by `owner`.
pub fn deployment(msd: &MicroServiceDeploy, owner: &OwnerReference) -> Deployment {
    let spec = &msd.spec;
    let stamp = rollout_stamp(msd);
    let mut metadata = child_meta(
        &spec.full_name,
        msd.metadata.namespace.as_deref(),
        labels(Some(spec.ms_name.as_str())),
        owner,
    );
    metadata.annotations = Some(BTreeMap::from([(
        LAST_ROLLOUT_AT_ANNOTATION.to_string(),
        stamp.clone(),
    )]));

    Deployment {
        metadata,
        spec: Some(DeploymentSpec {
            replicas: replicas(msd),
            selector: LabelSelector {
                match_labels: Some(pod_labels(msd)),
                ..LabelSelector::default()
            },
            strategy: Some(DeploymentStrategy {
                type_: Some("RollingUpdate".into()),
                ..DeploymentStrategy::default()
            }),
            template: pod_template(msd, stamp),
            ..DeploymentSpec::default()
        }),
        status: None,
    }
}

/// The labels of the pods, which the Deployment's selector matches.
fn pod_labels(msd: &MicroServiceDeploy) -> BTreeMap<String, String> {
    BTreeMap::from([(APP_LABEL.to_string(), msd.spec.ms_name.clone())])
}

/// The pod template, annotated with the rollout `stamp`: a new stamp changes the template and so rolls every pod.
fn pod_template(msd: &MicroServiceDeploy, stamp: String) -> PodTemplateSpec {
    PodTemplateSpec {
        metadata: Some(ObjectMeta {
            labels: Some(pod_labels(msd)),
            annotations: Some(BTreeMap::from([
                (CREATE_AT_ANNOTATION.to_string(), stamp),
                ("prometheus.io/scrape".to_string(), "true".to_string()),
            ])),
            ..ObjectMeta::default()
        }),
        spec: Some(PodSpec {
            service_account_name: Some(msd.spec.ms_name.clone()),
            containers: vec![app_container(msd)],
            init_containers: Some(vec![log_permissions_container()]),
            volumes: Some(pod_volumes(msd)),
            ..PodSpec::default()
        }),
    }
}

/// The service's container: its image and HTTP port, the pod's identity in the environment, the log directory
/// and the ConfigMap mounted.
fn app_container(msd: &MicroServiceDeploy) -> Container {
    let spec = &msd.spec;
    Container {
        name: spec.ms_name.clone(),
        image: Some(spec.image.clone()),
        image_pull_policy: Some("Always".into()),
        env: Some(vec![
            field_ref_env("POD_NAME", "metadata.name"),
            field_ref_env("SERVICE_NAME", &format!("metadata.labels['{APP_LABEL}']")),
        ]),
        ports: Some(vec![ContainerPort {
            container_port: HTTP_PORT,
            protocol: Some("TCP".into()),
            ..ContainerPort::default()
        }]),
        resources: spec.resource_requirements.clone(),
        volume_mounts: Some(vec![
            log_mount(),
            VolumeMount {
                name: CONFIG_VOLUME.into(),
                mount_path: CONFIG_MOUNT_PATH.into(),
                ..VolumeMount::default()
            },
        ]),
        ..Container::default()
    }
}

/// The init container that makes the log directory writable before the service starts.
fn log_permissions_container() -> Container {
    // Host directories are created root-owned; the service may run as another user, so open them up first.
    Container {
        name: "log-volume-mount-hack".into(),
        image: Some("busybox".into()),
        image_pull_policy: Some("Always".into()),
        command: Some(vec![
            "sh".into(),
            "-c".into(),
            format!("chmod -R 777 {LOG_MOUNT_PATH} || exit 0"),
        ]),
        volume_mounts: Some(vec![log_mount()]),
        ..Container::default()
    }
}

/// The log volume at its mount path, shared by the service and the init container.
fn log_mount() -> VolumeMount {
    VolumeMount {
        name: LOG_VOLUME.into(),
        mount_path: LOG_MOUNT_PATH.into(),
        ..VolumeMount::default()
    }
}

/// The pod's volumes: the host directory the logs go to, and the ConfigMap `<fullName>`.
fn pod_volumes(msd: &MicroServiceDeploy) -> Vec<Volume> {
    vec![
        Volume {
            name: LOG_VOLUME.into(),
            host_path: Some(HostPathVolumeSource {
                path: log_host_path(msd),
                type_: Some("DirectoryOrCreate".into()),
            }),
            ..Volume::default()
        },
        Volume {
            name: CONFIG_VOLUME.into(),
            config_map: Some(ConfigMapVolumeSource {
                name: msd.spec.full_name.clone(),
                default_mode: Some(CONFIG_FILE_MODE),
                ..ConfigMapVolumeSource::default()
            }),
            ..Volume::default()
        },
    ]
}

/// An environment variable taken from the pod's own fields (the downward API).
fn field_ref_env(name: &str, field_path: &str) -> EnvVar {
    EnvVar {
        name: name.into(),
        value_from: Some(EnvVarSource {
            field_ref: Some(ObjectFieldSelector {
                api_version: Some("v1".into()),
                field_path: field_path.into(),
            }),
            ..EnvVarSource::default()
        }),
        ..EnvVar::default()
    }
}
