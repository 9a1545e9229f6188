// Package v1 contains API Schema definitions for the tunnels v1 API group.
// +kubebuilder:object:generate=true
// +groupName=tunnels.ported.rkb.io
package v1
