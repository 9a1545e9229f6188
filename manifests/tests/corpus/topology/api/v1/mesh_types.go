package v1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Endpoint is keyed by host and port.
type Endpoint struct {
	// Host name.
	Host string `json:"host"`
	// Port number.
	Port int32 `json:"port"`
	// Weight of the endpoint.
	// +optional
	Weight int32 `json:"weight,omitempty"`
}

// Coordinates are replaced as a whole.
// +structType=atomic
type Coordinates struct {
	// Lat is the latitude in micro degrees.
	Lat int64 `json:"lat"`
	// Lng is the longitude in micro degrees.
	Lng int64 `json:"lng"`
}

// Zones is a set of zone names.
// +listType=set
type Zones []string

// MeshSpec exercises list, map and struct topology markers.
type MeshSpec struct {
	// Members is a set.
	// +listType=set
	// +optional
	Members []string `json:"members,omitempty"`
	// Endpoints is a map keyed by host and port.
	// +listType=map
	// +listMapKey=host
	// +listMapKey=port
	// +optional
	Endpoints []Endpoint `json:"endpoints,omitempty"`
	// Args is atomic.
	// +listType=atomic
	// +optional
	Args []string `json:"args,omitempty"`
	// Selector is an atomic map.
	// +mapType=atomic
	// +optional
	Selector map[string]string `json:"selector,omitempty"`
	// Annotations is a granular map.
	// +mapType=granular
	// +optional
	Annotations map[string]string `json:"annotations,omitempty"`
	// Origin uses an atomic struct type.
	// +optional
	Origin *Coordinates `json:"origin,omitempty"`
	// Target is made granular at the field.
	// +structType=granular
	// +optional
	Target *Endpoint `json:"target,omitempty"`
	// Zones uses a list type declared on the type.
	// +optional
	Zones Zones `json:"zones,omitempty"`
}

// Mesh is the Schema for the meshes API.
// +kubebuilder:object:root=true
type Mesh struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec MeshSpec `json:"spec,omitempty"`
}
