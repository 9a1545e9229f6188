// +kubebuilder:object:generate=true
// +groupName=clusterprovisioner.rke.io
package v1alpha1
