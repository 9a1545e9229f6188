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

//! The ServiceAccount `<msName>` the pods run as.

use rkb_runtime::k8s_openapi::api::core::v1::ServiceAccount;
use rkb_runtime::k8s_openapi::apimachinery::pkg::apis::meta::v1::OwnerReference;

use super::{child_meta, labels};
use crate::api::v1::MicroServiceDeploy;

/// The ServiceAccount of `msd`, controlled by `owner`. The seed labels it without `app`.
pub fn service_account(msd: &MicroServiceDeploy, owner: &OwnerReference) -> ServiceAccount {
    ServiceAccount {
        metadata: child_meta(
            &msd.spec.ms_name,
            msd.metadata.namespace.as_deref(),
            labels(None),
            owner,
        ),
        ..ServiceAccount::default()
    }
}
