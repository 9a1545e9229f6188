use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;
use rkb_runtime::{Kind, TypeMeta};
use serde::{Deserialize, Serialize};

/// Target of a probe.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Target {
    /// Name of the target.
    pub name: String,
    /// Port of the target.
    /// +optional
    pub port: Option<i32>,
}

/// ProbeSpec spells marker arguments in every accepted way.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ProbeSpec {
    /// Offset may be negative.
    /// +kubebuilder:validation:Minimum=-273
    /// +kubebuilder:validation:Maximum=9007199254740991
    /// +optional
    pub offset: Option<i64>,
    /// Gain has fractional bounds.
    /// +kubebuilder:validation:Minimum=0.5
    /// +kubebuilder:validation:MultipleOf=0.25
    /// +optional
    pub gain: Option<f64>,
    /// Kind uses the braces list syntax.
    /// +kubebuilder:validation:Enum={"tcp","udp","sctp"}
    /// +optional
    pub kind: Option<String>,
    /// Expr is checked with a backtick-quoted rule.
    /// +kubebuilder:validation:XValidation:rule=`self.startsWith("expr:") && !self.contains('"')`,message=`must start with "expr:"`
    /// +optional
    pub expr: Option<String>,
    /// Quote has a pattern with quotes and backslashes.
    /// +kubebuilder:validation:Pattern=`^"[^"\\]*"$`
    /// +optional
    pub quote: Option<String>,
    /// Targets default to a list of objects.
    /// +kubebuilder:default={{name: "a", port: 80}, {name: "b"}}
    /// +optional
    #[serde(default)]
    pub targets: Vec<Target>,
    /// Weights default to floats and negatives.
    /// +kubebuilder:default={1.5, -2, 0}
    /// +optional
    #[serde(default)]
    pub weights: Vec<f64>,
    /// Greeting defaults to text with commas and colons.
    /// +kubebuilder:default="hello, world: hi"
    /// +optional
    pub greeting: Option<String>,
    /// Names defaults to an empty list.
    /// +kubebuilder:default={}
    /// +optional
    #[serde(default)]
    pub names: Vec<String>,
    /// Mixed is an enum of odd values.
    /// +kubebuilder:validation:Enum="a b";"c,d";"";"true"
    /// +optional
    pub mixed: Option<String>,
}

/// Probe is the Schema for the probes API.
/// +kubebuilder:object:root=true
/// +kubebuilder:resource:shortName={pr,prb},categories={diagnostics}
/// +kubebuilder:printcolumn:name="Kind",type="string",JSONPath=".spec.kind",priority=0
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, Kind)]
pub struct Probe {
    #[serde(flatten)]
    pub type_meta: TypeMeta,
    #[serde(default)]
    pub metadata: ObjectMeta,
    #[serde(default)]
    pub spec: ProbeSpec,
}
