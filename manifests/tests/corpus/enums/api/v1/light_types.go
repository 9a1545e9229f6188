package v1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Color of a light.
// +kubebuilder:validation:Enum=Red;Amber;Green
type Color string

// Mode is how the light behaves.
// +kubebuilder:validation:Enum=steady;blinking;off
type Mode string

// Protocol names follow the wire spelling.
// +kubebuilder:validation:Enum=HTTP;HTTPS;grpc-web
type Protocol string

// LightSpec uses enums.
type LightSpec struct {
	// Color shown now.
	Color Color `json:"color"`
	// Mode of operation.
	// +kubebuilder:default=steady
	// +optional
	Mode Mode `json:"mode,omitempty"`
	// Protocols accepted.
	// +optional
	Protocols []Protocol `json:"protocols,omitempty"`
	// Fallback color, narrowed by a field enum.
	// +kubebuilder:validation:Enum=Red;Amber
	// +optional
	Fallback string `json:"fallback,omitempty"`
}

// LightStatus reports the observed color.
type LightStatus struct {
	// Observed color.
	// +optional
	Observed *Color `json:"observed,omitempty"`
}

// Light is the Schema for the lights API.
// +kubebuilder:object:root=true
// +kubebuilder:subresource:status
type Light struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec   LightSpec   `json:"spec,omitempty"`
	Status LightStatus `json:"status,omitempty"`
}
