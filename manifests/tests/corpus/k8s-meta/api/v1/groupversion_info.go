// +kubebuilder:object:generate=true
// +groupName=meta-types.corpus.rkb.io
package v1
