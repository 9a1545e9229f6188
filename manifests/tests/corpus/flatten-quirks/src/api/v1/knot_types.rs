use k8s_openapi::apimachinery::pkg::api::resource::Quantity;
use k8s_openapi::apimachinery::pkg::apis::meta::v1::{ObjectMeta, Time};
use rkb_runtime::{Kind, TypeMeta};
use serde::{Deserialize, Serialize};

/// BaseName is a bounded name.
/// +kubebuilder:validation:MaxLength=63
/// +kubebuilder:validation:Pattern=`^[a-z]`
pub type BaseName = String;

/// ShortName narrows BaseName.
/// +kubebuilder:validation:MaxLength=8
pub type ShortName = BaseName;

/// Color is an enum type.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Color {
    Red,
    Amber,
    Green,
}

/// Span is validated by its type.
/// +kubebuilder:validation:XValidation:rule="self.from <= self.to",message="from after to"
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Span {
    /// From index.
    pub from: i32,
    /// To index.
    pub to: i32,
}

/// Stamp aliases the Kubernetes time.
pub type Stamp = Time;

/// Size aliases a quantity.
/// +kubebuilder:validation:XIntOrString
pub type Size = Quantity;

/// KnotSpec stacks type-level and field-level markers.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct KnotSpec {
    /// Short is an alias of an alias, each with markers.
    pub short: ShortName,
    /// Base has a field bound tighter than its type's.
    /// +kubebuilder:validation:MaxLength=10
    /// +optional
    pub base: Option<BaseName>,
    /// Color has a field enum; the type's enum wins when flattening.
    /// +kubebuilder:validation:Enum=Red;Amber
    /// +optional
    pub color: Option<Color>,
    /// Span has rules on the field and on its type.
    /// +kubebuilder:validation:XValidation:rule="self.to - self.from < 100",message="span too long"
    /// +optional
    pub span: Option<Span>,
    /// Seen is an aliased timestamp.
    /// +optional
    pub seen: Option<Stamp>,
    /// Size is an aliased quantity.
    /// +optional
    pub size: Option<Size>,
    /// Spans is a list of spans with an items rule.
    /// +kubebuilder:validation:items:XValidation:rule="self.from >= 0",message="negative from"
    /// +optional
    #[serde(default)]
    pub spans: Vec<Span>,
}

/// Knot is the Schema for the knots API.
/// +kubebuilder:object:root=true
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, Kind)]
pub struct Knot {
    #[serde(flatten)]
    pub type_meta: TypeMeta,
    #[serde(default)]
    pub metadata: ObjectMeta,
    #[serde(default)]
    pub spec: KnotSpec,
}
