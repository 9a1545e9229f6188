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

//! The HorizontalPodAutoscaler `<fullName>` (autoscaling/v1, as in the seed): 1 to 10 pods at 81% CPU.

use rkb_runtime::k8s_openapi::api::autoscaling::v1::{
    CrossVersionObjectReference, HorizontalPodAutoscaler, HorizontalPodAutoscalerSpec,
};
use rkb_runtime::k8s_openapi::apimachinery::pkg::apis::meta::v1::OwnerReference;

use super::{child_meta, labels};
use crate::api::v1::MicroServiceDeploy;

/// The fewest pods the HPA keeps.
pub const HPA_MIN_REPLICAS: i32 = 1;
/// The most pods the HPA scales to.
pub const HPA_MAX_REPLICAS: i32 = 10;
/// The average CPU utilisation the HPA aims at.
pub const HPA_TARGET_CPU_PERCENT: i32 = 81;

/// The HPA of `msd`, controlled by `owner`, scaling its Deployment.
pub fn hpa(msd: &MicroServiceDeploy, owner: &OwnerReference) -> HorizontalPodAutoscaler {
    let spec = &msd.spec;
    HorizontalPodAutoscaler {
        metadata: child_meta(
            &spec.full_name,
            msd.metadata.namespace.as_deref(),
            labels(Some(&spec.ms_name)),
            owner,
        ),
        spec: Some(HorizontalPodAutoscalerSpec {
            min_replicas: Some(HPA_MIN_REPLICAS),
            max_replicas: HPA_MAX_REPLICAS,
            scale_target_ref: CrossVersionObjectReference {
                api_version: Some("apps/v1".into()),
                kind: "Deployment".into(),
                name: spec.full_name.clone(),
            },
            target_cpu_utilization_percentage: Some(HPA_TARGET_CPU_PERCENT),
        }),
        status: None,
    }
}
