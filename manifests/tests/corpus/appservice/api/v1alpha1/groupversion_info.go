// +kubebuilder:object:generate=true
// +groupName=batch.example.com
package v1alpha1
