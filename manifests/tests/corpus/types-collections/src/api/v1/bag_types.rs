use std::collections::{BTreeMap, HashMap};

use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;
use rkb_runtime::{Kind, TypeMeta};
use serde::{Deserialize, Serialize};

/// Item is stored in maps and lists.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Item {
    /// Name of the item.
    pub name: String,
    /// Count of the item.
    /// +optional
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub count: Option<i32>,
}

/// BagSpec maps Vec and map shapes.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct BagSpec {
    /// Words is a list of strings.
    pub words: Vec<String>,
    /// Numbers is a list of int64.
    /// +optional
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub numbers: Vec<i64>,
    /// Items is a list of structs.
    /// +optional
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub items: Vec<Item>,
    /// ItemPtrs is a list of optional structs.
    /// +optional
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub item_ptrs: Vec<Box<Item>>,
    /// Labels is a string map.
    /// +optional
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub labels: BTreeMap<String, String>,
    /// Scores maps to int32.
    /// +optional
    #[serde(default, skip_serializing_if = "HashMap::is_empty")]
    pub scores: HashMap<String, i32>,
    /// Groups maps to lists.
    /// +optional
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub groups: Option<BTreeMap<String, Vec<String>>>,
    /// Index maps to structs.
    /// +optional
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub index: BTreeMap<String, Item>,
    /// Nested maps to maps.
    /// +optional
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub nested: BTreeMap<String, BTreeMap<String, bool>>,
    /// Flags maps to booleans.
    /// +optional
    #[serde(default, skip_serializing_if = "std::collections::HashMap::is_empty")]
    pub flags: std::collections::HashMap<String, bool>,
    /// Grid is a list of lists of strings.
    /// +optional
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub grid: Vec<Vec<String>>,
    /// Weights maps to floats.
    /// +optional
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub weights: BTreeMap<String, f64>,
}

/// Bag is the Schema for the bags API.
/// +kubebuilder:object:root=true
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, Kind)]
pub struct Bag {
    #[serde(flatten)]
    pub type_meta: TypeMeta,
    #[serde(default)]
    pub metadata: ObjectMeta,
    #[serde(default)]
    pub spec: BagSpec,
}
