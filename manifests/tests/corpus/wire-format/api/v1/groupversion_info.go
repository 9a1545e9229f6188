// +kubebuilder:object:generate=true
// +groupName=wire.corpus.rkb.io
package v1
