package v1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// SampleSpec maps every primitive, required and optional.
type SampleSpec struct {
	// Text is a required string.
	Text string `json:"text"`
	// Flag is a required bool.
	Flag bool `json:"flag"`
	// Small is a required int32.
	Small int32 `json:"small"`
	// Big is a required int64.
	Big int64 `json:"big"`
	// Real is a required float64.
	Real float64 `json:"real"`
	// MaybeText is optional through a pointer.
	// +optional
	MaybeText *string `json:"maybeText,omitempty"`
	// MaybeFlag is optional.
	// +optional
	MaybeFlag *bool `json:"maybeFlag,omitempty"`
	// MaybeSmall is optional.
	// +optional
	MaybeSmall *int32 `json:"maybeSmall,omitempty"`
	// MaybeBig is optional.
	// +optional
	MaybeBig *int64 `json:"maybeBig,omitempty"`
	// MaybeReal is optional.
	// +optional
	MaybeReal *float64 `json:"maybeReal,omitempty"`
	// Renamed has a JSON name unlike its Go name.
	// +optional
	Renamed string `json:"renamed_field,omitempty"`
	// Secret is never serialized.
	Secret string `json:"-"`
	// DefaultedNumber is optional by omitempty alone.
	DefaultedNumber int32 `json:"defaultedNumber,omitempty"`
}

// Sample is the Schema for the samples API.
// +kubebuilder:object:root=true
type Sample struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec SampleSpec `json:"spec"`
}
