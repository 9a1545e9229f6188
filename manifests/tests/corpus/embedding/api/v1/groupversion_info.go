// +kubebuilder:object:generate=true
// +groupName=embedding.corpus.rkb.io
package v1
