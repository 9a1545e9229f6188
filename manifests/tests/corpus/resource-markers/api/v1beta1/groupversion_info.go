// +kubebuilder:object:generate=true
// +groupName=resources.corpus.rkb.io
package v1beta1
