use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;
use rkb_runtime::{DeepCopy, Kind, TypeMeta};
use serde::{Deserialize, Serialize};

/// SensorSpec defines the desired state of Sensor.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, DeepCopy)]
#[serde(rename_all = "camelCase")]
pub struct SensorSpec {
    /// Unit of the readings.
    pub unit: String,
}

/// Sensor is a cluster-scoped kind with a read-only client (get, list, watch).
/// +genclient
/// +genclient:readonly
/// +genclient:nonNamespaced
/// +kubebuilder:object:root=true
/// +kubebuilder:resource:scope=Cluster
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, Kind)]
pub struct Sensor {
    #[serde(flatten)]
    pub type_meta: TypeMeta,
    #[serde(default)]
    pub metadata: ObjectMeta,
    pub spec: SensorSpec,
}
