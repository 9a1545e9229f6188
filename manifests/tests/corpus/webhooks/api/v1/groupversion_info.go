// +kubebuilder:object:generate=true
// +groupName=hooks.corpus.rkb.io
package v1
