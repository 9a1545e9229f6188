// +kubebuilder:object:generate=true
// +groupName=flags.corpus.rkb.io
package v1
