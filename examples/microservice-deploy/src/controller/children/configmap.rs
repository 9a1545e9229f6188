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

//! The ConfigMap `<fullName>` holding the runtime configuration. Pods mount it as a volume, so the kubelet
//! refreshes the file when it changes: no restart, and the pod template does not depend on it.

use std::collections::BTreeMap;

use rkb_runtime::k8s_openapi::api::core::v1::ConfigMap;
use rkb_runtime::k8s_openapi::apimachinery::pkg::apis::meta::v1::OwnerReference;

use super::{child_meta, labels};
use crate::api::v1::MicroServiceDeploy;

/// The file name of the configuration under /home/admin/conf.
pub const CONFIG_KEY: &str = "ms.properties";

/// The ConfigMap of `msd`, controlled by `owner`: `ms.properties` = spec.config.
pub fn config_map(msd: &MicroServiceDeploy, owner: &OwnerReference) -> ConfigMap {
    let spec = &msd.spec;
    ConfigMap {
        metadata: child_meta(
            &spec.full_name,
            msd.metadata.namespace.as_deref(),
            labels(Some(&spec.ms_name)),
            owner,
        ),
        data: Some(BTreeMap::from([(
            CONFIG_KEY.to_string(),
            spec.config.clone(),
        )])),
        ..ConfigMap::default()
    }
}
