// +kubebuilder:object:generate=true
// +groupName=meta.corpus.rkb.io
package v1
