// +kubebuilder:object:generate=true
// +groupName=arrays.corpus.rkb.io
package v1
