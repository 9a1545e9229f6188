// +kubebuilder:object:generate=true
// +groupName=columns.corpus.rkb.io
package v1
