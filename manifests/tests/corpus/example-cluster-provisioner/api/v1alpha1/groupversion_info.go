// +kubebuilder:object:generate=true
// +groupName=example.clusterprovisioner.rke.io
package v1alpha1
