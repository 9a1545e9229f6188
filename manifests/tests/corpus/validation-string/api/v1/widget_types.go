package v1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// WidgetSpec exercises string validation markers.
type WidgetSpec struct {
	// Name is a DNS label.
	// +kubebuilder:validation:MinLength=1
	// +kubebuilder:validation:MaxLength=63
	// +kubebuilder:validation:Pattern=`^[a-z0-9]([-a-z0-9]*[a-z0-9])?$`
	Name string `json:"name"`
	// Email of the owner.
	// +kubebuilder:validation:Format=email
	// +optional
	Email string `json:"email,omitempty"`
	// Tier of service.
	// +kubebuilder:validation:Enum=gold;silver;bronze
	// +optional
	Tier string `json:"tier,omitempty"`
	// Ratio is written as a decimal string.
	// +kubebuilder:validation:Pattern="^[0-9]+(\\.[0-9]+)?$"
	// +kubebuilder:validation:XValidation:rule="self != '0'",message="ratio must not be zero"
	// +optional
	Ratio string `json:"ratio,omitempty"`
	// Immutable may be set once.
	// +kubebuilder:validation:XValidation:rule="self == oldSelf",message="immutable is immutable",reason=FieldValueForbidden,fieldPath=""
	// +optional
	Immutable string `json:"immutable,omitempty"`
	// Checksum is base64 data.
	// +kubebuilder:validation:Format=byte
	// +optional
	Checksum string `json:"checksum,omitempty"`
	// Title has a title marker.
	// +kubebuilder:title=The title
	// +optional
	Title string `json:"title,omitempty"`
}

// Widget is the Schema for the widgets API.
// +kubebuilder:object:root=true
type Widget struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec WidgetSpec `json:"spec,omitempty"`
}
