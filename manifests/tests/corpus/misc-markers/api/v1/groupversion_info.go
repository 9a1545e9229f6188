// +kubebuilder:object:generate=true
// +groupName=misc.corpus.rkb.io
package v1
