package v1

import (
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

// Settings keeps unknown fields of an object.
// +kubebuilder:pruning:PreserveUnknownFields
type Settings struct {
	// Known is a declared field.
	// +optional
	Known string `json:"known,omitempty"`
}

// BlobSpec holds free-form JSON.
type BlobSpec struct {
	// Payload is any JSON value.
	Payload apiextensionsv1.JSON `json:"payload"`
	// Extra is optional free-form JSON.
	// +optional
	Extra *apiextensionsv1.JSON `json:"extra,omitempty"`
	// Values is a list of JSON values.
	// +optional
	Values []apiextensionsv1.JSON `json:"values,omitempty"`
	// ByKey maps to JSON values.
	// +optional
	ByKey map[string]apiextensionsv1.JSON `json:"byKey,omitempty"`
	// Object is an embedded Kubernetes object.
	// +kubebuilder:validation:EmbeddedResource
	// +kubebuilder:pruning:PreserveUnknownFields
	// +optional
	Object runtime.RawExtension `json:"object,omitempty"`
	// Raw is a raw extension.
	// +optional
	Raw *runtime.RawExtension `json:"raw,omitempty"`
	// Settings keep unknown fields.
	// +optional
	Settings *Settings `json:"settings,omitempty"`
	// Loose is a string map that keeps unknown fields.
	// +kubebuilder:pruning:PreserveUnknownFields
	// +optional
	Loose map[string]string `json:"loose,omitempty"`
	// Anything has no schema at all.
	// +kubebuilder:validation:Schemaless
	// +kubebuilder:pruning:PreserveUnknownFields
	// +kubebuilder:validation:Type=object
	// +optional
	Anything *apiextensionsv1.JSON `json:"anything,omitempty"`
}

// Blob is the Schema for the blobs API.
// +kubebuilder:object:root=true
type Blob struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec BlobSpec `json:"spec,omitempty"`
}
