// +kubebuilder:object:generate=true
// +groupName=topology.corpus.rkb.io
package v1
