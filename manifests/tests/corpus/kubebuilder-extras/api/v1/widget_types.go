package v1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// WidgetSpec defines the desired state of Widget.
type WidgetSpec struct {
	// Size of the widget.
	Size int32 `json:"size"`
}

// helperState is not part of the API.
// +kubebuilder:object:generate=false
type helperState struct {
	Counter int
}

// +kubebuilder:webhook:path=/mutate-extras-corpus-rkb-io-v1-widget,mutating=true,failurePolicy=fail,sideEffects=None,groups=extras.corpus.rkb.io,resources=widgets,verbs=create;update,versions=v1,name=mwidget-v1.kb.io,admissionReviewVersions=v1
// +kubebuilder:webhook:path=/validate-extras-corpus-rkb-io-v1-widget,mutating=false,failurePolicy=fail,sideEffects=None,groups=extras.corpus.rkb.io,resources=widgets,verbs=create;update,versions=v1,name=vwidget-v1.kb.io,admissionReviewVersions=v1
// +kubebuilder:webhookconfiguration:mutating=true,name=extras-mutating

// Widget is the Schema for the widgets API, with webhook markers next to it as kubebuilder writes them.
// +kubebuilder:object:root=true
type Widget struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	Spec WidgetSpec `json:"spec,omitempty"`
}

var _ = helperState{}
