// +kubebuilder:object:generate=true
// +groupName=overrides.corpus.rkb.io
package v1
