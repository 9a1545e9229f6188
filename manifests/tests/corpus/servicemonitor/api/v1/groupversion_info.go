// +kubebuilder:object:generate=true
// +groupName=monitoring.corpus.rkb.io
package v1
