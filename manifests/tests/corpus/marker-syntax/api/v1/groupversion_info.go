// +kubebuilder:object:generate=true
// +groupName=syntax.corpus.rkb.io
package v1
