// +kubebuilder:object:generate=true
// +groupName=numbers.corpus.rkb.io
package v1
