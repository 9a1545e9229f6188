// Package v1 contains API Schema definitions for the custom v1 API group.
// +kubebuilder:object:generate=true
// +groupName=custom.ops
package v1
