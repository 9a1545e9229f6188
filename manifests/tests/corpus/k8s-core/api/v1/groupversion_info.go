// +kubebuilder:object:generate=true
// +groupName=core.corpus.rkb.io
package v1
