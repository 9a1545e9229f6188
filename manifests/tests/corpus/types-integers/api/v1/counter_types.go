package v1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// CounterSpec maps every integer width.
type CounterSpec struct {
	// I8 is a signed byte.
	// +optional
	I8 int8 `json:"i8,omitempty"`
	// I16 is a signed short.
	// +optional
	I16 int16 `json:"i16,omitempty"`
	// U8 is an unsigned byte.
	// +optional
	U8 uint8 `json:"u8,omitempty"`
	// U16 is an unsigned short.
	// +optional
	U16 uint16 `json:"u16,omitempty"`
	// U32 is an unsigned int.
	// +optional
	U32 uint32 `json:"u32,omitempty"`
	// U64 is an unsigned long.
	// +optional
	U64 uint64 `json:"u64,omitempty"`
	// Counts are unsigned.
	// +optional
	Counts []uint32 `json:"counts,omitempty"`
	// Totals map to unsigned longs.
	// +optional
	Totals map[string]uint64 `json:"totals,omitempty"`
}

// Counter is the Schema for the counters API.
// +kubebuilder:object:root=true
type Counter struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec CounterSpec `json:"spec,omitempty"`
}
