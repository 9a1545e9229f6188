// +kubebuilder:object:generate=true
// +groupName=k8smarkers.corpus.rkb.io
package v1
