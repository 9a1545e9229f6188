package v1beta1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// PolicySpec holds the policy rules.
type PolicySpec struct {
	// Rules of the policy.
	Rules []string `json:"rules"`
}

// Policy is cluster scoped, with every naming option set.
// +kubebuilder:object:root=true
// +kubebuilder:resource:path=policies,scope=Cluster,shortName={pol,pols},categories={all,security},singular=policy
type Policy struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec PolicySpec `json:"spec,omitempty"`
}

// Proxy has a plural that is not just an s.
// +kubebuilder:object:root=true
// +kubebuilder:resource:shortName=px,categories=networking
type Proxy struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// Upstream address.
	// +optional
	Upstream string `json:"upstream,omitempty"`
}

// Ingress has an irregular plural.
// +kubebuilder:object:root=true
// +kubebuilder:resource:scope=Namespaced
type Ingress struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// Host served.
	// +optional
	Host string `json:"host,omitempty"`
}
