use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;
use rkb_runtime::{Kind, TypeMeta};
use serde::{Deserialize, Serialize};

/// Color of a light.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub enum Color {
    #[default]
    Red,
    Amber,
    Green,
}

/// Mode is how the light behaves.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Mode {
    #[default]
    Steady,
    Blinking,
    Off,
}

/// Protocol names follow the wire spelling.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "UPPERCASE")]
pub enum Protocol {
    Http,
    Https,
    #[serde(rename = "grpc-web")]
    GrpcWeb,
}

/// LightSpec uses enums.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct LightSpec {
    /// Color shown now.
    pub color: Color,
    /// Mode of operation.
    /// +kubebuilder:default=steady
    /// +optional
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mode: Option<Mode>,
    /// Protocols accepted.
    /// +optional
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub protocols: Vec<Protocol>,
    /// Fallback color, narrowed by a field enum.
    /// +kubebuilder:validation:Enum=Red;Amber
    /// +optional
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fallback: Option<String>,
}

/// LightStatus reports the observed color.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct LightStatus {
    /// Observed color.
    /// +optional
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub observed: Option<Color>,
}

/// Light is the Schema for the lights API.
/// +kubebuilder:object:root=true
/// +kubebuilder:subresource:status
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, Kind)]
pub struct Light {
    #[serde(flatten)]
    pub type_meta: TypeMeta,
    #[serde(default)]
    pub metadata: ObjectMeta,
    #[serde(default)]
    pub spec: LightSpec,
    #[serde(default)]
    pub status: LightStatus,
}
