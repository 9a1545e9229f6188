// +kubebuilder:object:generate=true
// +groupName=serde.corpus.rkb.io
package v1
