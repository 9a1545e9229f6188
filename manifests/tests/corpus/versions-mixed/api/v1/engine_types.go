package v1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// EngineSpec is the desired state in v1.
type EngineSpec struct {
	// Cylinders wanted.
	// +kubebuilder:validation:Minimum=1
	Cylinders int32 `json:"cylinders"`
	// Metadata stamped on children; an ObjectMeta that is not the root one.
	// +optional
	Metadata metav1.ObjectMeta `json:"metadata,omitempty"`
}

// EngineStatus is the observed state in v1.
// +kubebuilder:validation:XValidation:rule="self.running >= 0",message="running must not be negative"
type EngineStatus struct {
	// Running cylinders.
	Running int32 `json:"running"`
}

// Engine is the Schema for the engines API (v1).
// +kubebuilder:object:root=true
// +kubebuilder:subresource:status
// +kubebuilder:storageversion
// +kubebuilder:resource:shortName=eng
type Engine struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec   EngineSpec   `json:"spec"`
	Status EngineStatus `json:"status"`
}
