use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;
use rkb_runtime::{Kind, TypeMeta};
use serde::{Deserialize, Serialize};

/// EngineSpec is the desired state in v1beta1.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct EngineSpec {
    /// Cylinders wanted.
    pub cylinders: i32,
}

/// EngineStatus is the observed state in v1beta1.
/// +kubebuilder:validation:XValidation:rule="self.running >= 0",message="running must not be negative"
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct EngineStatus {
    /// Running cylinders.
    pub running: i32,
}

/// Engine is the Schema for the engines API (v1beta1).
/// +kubebuilder:object:root=true
/// +kubebuilder:subresource:status
/// +kubebuilder:subresource:scale:specpath=.spec.cylinders,statuspath=.status.running
/// +kubebuilder:printcolumn:name="Cylinders",type=integer,JSONPath=`.spec.cylinders`
/// +kubebuilder:printcolumn:name="Running",type=integer,JSONPath=`.status.running`,priority=1
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, Kind)]
pub struct Engine {
    #[serde(flatten)]
    pub type_meta: TypeMeta,
    #[serde(default)]
    pub metadata: ObjectMeta,
    pub spec: EngineSpec,
    pub status: EngineStatus,
}
