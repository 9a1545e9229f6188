use kube::core::{ListMeta, ObjectMeta, TypeMeta};
use serde::{Deserialize, Serialize};

/// +genclient
/// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object
///
/// Credential holds how to log in to a registry.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct Credential {
    #[serde(flatten)]
    pub type_meta: TypeMeta,
    /// +optional
    #[serde(default)]
    pub metadata: ObjectMeta,

    pub spec: CredentialSpec,
}

/// CredentialSpec is the desired state of a Credential. Exactly one way to log in must be set, but the marker
/// names them through their parent: controller-gen refuses a OneOf marker over nested fields.
/// +kubebuilder:validation:ExactlyOneOf=auth.token;auth.basic
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct CredentialSpec {
    /// Registry to log in to.
    pub registry: String,

    /// Auth is how to log in.
    pub auth: CredentialAuth,
}

/// CredentialAuth is a way to log in.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct CredentialAuth {
    /// Token is a bearer token.
    /// +optional
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub token: Option<String>,

    /// Basic is a user name and password.
    /// +optional
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub basic: Option<BasicAuth>,
}

/// BasicAuth is a user name and password.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct BasicAuth {
    /// Username to log in as.
    pub username: String,

    /// Password of the user.
    pub password: String,
}

/// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object
///
/// CredentialList is a list of Credential objects.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct CredentialList {
    #[serde(flatten)]
    pub type_meta: TypeMeta,
    /// +optional
    #[serde(default)]
    pub metadata: ListMeta,

    pub items: Vec<Credential>,
}
