// +kubebuilder:object:generate=true
// +groupName=workloads.corpus.rkb.io
package v1alpha1
