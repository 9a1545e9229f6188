// +kubebuilder:object:generate=true
// +groupName=defaults.corpus.rkb.io
package v1
