package v1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// PresetSpec exercises default values of every shape.
type PresetSpec struct {
	// Mode defaults to a string.
	// +kubebuilder:default=fast
	// +optional
	Mode string `json:"mode,omitempty"`
	// Quoted defaults to a quoted string with spaces.
	// +kubebuilder:default="hello world"
	// +optional
	Quoted string `json:"quoted,omitempty"`
	// Retries defaults to an integer.
	// +kubebuilder:default=3
	// +optional
	Retries int32 `json:"retries,omitempty"`
	// Enabled defaults to true.
	// +kubebuilder:default=true
	// +optional
	Enabled *bool `json:"enabled,omitempty"`
	// Ratio defaults to a float.
	// +kubebuilder:default=0.25
	// +optional
	Ratio float64 `json:"ratio,omitempty"`
	// Names default to a list.
	// +kubebuilder:default={"a","b"}
	// +optional
	Names []string `json:"names,omitempty"`
	// Limits default to a map.
	// +kubebuilder:default={cpu: "1", memory: "1Gi"}
	// +optional
	Limits map[string]string `json:"limits,omitempty"`
	// Backoff defaults to an object.
	// +kubebuilder:default={initial: 1, factor: 2}
	// +optional
	Backoff *Backoff `json:"backoff,omitempty"`
	// Empty defaults to an empty object.
	// +kubebuilder:default={}
	// +optional
	Empty *Backoff `json:"empty,omitempty"`
	// Level uses the Kubernetes-style default marker.
	// +default="info"
	// +optional
	Level string `json:"level,omitempty"`
	// Port has an example.
	// +kubebuilder:example=8080
	// +optional
	Port int32 `json:"port,omitempty"`
	// Pair has an object example.
	// +kubebuilder:example={key: "k", value: "v"}
	// +optional
	Pair map[string]string `json:"pair,omitempty"`
}

// Backoff configures retry timing.
type Backoff struct {
	// Initial delay in seconds.
	// +optional
	Initial int32 `json:"initial,omitempty"`
	// Factor multiplies the delay.
	// +kubebuilder:default=2
	// +optional
	Factor int32 `json:"factor,omitempty"`
}

// Preset is the Schema for the presets API.
// +kubebuilder:object:root=true
type Preset struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec PresetSpec `json:"spec,omitempty"`
}
