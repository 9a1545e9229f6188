package v1alpha1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

type SiteSpec struct {
	// Region the site is in.
	Region string `json:"region"`

	// Zones of the region the site spans.
	// +optional
	Zones []string `json:"zones,omitempty"`
}

// SiteStatus has no fields yet.
type SiteStatus struct{}

// Site is a location machines run in. It carries no marker at all: controller-gen finds it because it embeds
// TypeMeta and ObjectMeta.
type Site struct {
	// TypeMeta comments are not part of the schema.
	metav1.TypeMeta `json:",inline"`
	// Standard object's metadata.
	// +optional
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// Spec is the desired state of the site.
	Spec SiteSpec `json:"spec,omitempty"`
	// Status is the observed state of the site.
	Status SiteStatus `json:"status,omitempty"`
}

type Reservation struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata"`

	// Holder is the machine holding the reservation.
	Holder string `json:"holder"`

	// Until is when the reservation ends.
	// +optional
	Until *metav1.Time `json:"until,omitempty"`
}
