use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;
use rkb_runtime::{Kind, TypeMeta};
use serde::{Deserialize, Serialize};

/// Slot is keyed by name.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Slot {
    /// Name of the slot.
    pub name: String,
}

/// QueueSpec writes markers in an order other than the one they apply in.
/// +kubebuilder:validation:ExactlyOneOf=fifo;lifo
/// +kubebuilder:validation:XValidation:rule="!has(self.fifo) || self.fifo",message="fifo is true when set"
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct QueueSpec {
    /// Depth is a string on the Go side that the Type marker makes an integer before Maximum applies.
    /// +kubebuilder:validation:Maximum=10
    /// +kubebuilder:validation:Type=integer
    /// +optional
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub depth: String,
    /// Slots names its key before its list type.
    /// +listMapKey=name
    /// +listType=map
    /// +optional
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub slots: Vec<Slot>,
    /// Fifo serves first in, first out.
    /// +optional
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fifo: Option<bool>,
    /// Lifo serves last in, first out.
    /// +optional
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub lifo: Option<bool>,
}

/// Queue is the Schema for the queues API.
/// +kubebuilder:object:root=true
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, Kind)]
pub struct Queue {
    #[serde(flatten)]
    pub type_meta: TypeMeta,
    #[serde(default)]
    pub metadata: ObjectMeta,
    #[serde(default)]
    pub spec: QueueSpec,
}
