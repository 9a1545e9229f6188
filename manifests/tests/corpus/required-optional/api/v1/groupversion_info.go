// +kubebuilder:object:generate=true
// +kubebuilder:validation:Optional
// +groupName=required.corpus.rkb.io
package v1
