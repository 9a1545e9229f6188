package v1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// ReportSpec is the desired state of a Report.
type ReportSpec struct {
	// Name shown at the top of the report. Its title is a number, not a string: controller-gen refuses it.
	//
	// +kubebuilder:title=123
	Name string `json:"name"`

	// Layout of the report's pages.
	// +optional
	Layout *Layout `json:"layout,omitempty"`
}

// Layout of the pages of a report. Its title is a map, not a string: controller-gen refuses it.
// +kubebuilder:title={}
type Layout struct {
	// Columns per page.
	// +optional
	Columns int32 `json:"columns,omitempty"`
}

// Report is a periodic summary. It carries no root marker: it is a kind because it embeds TypeMeta and ObjectMeta.
type Report struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec ReportSpec `json:"spec"`
}
