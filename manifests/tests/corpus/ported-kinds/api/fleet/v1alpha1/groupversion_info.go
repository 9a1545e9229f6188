// Package v1alpha1 contains API Schema definitions for the fleet v1alpha1 API group.
// +kubebuilder:object:generate=true
// +groupName=fleet.ported.rkb.io
package v1alpha1
