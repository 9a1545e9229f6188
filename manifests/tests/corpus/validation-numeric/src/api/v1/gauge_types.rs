use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;
use rkb_runtime::{Kind, TypeMeta};
use serde::{Deserialize, Serialize};

/// GaugeSpec exercises numeric validation markers.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct GaugeSpec {
    /// Port to listen on.
    /// +kubebuilder:validation:Minimum=1
    /// +kubebuilder:validation:Maximum=65535
    pub port: i32,
    /// Budget in bytes.
    /// +kubebuilder:validation:Minimum=0
    /// +kubebuilder:validation:ExclusiveMinimum=true
    /// +optional
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub budget: Option<i64>,
    /// Step must be a multiple of five.
    /// +kubebuilder:validation:MultipleOf=5
    /// +kubebuilder:validation:Maximum=100
    /// +kubebuilder:validation:ExclusiveMaximum=true
    /// +optional
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub step: Option<i32>,
    /// Weight is a float.
    /// +kubebuilder:validation:Minimum=0.5
    /// +kubebuilder:validation:Maximum=1.5
    /// +optional
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub weight: Option<f64>,
    /// Small is a 32-bit float.
    /// +optional
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub small: Option<f32>,
    /// Count is a 64-bit integer.
    /// +optional
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub count: Option<i64>,
    /// Level is an enum of integers.
    /// +kubebuilder:validation:Enum=1;2;3
    /// +optional
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub level: Option<i32>,
    /// Pct is between 0 and 100 and validated by CEL.
    /// +kubebuilder:validation:XValidation:rule="self >= 0 && self <= 100"
    /// +optional
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pct: Option<i32>,
}

/// Gauge is the Schema for the gauges API.
/// +kubebuilder:object:root=true
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, Kind)]
pub struct Gauge {
    #[serde(flatten)]
    pub type_meta: TypeMeta,
    #[serde(default)]
    pub metadata: ObjectMeta,
    #[serde(default)]
    pub spec: GaugeSpec,
}
