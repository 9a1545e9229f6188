// +kubebuilder:object:generate=true
// +groupName=strings.corpus.rkb.io
package v1
