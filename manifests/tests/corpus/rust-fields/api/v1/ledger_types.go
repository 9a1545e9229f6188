package v1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// LedgerSpec has fields of every visibility, and docs split by attributes.
type LedgerSpec struct {
	// Owner is private in Rust; serde still writes it.
	Owner string `json:"owner"`
	// Book is crate-visible.
	// +optional
	Book string `json:"book,omitempty"`
	// Entries default through a function.
	// +optional
	Entries []string `json:"entries,omitempty"`
	// Notes may hold empty slots.
	// +optional
	Notes []*string `json:"notes,omitempty"`
	// Currency uses a fully qualified String.
	// The doc continues after an attribute.
	Currency string `json:"currency"`
	// Rate is documented once; a hidden doc attribute adds nothing.
	// +optional
	Rate *int64 `json:"rate,omitempty"`
}

// Ledger is the Schema for the ledgers API.
// +kubebuilder:object:root=true
type Ledger struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec LedgerSpec `json:"spec,omitempty"`
}
