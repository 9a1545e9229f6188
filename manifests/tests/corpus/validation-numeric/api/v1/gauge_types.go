package v1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// GaugeSpec exercises numeric validation markers.
type GaugeSpec struct {
	// Port to listen on.
	// +kubebuilder:validation:Minimum=1
	// +kubebuilder:validation:Maximum=65535
	Port int32 `json:"port"`
	// Budget in bytes.
	// +kubebuilder:validation:Minimum=0
	// +kubebuilder:validation:ExclusiveMinimum=true
	// +optional
	Budget int64 `json:"budget,omitempty"`
	// Step must be a multiple of five.
	// +kubebuilder:validation:MultipleOf=5
	// +kubebuilder:validation:Maximum=100
	// +kubebuilder:validation:ExclusiveMaximum=true
	// +optional
	Step int32 `json:"step,omitempty"`
	// Weight is a float.
	// +kubebuilder:validation:Minimum=0.5
	// +kubebuilder:validation:Maximum=1.5
	// +optional
	Weight float64 `json:"weight,omitempty"`
	// Small is a 32-bit float.
	// +optional
	Small float32 `json:"small,omitempty"`
	// Count is a 64-bit integer.
	// +optional
	Count int64 `json:"count,omitempty"`
	// Level is an enum of integers.
	// +kubebuilder:validation:Enum=1;2;3
	// +optional
	Level int32 `json:"level,omitempty"`
	// Pct is between 0 and 100 and validated by CEL.
	// +kubebuilder:validation:XValidation:rule="self >= 0 && self <= 100"
	// +optional
	Pct *int32 `json:"pct,omitempty"`
}

// Gauge is the Schema for the gauges API.
// +kubebuilder:object:root=true
type Gauge struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec GaugeSpec `json:"spec,omitempty"`
}
