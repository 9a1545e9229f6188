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

//! The MicroServiceDeploy kind: one instance (one version) of a microservice, as the seed's operations platform
//! deploys it. Field names and meanings are the seed's (section 3.1).

use rkb_runtime::k8s_openapi::api::core::v1::ResourceRequirements;
use rkb_runtime::k8s_openapi::apimachinery::pkg::apis::meta::v1::{Condition, ObjectMeta};
use rkb_runtime::{DeepCopy, Kind, TypeMeta};
use serde::{Deserialize, Serialize};

/// MicroServiceDeploySpec defines the desired state of MicroServiceDeploy.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, DeepCopy)]
#[serde(rename_all = "camelCase")]
pub struct MicroServiceDeploySpec {
    /// msName is the microservice's name: it names the Service and ServiceAccount, and labels the pods app=<msName>.
    /// +kubebuilder:validation:MinLength=1
    /// +kubebuilder:validation:MaxLength=63
    /// +kubebuilder:validation:Pattern=`^[a-z0-9]([-a-z0-9]*[a-z0-9])?$`
    pub ms_name: String,

    /// fullName is the name of this instance of the microservice: it names the Deployment, ConfigMap and HPA.
    /// +kubebuilder:validation:MinLength=1
    /// +kubebuilder:validation:MaxLength=253
    /// +kubebuilder:validation:Pattern=`^[a-z0-9]([-a-z0-9]*[a-z0-9])?$`
    pub full_name: String,

    /// version of this instance, e.g. "1.0"; it names the host log directory /data0/logs/<msName>/<version>.
    /// +kubebuilder:validation:MinLength=1
    pub version: String,

    /// path is the major version of the instance, part of its domain name at the gateway.
    /// +optional
    #[serde(default)]
    pub path: String,

    /// image is the container image of the microservice.
    /// +kubebuilder:validation:MinLength=1
    pub image: String,

    /// replicas is the number of pods while the instance is neither idle nor autoscaled.
    /// +kubebuilder:validation:Minimum=0
    /// +kubebuilder:default=1
    /// +optional
    #[serde(default = "default_replicas")]
    pub replicas: i32,

    /// autoscaling hands the replica count to an HPA (1 to 10 pods, 81% CPU).
    /// +optional
    #[serde(default)]
    pub autoscaling: bool,

    /// needAuth says whether callers need tenant authentication; the gateway reads it from the Service
    /// annotation app.ops.my.domain/need-auth.
    /// +optional
    #[serde(default)]
    pub need_auth: bool,

    /// config is the runtime configuration, mounted as /home/admin/conf/ms.properties.
    /// +optional
    #[serde(default)]
    pub config: String,

    /// creationTimestamp is when the platform created this instance (milliseconds since the epoch, as a string).
    /// It is the pods' app.ops.my.domain/create-at annotation until a restart is requested.
    /// +optional
    #[serde(default)]
    pub creation_timestamp: String,

    /// resourceRequirements are the container's requests and limits.
    /// +optional
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub resource_requirements: Option<ResourceRequirements>,

    /// idle scales the instance to zero pods (and removes its HPA) without deleting anything else.
    /// +optional
    #[serde(default)]
    pub idle: bool,
}

fn default_replicas() -> i32 {
    1
}

/// MicroServiceDeployStatus defines the observed state of MicroServiceDeploy.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, DeepCopy)]
#[serde(rename_all = "camelCase")]
pub struct MicroServiceDeployStatus {
    /// conditions represent the current state of the MicroServiceDeploy resource.
    /// "Ready" is True once every child object has been applied for observedGeneration.
    /// +listType=map
    /// +listMapKey=type
    /// +optional
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub conditions: Vec<Condition>,

    /// observedGeneration is the metadata.generation the conditions describe.
    /// +optional
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub observed_generation: Option<i64>,
}

/// MicroServiceDeploy is the Schema for the microservicedeploys API.
/// +kubebuilder:object:root=true
/// +kubebuilder:subresource:status
/// +kubebuilder:resource:shortName=msd
/// +kubebuilder:printcolumn:name="Image",type=string,JSONPath=`.spec.image`
/// +kubebuilder:printcolumn:name="Replicas",type=integer,JSONPath=`.spec.replicas`
/// +kubebuilder:printcolumn:name="Idle",type=boolean,JSONPath=`.spec.idle`
/// +kubebuilder:printcolumn:name="Ready",type=string,JSONPath=`.status.conditions[?(@.type=="Ready")].status`
/// +kubebuilder:printcolumn:name="Age",type=date,JSONPath=`.metadata.creationTimestamp`
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, Kind)]
pub struct MicroServiceDeploy {
    #[serde(flatten)]
    pub type_meta: TypeMeta,

    /// metadata is a standard object metadata
    /// +optional
    #[serde(default)]
    pub metadata: ObjectMeta,

    /// spec defines the desired state of MicroServiceDeploy
    /// +required
    pub spec: MicroServiceDeploySpec,

    /// status defines the observed state of MicroServiceDeploy
    /// +optional
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status: Option<MicroServiceDeployStatus>,
}
