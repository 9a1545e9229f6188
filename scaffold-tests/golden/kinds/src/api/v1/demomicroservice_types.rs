// Copyright 2026 The kinds Authors.
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
use rkb_runtime::{DeepCopy, Kind, TypeMeta};
use serde::{Deserialize, Serialize};

// EDIT THIS FILE! THIS IS SCAFFOLDING FOR YOU TO OWN!
// After editing, run `make manifests` to regenerate the CRD.

/// DemoMicroServiceSpec defines the desired state of DemoMicroService.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, DeepCopy)]
#[serde(rename_all = "camelCase")]
pub struct DemoMicroServiceSpec {
    // Add the fields of the desired state here. Doc comments become the descriptions in the CRD,
    // and validation markers in them become its validation rules.
    /// foo is an example field of DemoMicroService. Edit demomicroservice_types.rs to remove or update it.
    /// +optional
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub foo: Option<String>,
}

/// DemoMicroServiceStatus defines the observed state of DemoMicroService.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, DeepCopy)]
#[serde(rename_all = "camelCase")]
pub struct DemoMicroServiceStatus {
    /// conditions represent the current state of the DemoMicroService resource.
    /// Each condition has a unique type and reflects the status of a specific aspect of the resource.
    ///
    /// Standard condition types include:
    /// - "Available": the resource is fully functional
    /// - "Progressing": the resource is being created or updated
    /// - "Degraded": the resource failed to reach or maintain its desired state
    ///
    /// The status of each condition is one of True, False, or Unknown.
    /// +listType=map
    /// +listMapKey=type
    /// +optional
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub conditions: Vec<Condition>,
}

/// DemoMicroService is the Schema for the demomicroservices API.
/// +kubebuilder:object:root=true
/// +kubebuilder:subresource:status
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
