use std::collections::BTreeMap;

use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;
use rkb_runtime::{Kind, TypeMeta};
use serde::{Deserialize, Serialize};

/// Hostname is a DNS name.
/// +kubebuilder:validation:MinLength=3
/// +kubebuilder:validation:MaxLength=253
/// +kubebuilder:validation:Pattern=`^[a-z0-9.-]+$`
pub type Hostname = String;

/// Percent is an integer percentage.
/// +kubebuilder:validation:Minimum=0
/// +kubebuilder:validation:Maximum=100
pub type Percent = i32;

/// Labels are string pairs with a bounded count.
/// +kubebuilder:validation:MaxProperties=8
pub type Labels = BTreeMap<String, String>;

/// Window is a time window; start must come before end.
/// +kubebuilder:validation:XValidation:rule="self.start < self.end",message="start must be before end"
/// +kubebuilder:validation:MinProperties=1
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Window {
    /// Start hour.
    pub start: i32,
    /// End hour.
    pub end: i32,
}

/// GadgetSpec uses types that carry their own validation.
/// +kubebuilder:validation:XValidation:rule="!has(self.backup) || self.backup != self.primary",message="backup must differ from primary"
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct GadgetSpec {
    /// Primary host.
    pub primary: Hostname,
    /// Backup host.
    /// +optional
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub backup: Option<Hostname>,
    /// Load is the share of traffic, with a tighter field-level bound.
    /// +kubebuilder:validation:Maximum=90
    /// +optional
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub load: Option<Percent>,
    /// Extra labels.
    /// +optional
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub extra: Option<Labels>,
    /// Maintenance window.
    /// +optional
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub maintenance: Option<Box<Window>>,
    /// Mirrors are more hosts.
    /// +optional
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub mirrors: Vec<Hostname>,
}

/// Gadget is the Schema for the gadgets API.
/// +kubebuilder:object:root=true
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, Kind)]
pub struct Gadget {
    #[serde(flatten)]
    pub type_meta: TypeMeta,
    #[serde(default)]
    pub metadata: ObjectMeta,
    #[serde(default)]
    pub spec: GadgetSpec,
}
