use kube::core::{ListMeta, ObjectMeta, TypeMeta};
use serde::{Deserialize, Serialize};

/// +genclient
/// +genclient:nonNamespaced
/// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object
/// +kubebuilder:resource:scope=Cluster

/// Gateway is an entry point into the fleet's network.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Gateway {
    #[serde(flatten)]
    pub type_meta: TypeMeta,
    /// +optional
    #[serde(default)]
    pub metadata: ObjectMeta,

    /// +optional
    #[serde(default)]
    pub spec: GatewaySpec,
}

/// GatewaySpec is the desired state of a Gateway.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct GatewaySpec {
    /// Addresses the gateway listens on.
    /// +listType=atomic
    pub addresses: Vec<String>,

    /// Port the gateway listens on.
    /// +kubebuilder:validation:Minimum=1
    /// +kubebuilder:validation:Maximum=65535
    pub port: i32,
}

/// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object
///
/// GatewayList is a list of Gateway objects.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct GatewayList {
    #[serde(flatten)]
    pub type_meta: TypeMeta,
    /// +optional
    #[serde(default)]
    pub metadata: ListMeta,

    pub items: Vec<Gateway>,
}

/// +genclient
/// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object
/// +kubebuilder:subresource:status
/// +kubebuilder:printcolumn:name="Gateway",type=string,JSONPath=".spec.gatewayName"
///
/// Route sends the traffic of a Gateway to machines.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Route {
    #[serde(flatten)]
    pub type_meta: TypeMeta,
    /// +optional
    #[serde(default)]
    pub metadata: ObjectMeta,

    /// Spec is the desired state of the route.
    pub spec: RouteSpec,

    /// Status is the observed state of the route.
    /// +optional
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status: Option<RouteStatus>,
}

/// RouteSpec is the desired state of a Route.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RouteSpec {
    /// GatewayName is the Gateway the route attaches to.
    pub gateway_name: String,

    /// Hostnames the route answers for.
    /// +optional
    /// +kubebuilder:validation:MaxItems=16
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub hostnames: Vec<String>,
}

/// RouteStatus is the observed state of a Route.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct RouteStatus {
    /// Accepted is true once the gateway serves the route.
    pub accepted: bool,
}

/// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object
///
/// RouteList is a list of Route objects.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct RouteList {
    #[serde(flatten)]
    pub type_meta: TypeMeta,
    /// +optional
    #[serde(default)]
    pub metadata: ListMeta,

    pub items: Vec<Route>,
}

/// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object
///
/// ProxyConfiguration configures the proxy that serves routes. It is read from a file, not stored in the API
/// server: it embeds TypeMeta but not ObjectMeta, so it is no kind.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ProxyConfiguration {
    #[serde(flatten)]
    pub type_meta: TypeMeta,

    /// ListenAddress is the address the proxy binds.
    pub listen_address: String,
}
