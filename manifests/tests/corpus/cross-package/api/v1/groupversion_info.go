// +kubebuilder:object:generate=true
// +groupName=crosspkg.corpus.rkb.io
package v1
