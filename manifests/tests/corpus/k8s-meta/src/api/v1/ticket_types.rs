use std::collections::BTreeMap;

use k8s_openapi::apimachinery::pkg::api::resource::Quantity;
use k8s_openapi::apimachinery::pkg::apis::meta::v1::{
    Condition, LabelSelector, MicroTime, ObjectMeta, OwnerReference, Time,
};
use k8s_openapi::apimachinery::pkg::util::intstr::IntOrString;
use rkb_runtime::{Kind, TypeMeta};
use serde::{Deserialize, Serialize};

/// TicketSpec embeds apimachinery types.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TicketSpec {
    /// Selector of the pods the ticket covers.
    /// +optional
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub selector: Option<LabelSelector>,
    /// NotBefore is a timestamp.
    /// +optional
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub not_before: Option<Time>,
    /// Renewed is a precise timestamp.
    /// +optional
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub renewed: Option<MicroTime>,
    /// Memory is a quantity.
    pub memory: Quantity,
    /// Budget caps resources by name.
    /// +optional
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub budget: BTreeMap<String, Quantity>,
    /// Limits maps names to quantities.
    /// +optional
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub limits: BTreeMap<String, Quantity>,
    /// MaxUnavailable is a number or a percentage.
    /// +kubebuilder:validation:XIntOrString
    /// +optional
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_unavailable: Option<IntOrString>,
    /// Port is a number or a name, validated by CEL.
    /// +kubebuilder:validation:XValidation:rule="type(self) == int ? self > 0 : self.size() > 0",message="port must be positive or a name"
    /// +optional
    #[serde(default)]
    pub port: IntOrString,
    /// +optional
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub surge: Option<IntOrString>,
    /// Owners of the ticket.
    /// +optional
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub owners: Vec<OwnerReference>,
}

/// TicketStatus uses conditions.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TicketStatus {
    /// Conditions of the ticket.
    /// +listType=map
    /// +listMapKey=type
    /// +optional
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub conditions: Vec<Condition>,
    /// Expires at.
    /// +optional
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub expires: Option<Time>,
}

/// Ticket is the Schema for the tickets API.
/// +kubebuilder:object:root=true
/// +kubebuilder:subresource:status
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, Kind)]
pub struct Ticket {
    #[serde(flatten)]
    pub type_meta: TypeMeta,
    #[serde(default)]
    pub metadata: ObjectMeta,
    #[serde(default)]
    pub spec: TicketSpec,
    #[serde(default)]
    pub status: TicketStatus,
}
