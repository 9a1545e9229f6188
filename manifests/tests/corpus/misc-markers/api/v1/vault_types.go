package v1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

// Cipher is an enum from its constants.
// +k8s:enum
type Cipher string

const (
	// CipherAES is AES.
	CipherAES Cipher = "aes"
	// CipherChaCha is ChaCha20.
	CipherChaCha Cipher = "chacha20"
)

// Source names where secrets come from; at least one must be set.
// +kubebuilder:validation:AtLeastOneOf=file;env
// +kubebuilder:externalDocs:url="https://example.com/sources",description="How sources work"
type Source struct {
	// +optional
	File string `json:"file,omitempty"`
	// +optional
	Env string `json:"env,omitempty"`
}

// VaultSpec uses the less common markers.
type VaultSpec struct {
	// Cipher used.
	// +optional
	Cipher Cipher `json:"cipher,omitempty"`
	// Name may not change once set.
	// +k8s:immutable
	Name string `json:"name"`
	// Source of secrets.
	// +kubebuilder:externalDocs:url="https://example.com/vault"
	// +optional
	Source *Source `json:"source,omitempty"`
	// Grid has bounds on inner lists.
	// +kubebuilder:validation:items:MinItems=1
	// +kubebuilder:validation:items:MaxItems=3
	// +kubebuilder:validation:items:UniqueItems=false
	// +optional
	Grid [][]string `json:"grid,omitempty"`
	// Maps has bounds on each map.
	// +kubebuilder:validation:items:MinProperties=1
	// +kubebuilder:validation:items:MaxProperties=2
	// +optional
	Maps []map[string]string `json:"maps,omitempty"`
	// Ports are ints or strings.
	// +kubebuilder:validation:items:XIntOrString
	// +kubebuilder:validation:items:Type=""
	// +optional
	Ports []string `json:"ports,omitempty"`
	// Objects keep unknown fields and embed resources.
	// +kubebuilder:validation:items:XPreserveUnknownFields
	// +kubebuilder:validation:items:XEmbeddedResource
	// +optional
	Objects []runtime.RawExtension `json:"objects,omitempty"`
	// Limits exclude their bounds.
	// +kubebuilder:validation:items:Minimum=0
	// +kubebuilder:validation:items:ExclusiveMinimum=true
	// +kubebuilder:validation:items:Maximum=10
	// +kubebuilder:validation:items:ExclusiveMaximum=true
	// +optional
	Limits []int32 `json:"limits,omitempty"`
	// Extra keeps unknown fields through the validation spelling.
	// +kubebuilder:validation:XPreserveUnknownFields
	// +kubebuilder:validation:XEmbeddedResource
	// +optional
	Extra *runtime.RawExtension `json:"extra,omitempty"`
}

// Vault is the Schema for the vaults API.
// +kubebuilder:object:root=true
type Vault struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec VaultSpec `json:"spec,omitempty"`
}
