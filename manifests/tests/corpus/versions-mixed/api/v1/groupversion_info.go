// +kubebuilder:object:generate=true
// +groupName=mixed.corpus.rkb.io
package v1
