// +kubebuilder:object:generate=true
// +groupName=batch.tutorial.kubebuilder.io
package v1
