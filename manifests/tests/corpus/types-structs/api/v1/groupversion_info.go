// +kubebuilder:object:generate=true
// +groupName=structs.corpus.rkb.io
package v1
