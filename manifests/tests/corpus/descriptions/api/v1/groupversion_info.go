// Package v1 has a package doc that does not reach the CRD.
// +kubebuilder:object:generate=true
// +groupName=docs.corpus.rkb.io
package v1
