// +kubebuilder:object:generate=true
// +groupName=versions.corpus.rkb.io
package v2
