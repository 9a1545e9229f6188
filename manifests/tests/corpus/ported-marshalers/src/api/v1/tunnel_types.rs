use super::{Cidr, Endpoint, Extras, Instant, Level, Link, Schedule, Toggle};
use rkb_runtime::k8s_openapi::apimachinery::pkg::apis::meta::v1::{ListMeta, ObjectMeta};
use rkb_runtime::{DeepCopy, Kind, TypeMeta};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// Timeout is a duration written as Go writes one ("1m30s"); kube's Duration reads and writes that form.
/// +kubebuilder:validation:Type=string
pub type Timeout = kube::core::Duration;

/// TunnelSpec connects a local network to remote endpoints, with types whose JSON is not their fields.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, DeepCopy)]
#[serde(rename_all = "camelCase")]
pub struct TunnelSpec {
    /// Endpoint is the remote end of the tunnel.
    pub endpoint: Endpoint,

    /// Peers are further remote ends, tried in order.
    /// +optional
    /// +kubebuilder:validation:MaxItems=8
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub peers: Vec<Endpoint>,

    /// Backups by region.
    /// +optional
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub backups: BTreeMap<String, Endpoint>,

    /// +optional
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fallback: Option<Endpoint>,

    /// Networks routed through the tunnel.
    /// +listType=set
    pub networks: Vec<Cidr>,

    /// Docs links to the tunnel's documentation.
    /// +optional
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub docs: Option<Link>,

    /// LogLevel of the tunnel's agent.
    /// +optional
    #[serde(default)]
    pub log_level: Level,

    /// Encrypted says whether traffic is encrypted.
    pub encrypted: Toggle,

    /// Interval between keep-alive probes.
    /// +kubebuilder:validation:Type=string
    pub interval: kube::core::Duration,

    /// Timeouts by operation.
    /// +optional
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub timeouts: BTreeMap<String, Timeout>,

    /// Extras for the plugin the tunnel runs.
    /// +optional
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub extras: Option<Extras>,

    /// Window when the tunnel may be down for maintenance.
    /// +optional
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub window: Option<Schedule>,
}

/// TunnelStatus is the observed state of a Tunnel.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, DeepCopy)]
#[serde(rename_all = "camelCase")]
pub struct TunnelStatus {
    /// Since is when the tunnel came up.
    /// +optional
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub since: Option<Instant>,

    /// Handshakes by peer, each the time of the last one.
    /// +optional
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub handshakes: BTreeMap<String, Instant>,
}

/// +kubebuilder:object:root=true
/// +kubebuilder:subresource:status

/// Tunnel is the Schema for the tunnels API.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, Kind)]
pub struct Tunnel {
    #[serde(flatten)]
    pub type_meta: TypeMeta,
    #[serde(default)]
    pub metadata: ObjectMeta,

    pub spec: TunnelSpec,
    #[serde(default)]
    pub status: TunnelStatus,
}

/// +kubebuilder:object:root=true

/// TunnelList contains a list of Tunnel.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, DeepCopy)]
pub struct TunnelList {
    #[serde(flatten)]
    pub type_meta: TypeMeta,
    #[serde(default)]
    pub metadata: ListMeta,
    pub items: Vec<Tunnel>,
}
