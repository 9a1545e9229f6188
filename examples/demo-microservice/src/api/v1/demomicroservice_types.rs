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

//! The DemoMicroService kind: its spec (desired state) and status (observed state).

use rkb_runtime::k8s_openapi::apimachinery::pkg::apis::meta::v1::{Condition, ObjectMeta};
use rkb_runtime::{Kind, TypeMeta};
use serde::{Deserialize, Serialize};

/// DemoMicroServiceSpec defines the desired state of DemoMicroService: the microservice is its container image, the
/// rest of the Deployment is left at sensible defaults.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct DemoMicroServiceSpec {
    /// image is the container image the microservice runs, e.g. stefanprodan/podinfo:0.0.1.
    /// +kubebuilder:validation:MinLength=1
    /// +required
    pub image: String,
}

/// DemoMicroServiceStatus defines the observed state of DemoMicroService.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct DemoMicroServiceStatus {
    /// conditions represent the current state of the DemoMicroService resource.
    ///
    /// - "Available": the Deployment has the minimum number of ready pods
    /// - "Progressing": the Deployment is rolling out the current spec
    ///
    /// The status of each condition is one of True, False, or Unknown.
    /// +listType=map
    /// +listMapKey=type
    /// +optional
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub conditions: Vec<Condition>,

    /// observedGeneration is the metadata.generation this status was computed from.
    /// +optional
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub observed_generation: Option<i64>,
}

/// DemoMicroService is the Schema for the demomicroservices API.
/// +kubebuilder:object:root=true
/// +kubebuilder:subresource:status
/// +kubebuilder:resource:shortName=dms
/// +kubebuilder:printcolumn:name="Image",type=string,JSONPath=`.spec.image`
/// +kubebuilder:printcolumn:name="Available",type=string,JSONPath=`.status.conditions[?(@.type=="Available")].status`
/// +kubebuilder:printcolumn:name="Age",type=date,JSONPath=`.metadata.creationTimestamp`
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, Kind)]
pub struct DemoMicroService {
    #[serde(flatten)]
    pub type_meta: TypeMeta,

    /// metadata is a standard object metadata
    /// +optional
    #[serde(default)]
    pub metadata: ObjectMeta,

    /// spec defines the desired state of DemoMicroService
    /// +required
    pub spec: DemoMicroServiceSpec,

    /// status defines the observed state of DemoMicroService
    /// +optional
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status: Option<DemoMicroServiceStatus>,
}
