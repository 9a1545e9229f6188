use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;
use rkb_runtime::{Kind, TypeMeta};
use serde::{Deserialize, Serialize};

/// ShelfSpec exercises array validation and items: markers.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ShelfSpec {
    /// Books on the shelf.
    /// +kubebuilder:validation:MinItems=1
    /// +kubebuilder:validation:MaxItems=10
    /// +kubebuilder:validation:items:MinLength=1
    /// +kubebuilder:validation:items:MaxLength=40
    pub books: Vec<String>,
    /// Tags are unique and lower case.
    /// +kubebuilder:validation:UniqueItems=false
    /// +kubebuilder:validation:items:Pattern=`^[a-z]+$`
    /// +optional
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tags: Vec<String>,
    /// Colors from a fixed set.
    /// +kubebuilder:validation:items:Enum=red;green;blue
    /// +optional
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub colors: Vec<String>,
    /// Sizes are bounded.
    /// +kubebuilder:validation:items:Minimum=1
    /// +kubebuilder:validation:items:Maximum=9
    /// +kubebuilder:validation:items:MultipleOf=1
    /// +optional
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub sizes: Vec<i32>,
    /// Hosts are validated by CEL one by one.
    /// +kubebuilder:validation:items:XValidation:rule="self.endsWith('.example.com')",message="must be in example.com"
    /// +kubebuilder:validation:items:Format=hostname
    /// +optional
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub hosts: Vec<String>,
    /// Matrix is a list of lists.
    /// +optional
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub matrix: Vec<Vec<i64>>,
    /// Slots are checked as a whole.
    /// +kubebuilder:validation:XValidation:rule="self.size() <= 3",message="at most three slots"
    /// +optional
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub slots: Option<Vec<Slot>>,
}

/// Slot is one place on the shelf.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Slot {
    /// Index of the slot.
    pub index: i32,
    /// Label printed on the slot.
    /// +optional
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub label: String,
}

/// Shelf is the Schema for the shelves API.
/// +kubebuilder:object:root=true
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, Kind)]
pub struct Shelf {
    #[serde(flatten)]
    pub type_meta: TypeMeta,
    #[serde(default)]
    pub metadata: ObjectMeta,
    #[serde(default)]
    pub spec: ShelfSpec,
}
