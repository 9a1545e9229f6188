// +kubebuilder:object:generate=true
// +groupName=fields.corpus.rkb.io
package v1
