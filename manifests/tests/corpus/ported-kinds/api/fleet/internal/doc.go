// Package internal holds the fleet types as the controllers use them in memory. It is no API version:
// `+kubebuilder:skip` keeps controller-gen from making CRDs of its kinds, root marker or not.
// +groupName=fleet.ported.rkb.io
// +kubebuilder:skip
package internal
