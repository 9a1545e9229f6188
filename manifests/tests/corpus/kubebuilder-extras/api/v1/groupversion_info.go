// +kubebuilder:object:generate=true
// +kubebuilder:ac:generate=true
// +groupName=extras.corpus.rkb.io
package v1
