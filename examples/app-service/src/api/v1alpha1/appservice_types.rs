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

//! The AppService kind: its spec (desired state) and status (observed state).

use rkb_runtime::k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;
use rkb_runtime::{Kind, TypeMeta};
use serde::{Deserialize, Serialize};

/// The container port used when spec.port is not set (the API server fills it in from the CRD's default).
pub const DEFAULT_PORT: i32 = 80;

/// AppServiceSpec defines the desired state of AppService: an application run as a Deployment of `replicas` pods
/// and exposed inside the cluster by a Service.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct AppServiceSpec {
    /// replicas is the number of pods the application runs.
    /// +kubebuilder:validation:Minimum=0
    /// +required
    pub replicas: i32,

    /// image is the container image of the application, e.g. nginx:1.27.
    /// +kubebuilder:validation:MinLength=1
    /// +required
    pub image: String,

    /// port is the port the container listens on; the Service exposes it under the same number.
    /// +kubebuilder:validation:Minimum=1
    /// +kubebuilder:validation:Maximum=65535
    /// +kubebuilder:default=80
    /// +optional
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub port: Option<i32>,
}

impl AppServiceSpec {
    /// The container and Service port.
    pub fn port(&self) -> i32 {
        self.port.unwrap_or(DEFAULT_PORT)
    }
}

/// AppServiceStatus defines the observed state of AppService.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct AppServiceStatus {
    /// availableReplicas is the number of the Deployment's pods that are available (its status.availableReplicas).
    /// +optional
    #[serde(default)]
    pub available_replicas: i32,

    /// observedGeneration is the metadata.generation the Deployment and Service were last applied for.
    /// +optional
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub observed_generation: Option<i64>,
}

/// AppService is the Schema for the appservices API.
/// +kubebuilder:object:root=true
/// +kubebuilder:subresource:status
/// +kubebuilder:printcolumn:name="Replicas",type=integer,JSONPath=`.spec.replicas`
/// +kubebuilder:printcolumn:name="Available",type=integer,JSONPath=`.status.availableReplicas`
/// +kubebuilder:printcolumn:name="Image",type=string,JSONPath=`.spec.image`
/// +kubebuilder:printcolumn:name="Age",type=date,JSONPath=`.metadata.creationTimestamp`
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, Kind)]
pub struct AppService {
    #[serde(flatten)]
    pub type_meta: TypeMeta,

    /// metadata is a standard object metadata
    /// +optional
    #[serde(default)]
    pub metadata: ObjectMeta,

    /// spec defines the desired state of AppService
    /// +required
    pub spec: AppServiceSpec,

    /// status defines the observed state of AppService
    /// +optional
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status: Option<AppServiceStatus>,
}
