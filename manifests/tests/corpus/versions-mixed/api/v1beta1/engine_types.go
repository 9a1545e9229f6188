package v1beta1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// EngineSpec is the desired state in v1beta1.
type EngineSpec struct {
	// Cylinders wanted.
	Cylinders int32 `json:"cylinders"`
}

// EngineStatus is the observed state in v1beta1.
// +kubebuilder:validation:XValidation:rule="self.running >= 0",message="running must not be negative"
type EngineStatus struct {
	// Running cylinders.
	Running int32 `json:"running"`
}

// Engine is the Schema for the engines API (v1beta1).
// +kubebuilder:object:root=true
// +kubebuilder:subresource:status
// +kubebuilder:subresource:scale:specpath=.spec.cylinders,statuspath=.status.running
// +kubebuilder:printcolumn:name="Cylinders",type=integer,JSONPath=`.spec.cylinders`
// +kubebuilder:printcolumn:name="Running",type=integer,JSONPath=`.status.running`,priority=1
type Engine struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec   EngineSpec   `json:"spec"`
	Status EngineStatus `json:"status"`
}
