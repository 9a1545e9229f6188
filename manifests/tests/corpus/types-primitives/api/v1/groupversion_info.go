// +kubebuilder:object:generate=true
// +groupName=primitives.corpus.rkb.io
package v1
