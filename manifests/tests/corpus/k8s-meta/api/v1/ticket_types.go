package v1

import (
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
)

// TicketSpec embeds apimachinery types.
type TicketSpec struct {
	// Selector of the pods the ticket covers.
	// +optional
	Selector *metav1.LabelSelector `json:"selector,omitempty"`
	// NotBefore is a timestamp.
	// +optional
	NotBefore *metav1.Time `json:"notBefore,omitempty"`
	// Renewed is a precise timestamp.
	// +optional
	Renewed *metav1.MicroTime `json:"renewed,omitempty"`
	// Memory is a quantity.
	Memory resource.Quantity `json:"memory"`
	// Budget caps resources by name.
	// +optional
	Budget corev1.ResourceList `json:"budget,omitempty"`
	// Limits maps names to quantities.
	// +optional
	Limits map[string]resource.Quantity `json:"limits,omitempty"`
	// MaxUnavailable is a number or a percentage.
	// +kubebuilder:validation:XIntOrString
	// +optional
	MaxUnavailable *intstr.IntOrString `json:"maxUnavailable,omitempty"`
	// Port is a number or a name, validated by CEL.
	// +kubebuilder:validation:XValidation:rule="type(self) == int ? self > 0 : self.size() > 0",message="port must be positive or a name"
	// +optional
	Port intstr.IntOrString `json:"port,omitempty"`
	// +optional
	Surge *intstr.IntOrString `json:"surge,omitempty"`
	// Owners of the ticket.
	// +optional
	Owners []metav1.OwnerReference `json:"owners,omitempty"`
}

// TicketStatus uses conditions.
type TicketStatus struct {
	// Conditions of the ticket.
	// +listType=map
	// +listMapKey=type
	// +optional
	Conditions []metav1.Condition `json:"conditions,omitempty"`
	// Expires at.
	// +optional
	Expires metav1.Time `json:"expires,omitempty"`
}

// Ticket is the Schema for the tickets API.
// +kubebuilder:object:root=true
// +kubebuilder:subresource:status
type Ticket struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec   TicketSpec   `json:"spec,omitempty"`
	Status TicketStatus `json:"status,omitempty"`
}
