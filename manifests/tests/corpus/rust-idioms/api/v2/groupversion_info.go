// +kubebuilder:object:generate=true
// +groupName=idioms.corpus.rkb.io
package v2
