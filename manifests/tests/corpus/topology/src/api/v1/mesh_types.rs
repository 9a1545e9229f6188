use std::collections::BTreeMap;

use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;
use rkb_runtime::{Kind, TypeMeta};
use serde::{Deserialize, Serialize};

/// Endpoint is keyed by host and port.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Endpoint {
    /// Host name.
    pub host: String,
    /// Port number.
    pub port: i32,
    /// Weight of the endpoint.
    /// +optional
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub weight: Option<i32>,
}

/// Coordinates are replaced as a whole.
/// +structType=atomic
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Coordinates {
    /// Lat is the latitude in micro degrees.
    pub lat: i64,
    /// Lng is the longitude in micro degrees.
    pub lng: i64,
}

/// Zones is a set of zone names.
/// +listType=set
pub type Zones = Vec<String>;

/// MeshSpec exercises list, map and struct topology markers.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct MeshSpec {
    /// Members is a set.
    /// +listType=set
    /// +optional
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub members: Vec<String>,
    /// Endpoints is a map keyed by host and port.
    /// +listType=map
    /// +listMapKey=host
    /// +listMapKey=port
    /// +optional
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub endpoints: Vec<Endpoint>,
    /// Args is atomic.
    /// +listType=atomic
    /// +optional
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub args: Vec<String>,
    /// Selector is an atomic map.
    /// +mapType=atomic
    /// +optional
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub selector: BTreeMap<String, String>,
    /// Annotations is a granular map.
    /// +mapType=granular
    /// +optional
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub annotations: BTreeMap<String, String>,
    /// Origin uses an atomic struct type.
    /// +optional
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub origin: Option<Coordinates>,
    /// Target is made granular at the field.
    /// +structType=granular
    /// +optional
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub target: Option<Endpoint>,
    /// Zones uses a list type declared on the type.
    /// +optional
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub zones: Zones,
}

/// Mesh is the Schema for the meshes API.
/// +kubebuilder:object:root=true
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, Kind)]
pub struct Mesh {
    #[serde(flatten)]
    pub type_meta: TypeMeta,
    #[serde(default)]
    pub metadata: ObjectMeta,
    #[serde(default)]
    pub spec: MeshSpec,
}
