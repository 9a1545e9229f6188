// Copyright 2026 The cluster-provisioner Authors.
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

//! The Cluster kind: its spec (desired state) and status (observed state).

use rkb_runtime::k8s_openapi::apimachinery::pkg::apis::meta::v1::{Condition, ObjectMeta};
use rkb_runtime::{Kind, TypeMeta};
use serde::{Deserialize, Serialize};

// EDIT THIS FILE! THIS IS SCAFFOLDING FOR YOU TO OWN!
// After editing, run `make manifests` to regenerate the CRD.

/// ClusterSpec defines the desired state of Cluster.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ClusterSpec {
    // Add the fields of the desired state here. Doc comments become the descriptions in the CRD,
    // and validation markers in them become its validation rules.
    /// foo is an example field of Cluster. Edit cluster_types.rs to remove or update it.
    /// +optional
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub foo: Option<String>,
}

/// ClusterStatus defines the observed state of Cluster.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ClusterStatus {
    /// conditions represent the current state of the Cluster resource.
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

/// Cluster is the Schema for the clusters API.
/// +kubebuilder:object:root=true
/// +kubebuilder:subresource:status
/// +kubebuilder:resource:scope=Cluster
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, Kind)]
pub struct Cluster {
    #[serde(flatten)]
    pub type_meta: TypeMeta,

    /// metadata is a standard object metadata
    /// +optional
    #[serde(default)]
    pub metadata: ObjectMeta,

    /// spec defines the desired state of Cluster
    /// +required
    pub spec: ClusterSpec,

    /// status defines the observed state of Cluster
    /// +optional
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status: Option<ClusterStatus>,
}
