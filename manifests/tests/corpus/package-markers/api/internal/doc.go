// Package internal has a group name but is skipped.
// +groupName=skipped.pkgmarkers.corpus.rkb.io
// +kubebuilder:skip
package internal

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Hidden must not produce a CRD.
// +kubebuilder:object:root=true
type Hidden struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
}
