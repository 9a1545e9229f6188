// Copyright 2026 The demo Authors.
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

//! Conversion of DemoMicroService between v2 (a spoke) and v1 (the hub): the API server stores one
//! version and asks the manager's conversion webhook for the others (registered in
//! crate::webhook::devops::v1::demomicroservice_webhook). What v2 has and v1 has no field for must survive the
//! round trip, e.g. in an annotation of the hub object.
//!
//! When the storage version moves, crate::webhook::storage_migration() rewrites every stored DemoMicroService (a paged list,
//! an update per object, a get when one conflicts) so that etcd holds it in the new version:
//!
//! +kubebuilder:rbac:groups=devops.my.domain,resources=demomicroservices,verbs=get;list;update

use super::DemoMicroService;
use crate::api::devops::v1 as hub;

impl From<DemoMicroService> for hub::DemoMicroService {
    fn from(spoke: DemoMicroService) -> Self {
        // TODO(user): carry spec and status over; until then they convert to their defaults.
        hub::DemoMicroService {
            metadata: spoke.metadata,
            ..Default::default()
        }
    }
}

impl From<hub::DemoMicroService> for DemoMicroService {
    fn from(stored: hub::DemoMicroService) -> Self {
        // TODO(user): carry spec and status back, restoring what the hub kept for this version.
        DemoMicroService {
            metadata: stored.metadata,
            ..Default::default()
        }
    }
}
