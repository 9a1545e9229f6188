package v1beta1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// +genclient
// +genclient:nonNamespaced
// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object
// +kubebuilder:resource:scope=Cluster

// Gateway is an entry point into the fleet's network.
type Gateway struct {
	metav1.TypeMeta `json:",inline"`
	// +optional
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// +optional
	Spec GatewaySpec `json:"spec,omitempty"`
}

// GatewaySpec is the desired state of a Gateway.
type GatewaySpec struct {
	// Addresses the gateway listens on.
	// +listType=atomic
	Addresses []string `json:"addresses"`

	// Port the gateway listens on.
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=65535
	Port int32 `json:"port"`
}

// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object

// GatewayList is a list of Gateway objects.
type GatewayList struct {
	metav1.TypeMeta `json:",inline"`
	// +optional
	metav1.ListMeta `json:"metadata,omitempty"`

	Items []Gateway `json:"items"`
}

// +genclient
// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object
// +kubebuilder:subresource:status
// +kubebuilder:printcolumn:name="Gateway",type=string,JSONPath=".spec.gatewayName"

// Route sends the traffic of a Gateway to machines.
type Route struct {
	metav1.TypeMeta `json:",inline"`
	// +optional
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// Spec is the desired state of the route.
	Spec RouteSpec `json:"spec"`

	// Status is the observed state of the route.
	// +optional
	Status *RouteStatus `json:"status,omitempty"`
}

// RouteSpec is the desired state of a Route.
type RouteSpec struct {
	// GatewayName is the Gateway the route attaches to.
	GatewayName string `json:"gatewayName"`

	// Hostnames the route answers for.
	// +optional
	// +kubebuilder:validation:MaxItems=16
	Hostnames []string `json:"hostnames,omitempty"`
}

// RouteStatus is the observed state of a Route.
type RouteStatus struct {
	// Accepted is true once the gateway serves the route.
	Accepted bool `json:"accepted"`
}

// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object

// RouteList is a list of Route objects.
type RouteList struct {
	metav1.TypeMeta `json:",inline"`
	// +optional
	metav1.ListMeta `json:"metadata,omitempty"`

	Items []Route `json:"items"`
}

// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object

// ProxyConfiguration configures the proxy that serves routes. It is read from a file, not stored in the API
// server: it embeds TypeMeta but not ObjectMeta, so it is no kind.
type ProxyConfiguration struct {
	metav1.TypeMeta `json:",inline"`

	// ListenAddress is the address the proxy binds.
	ListenAddress string `json:"listenAddress"`
}
