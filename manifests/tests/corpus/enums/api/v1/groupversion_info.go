// +kubebuilder:object:generate=true
// +groupName=enums.corpus.rkb.io
package v1
