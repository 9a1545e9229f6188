// +kubebuilder:object:generate=true
// +kubebuilder:validation:Required
// +groupName=pkgrequired.corpus.rkb.io
package v1
