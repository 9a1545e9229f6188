package v1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// GizmoSpec is a union of sources.
// +union
type GizmoSpec struct {
	// Kind of source set.
	// +unionDiscriminator
	// +k8s:conversion-gen=false
	Kind string `json:"kind" protobuf:"bytes,1,opt,name=kind"`
	// URL source.
	// +optional
	// +k8s:optional
	// +featureGate=GizmoURL
	URL *string `json:"url,omitempty" protobuf:"bytes,2,opt,name=url"`
	// Inline source.
	// +optional
	// +protobuf.nullable=true
	Inline *string `json:"inline,omitempty" protobuf:"bytes,3,opt,name=inline"`
}

// Gizmo is the Schema for the gizmos API.
// +genclient
// +genclient:nonNamespaced
// +k8s:deepcopy-gen:interfaces=k8s.io/apimachinery/pkg/runtime.Object
// +k8s:prerelease-lifecycle-gen:introduced=1.30
// +k8s:openapi-gen=true
// +protobuf=true
// +kubebuilder:object:root=true
// +kubebuilder:resource:scope=Cluster
type Gizmo struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty" protobuf:"bytes,1,opt,name=metadata"`

	Spec GizmoSpec `json:"spec" protobuf:"bytes,2,opt,name=spec"`
}
