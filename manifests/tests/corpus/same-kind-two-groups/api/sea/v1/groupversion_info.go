// +kubebuilder:object:generate=true
// +groupName=sea.twogroups.corpus.rkb.io
package v1
