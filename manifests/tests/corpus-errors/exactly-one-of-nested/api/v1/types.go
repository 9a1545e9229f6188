package v1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// +genclient
// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object

// Credential holds how to log in to a registry.
type Credential struct {
	metav1.TypeMeta `json:",inline"`
	// +optional
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec CredentialSpec `json:"spec"`
}

// CredentialSpec is the desired state of a Credential. Exactly one way to log in must be set, but the marker
// names them through their parent: controller-gen refuses a OneOf marker over nested fields.
// +kubebuilder:validation:ExactlyOneOf=auth.token;auth.basic
type CredentialSpec struct {
	// Registry to log in to.
	Registry string `json:"registry"`

	// Auth is how to log in.
	Auth CredentialAuth `json:"auth"`
}

// CredentialAuth is a way to log in.
type CredentialAuth struct {
	// Token is a bearer token.
	// +optional
	Token *string `json:"token,omitempty"`

	// Basic is a user name and password.
	// +optional
	Basic *BasicAuth `json:"basic,omitempty"`
}

// BasicAuth is a user name and password.
type BasicAuth struct {
	// Username to log in as.
	Username string `json:"username"`

	// Password of the user.
	Password string `json:"password"`
}

// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object

// CredentialList is a list of Credential objects.
type CredentialList struct {
	metav1.TypeMeta `json:",inline"`
	// +optional
	metav1.ListMeta `json:"metadata,omitempty"`

	Items []Credential `json:"items"`
}
