// +kubebuilder:object:generate=true
// +groupName=whitespace.corpus.rkb.io
package v1
