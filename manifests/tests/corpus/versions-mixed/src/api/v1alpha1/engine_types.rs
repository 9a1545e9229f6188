use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;
use rkb_runtime::{Kind, TypeMeta};
use serde::{Deserialize, Serialize};

/// EngineSpec is the desired state in v1alpha1.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct EngineSpec {
    /// Fuel kind.
    pub fuel: String,
}

/// EngineStatus is the observed state in v1alpha1.
/// +kubebuilder:validation:XValidation:rule="self.running >= 0",message="running must not be negative"
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct EngineStatus {
    /// Running cylinders.
    pub running: i32,
}

/// Engine is the Schema for the engines API (v1alpha1).
/// +kubebuilder:object:root=true
/// +kubebuilder:subresource:status
/// +kubebuilder:deprecatedversion:warning="use v1"
/// +kubebuilder:printcolumn:name="Fuel",type=string,JSONPath=`.spec.fuel`
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, Kind)]
pub struct Engine {
    #[serde(flatten)]
    pub type_meta: TypeMeta,
    #[serde(default)]
    pub metadata: ObjectMeta,
    pub spec: EngineSpec,
    pub status: EngineStatus,
}
