// +kubebuilder:object:generate=true
// +groupName=scale.corpus.rkb.io
package v1
