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

//! The Cluster kind: a Kubernetes cluster that an external provisioner (Rancher's `rke` in the seed) brings up
//! from a configuration file, and removes again when the object is deleted.
//!
//! The markers follow the seed's code-generator tags: `+genclient` (a typed client, lister and informer),
//! `+genclient:nonNamespaced` (cluster-scoped, like the CRD's `scope: Cluster`) and `+genclient:noStatus` (no
//! `update_status`: the status is written through the main resource). `+genclient:noStatus` only fits a CRD
//! without the status subresource: with `+kubebuilder:subresource:status` the API server would silently drop the
//! status of every PUT to the main resource, and the client would have no verb left to write it. So this kind has
//! no `+kubebuilder:subresource:status`, and the controller writes the status with `update` (a PUT carrying the
//! object's resourceVersion; see the README).

use rkb_runtime::k8s_openapi::apimachinery::pkg::apis::meta::v1::{Condition, ObjectMeta};
use rkb_runtime::{DeepCopy, Kind, TypeMeta};
use serde::{Deserialize, Serialize};

/// Condition type: the provisioner's last `up` succeeded for the current spec (seed: `ClusterConditionProvisioned`).
pub const CONDITION_PROVISIONED: &str = "Provisioned";
/// Condition type: the cluster can serve its API (seed: `ClusterConditionReady`). Without a health check of the
/// provisioned cluster it follows the outcome of the provisioner: true after a successful `up`, false while
/// provisioning failed or while the cluster is being removed.
pub const CONDITION_READY: &str = "Ready";

/// ClusterSpec defines the desired state of Cluster.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, DeepCopy)]
#[serde(rename_all = "camelCase")]
pub struct ClusterSpec {
    /// configPath is the path, on the operator's host, of the provisioner's cluster configuration
    /// (for rke, a cluster.yml). The provisioner runs `up <configPath>`; on deletion it runs `remove` with
    /// status.appliedConfig (what was provisioned), or with configPath when nothing was.
    /// +kubebuilder:validation:MinLength=1
    /// +required
    pub config_path: String,
}

/// ClusterStatus defines the observed state of Cluster.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, DeepCopy)]
#[serde(rename_all = "camelCase")]
pub struct ClusterStatus {
    /// appliedConfig is the configPath of the last successful `up`. A spec whose configPath differs from it is
    /// provisioned again.
    /// +optional
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub applied_config: String,

    /// conditions: Provisioned and Ready.
    /// +listType=map
    /// +listMapKey=type
    /// +optional
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub conditions: Vec<Condition>,
}

/// Cluster is the Schema for the clusters API: a cluster provisioned from spec.configPath.
/// +genclient
/// +genclient:noStatus
/// +genclient:nonNamespaced
/// +kubebuilder:object:root=true
/// +kubebuilder:resource:scope=Cluster
/// +kubebuilder:printcolumn:name="Config",type=string,JSONPath=`.spec.configPath`
/// +kubebuilder:printcolumn:name="Provisioned",type=string,JSONPath=`.status.conditions[?(@.type=="Provisioned")].status`
/// +kubebuilder:printcolumn:name="Ready",type=string,JSONPath=`.status.conditions[?(@.type=="Ready")].status`
/// +kubebuilder:printcolumn:name="Age",type=date,JSONPath=`.metadata.creationTimestamp`
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
