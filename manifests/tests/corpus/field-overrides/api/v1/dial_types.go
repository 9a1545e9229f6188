package v1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Choice allows at most one of its fields and exactly one of two others.
// +kubebuilder:validation:AtMostOneOf=alpha;beta
// +kubebuilder:validation:ExactlyOneOf=gamma;delta
type Choice struct {
	// +optional
	Alpha *string `json:"alpha,omitempty"`
	// +optional
	Beta *string `json:"beta,omitempty"`
	// +optional
	Gamma *int32 `json:"gamma,omitempty"`
	// +optional
	Delta *int32 `json:"delta,omitempty"`
}

// DialSpec overrides generated types and formats.
type DialSpec struct {
	// Reading is stored as a string but typed as a number by marker.
	// +kubebuilder:validation:Type=number
	// +optional
	Reading string `json:"reading,omitempty"`
	// Address is an IPv4 address.
	// +kubebuilder:validation:Format=ipv4
	// +optional
	Address string `json:"address,omitempty"`
	// Since is a date string.
	// +kubebuilder:validation:Format=date
	// +optional
	Since string `json:"since,omitempty"`
	// Uid is a UUID.
	// +kubebuilder:validation:Format=uuid
	// +optional
	UID string `json:"uid,omitempty"`
	// Either is an int or a string.
	// +kubebuilder:validation:XIntOrString
	// +kubebuilder:validation:Type=""
	// +optional
	Either string `json:"either,omitempty"`
	// Meta is bounded in size.
	// +kubebuilder:validation:MinProperties=1
	// +kubebuilder:validation:MaxProperties=4
	// +optional
	Meta map[string]string `json:"meta,omitempty"`
	// Choice picks one.
	// +optional
	Choice *Choice `json:"choice,omitempty"`
	// Version must not decrease.
	// +kubebuilder:validation:XValidation:rule="!oldSelf.hasValue() || self >= oldSelf.value()",message="version may not decrease",optionalOldSelf=true
	// +kubebuilder:validation:XValidation:rule="self < 1000",messageExpression="self >= 5000 ? 'version is far too large' : 'version is too large'"
	// +optional
	Version int64 `json:"version,omitempty"`
}

// Dial is the Schema for the dials API.
// +kubebuilder:object:root=true
// +kubebuilder:validation:XValidation:rule="self.metadata.name.startsWith('dial-')",message="name must start with dial-"
type Dial struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec DialSpec `json:"spec,omitempty"`
}
