package v1alpha1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// EngineSpec is the desired state in v1alpha1.
type EngineSpec struct {
	// Fuel kind.
	Fuel string `json:"fuel"`
}

// EngineStatus is the observed state in v1alpha1.
// +kubebuilder:validation:XValidation:rule="self.running >= 0",message="running must not be negative"
type EngineStatus struct {
	// Running cylinders.
	Running int32 `json:"running"`
}

// Engine is the Schema for the engines API (v1alpha1).
// +kubebuilder:object:root=true
// +kubebuilder:subresource:status
// +kubebuilder:deprecatedversion:warning="use v1"
// +kubebuilder:printcolumn:name="Fuel",type=string,JSONPath=`.spec.fuel`
type Engine struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec   EngineSpec   `json:"spec"`
	Status EngineStatus `json:"status"`
}
