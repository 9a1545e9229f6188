// +kubebuilder:object:generate=true
// +groupName=quirks.corpus.rkb.io
package v1
