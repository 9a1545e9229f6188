use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;
use rkb_runtime::{Kind, TypeMeta};
use serde::{Deserialize, Serialize};

pub use self::wrappers::{Name, Port};

mod wrappers {
    use serde::{Deserialize, Serialize};

    /// Name is a validated name.
    /// +kubebuilder:validation:MaxLength=20
    #[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
    pub struct Name(pub String);

    /// Port is a port number.
    /// +kubebuilder:validation:Minimum=1
    #[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
    #[serde(transparent)]
    pub struct Port {
        pub value: i32,
    }
}

/// Rule is shared with v2.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Rule {
    /// Type of the rule.
    pub r#type: String,
    /// Ref names another rule.
    /// +optional
    pub r#ref: Option<Name>,
}

/// PlainBlock keeps Rust field names as they are.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct PlainBlock {
    /// snake field.
    pub snake_field: String,
    /// other field.
    /// +optional
    pub other_field: Option<i32>,
}

/// GateSpec uses Rust idioms on the Rust side.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct GateSpec {
    /// Type is a keyword in Rust.
    pub r#type: String,
    /// Name is a newtype.
    pub name: Name,
    /// Port is a transparent wrapper.
    /// +optional
    pub port: Option<super::super::v1::Port>,
    /// Rules of the gate.
    /// +optional
    #[serde(default)]
    pub rules: Vec<Rule>,
    /// Plain block.
    /// +optional
    pub plain: Option<PlainBlock>,
}

/// Gate is the Schema for the gates API.
/// +kubebuilder:object:root=true
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, Kind)]
pub struct Gate {
    #[serde(flatten)]
    pub type_meta: TypeMeta,
    #[serde(default)]
    pub metadata: ObjectMeta,
    #[serde(default)]
    pub spec: GateSpec,
}
