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

//! The objects a MicroServiceDeploy owns, one builder per kind, each returning exactly what the controller
//! server-side applies (the seed's YAML, section 3). Builders are pure: the controller decides when to apply.

mod configmap;
mod deployment;
mod hpa;
mod service;
mod serviceaccount;

use std::collections::BTreeMap;

use rkb_runtime::ObjectMeta;
use rkb_runtime::k8s_openapi::apimachinery::pkg::apis::meta::v1::OwnerReference;

pub use configmap::{CONFIG_KEY, config_map};
pub use deployment::{
    CONFIG_MOUNT_PATH, CREATE_AT_ANNOTATION, LAST_ROLLOUT_AT_ANNOTATION, LOG_MOUNT_PATH,
    RESTART_ANNOTATION, deployment, log_host_path, rollout_stamp,
};
pub use hpa::{HPA_MAX_REPLICAS, HPA_MIN_REPLICAS, HPA_TARGET_CPU_PERCENT, hpa};
pub use service::{HTTP_PORT, NEED_AUTH_ANNOTATION, service};
pub use serviceaccount::service_account;

/// Marks every object this operator makes, so they can be told apart from hand-made ones (the seed's label).
pub const MANAGED_LABEL: &str = "my-domain-ops-controller-make";
/// Selects the pods of a microservice (all its instances).
pub const APP_LABEL: &str = "app";

/// `my-domain-ops-controller-make: "true"`, plus `app: <app>` when given.
pub fn labels(app: Option<&str>) -> BTreeMap<String, String> {
    let mut labels = BTreeMap::from([(MANAGED_LABEL.to_string(), "true".to_string())]);
    if let Some(app) = app {
        labels.insert(APP_LABEL.to_string(), app.to_string());
    }
    labels
}

/// The metadata of a child: its name and namespace, labels, and the controller reference to its MicroServiceDeploy.
fn child_meta(
    name: &str,
    namespace: Option<&str>,
    labels: BTreeMap<String, String>,
    owner: &OwnerReference,
) -> ObjectMeta {
    ObjectMeta {
        name: Some(name.to_string()),
        namespace: namespace.map(str::to_string),
        labels: Some(labels),
        owner_references: Some(vec![owner.clone()]),
        ..ObjectMeta::default()
    }
}
