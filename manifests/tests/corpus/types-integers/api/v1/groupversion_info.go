// +kubebuilder:object:generate=true
// +groupName=integers.corpus.rkb.io
package v1
