// +kubebuilder:object:generate=true
// +groupName=naming.corpus.rkb.io
package v1
