// Package v1 carries the markers of Kubernetes' other code generators.
// +k8s:deepcopy-gen=package
// +k8s:openapi-gen=true
// +k8s:defaulter-gen=TypeMeta
// +k8s:conversion-gen=rkb.local/internal/gizmo
// +kubebuilder:object:generate=true
// +groupName=foreign.corpus.rkb.io
// +groupGoName=Foreign
package v1
