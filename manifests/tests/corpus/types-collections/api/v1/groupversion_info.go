// +kubebuilder:object:generate=true
// +groupName=collections.corpus.rkb.io
package v1
