package v1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// TunnelSpec connects a local network to remote endpoints, with types whose JSON is not their fields.
type TunnelSpec struct {
	// Endpoint is the remote end of the tunnel.
	Endpoint Endpoint `json:"endpoint"`

	// Peers are further remote ends, tried in order.
	// +optional
	// +kubebuilder:validation:MaxItems=8
	Peers []Endpoint `json:"peers,omitempty"`

	// Backups by region.
	// +optional
	Backups map[string]Endpoint `json:"backups,omitempty"`

	// +optional
	Fallback *Endpoint `json:"fallback,omitempty"`

	// Networks routed through the tunnel.
	// +listType=set
	Networks []CIDR `json:"networks"`

	// Docs links to the tunnel's documentation.
	// +optional
	Docs *Link `json:"docs,omitempty"`

	// LogLevel of the tunnel's agent.
	// +optional
	LogLevel Level `json:"logLevel,omitempty"`

	// Encrypted says whether traffic is encrypted.
	Encrypted Toggle `json:"encrypted"`

	// Interval between keep-alive probes.
	Interval metav1.Duration `json:"interval"`

	// Timeouts by operation.
	// +optional
	Timeouts map[string]metav1.Duration `json:"timeouts,omitempty"`

	// Extras for the plugin the tunnel runs.
	// +optional
	Extras *Extras `json:"extras,omitempty"`

	// Window when the tunnel may be down for maintenance.
	// +optional
	Window *Schedule `json:"window,omitempty"`
}

// TunnelStatus is the observed state of a Tunnel.
type TunnelStatus struct {
	// Since is when the tunnel came up.
	// +optional
	Since *Instant `json:"since,omitempty"`

	// Handshakes by peer, each the time of the last one.
	// +optional
	Handshakes map[string]Instant `json:"handshakes,omitempty"`
}

// +kubebuilder:object:root=true
// +kubebuilder:subresource:status

// Tunnel is the Schema for the tunnels API.
type Tunnel struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec   TunnelSpec   `json:"spec"`
	Status TunnelStatus `json:"status,omitempty"`
}

// +kubebuilder:object:root=true

// TunnelList contains a list of Tunnel.
type TunnelList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []Tunnel `json:"items"`
}
