// +kubebuilder:object:generate=true
// +groupName=example.custom.ops
package v1
