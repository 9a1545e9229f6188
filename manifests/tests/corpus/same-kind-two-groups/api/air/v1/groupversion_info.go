// +kubebuilder:object:generate=true
// +groupName=air.twogroups.corpus.rkb.io
package v1
