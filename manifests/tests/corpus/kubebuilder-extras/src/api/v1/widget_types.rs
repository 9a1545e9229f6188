use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;
use rkb_runtime::{Kind, TypeMeta};
use serde::{Deserialize, Serialize};

/// WidgetSpec defines the desired state of Widget.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct WidgetSpec {
    /// Size of the widget.
    pub size: i32,
}

/// helperState is not part of the API.
/// +kubebuilder:object:generate=false
#[allow(dead_code)]
struct HelperState {
    counter: i64,
}

/// Widget is the Schema for the widgets API, with webhook markers next to it as kubebuilder writes them.
/// +kubebuilder:object:root=true
/// +kubebuilder:webhook:path=/mutate-extras-corpus-rkb-io-v1-widget,mutating=true,failurePolicy=fail,sideEffects=None,groups=extras.corpus.rkb.io,resources=widgets,verbs=create;update,versions=v1,name=mwidget-v1.kb.io,admissionReviewVersions=v1
/// +kubebuilder:webhook:path=/validate-extras-corpus-rkb-io-v1-widget,mutating=false,failurePolicy=fail,sideEffects=None,groups=extras.corpus.rkb.io,resources=widgets,verbs=create;update,versions=v1,name=vwidget-v1.kb.io,admissionReviewVersions=v1
/// +kubebuilder:webhookconfiguration:mutating=true,name=extras-mutating
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, Kind)]
pub struct Widget {
    #[serde(flatten)]
    pub type_meta: TypeMeta,
    #[serde(default)]
    pub metadata: ObjectMeta,
    #[serde(default)]
    pub spec: WidgetSpec,
}
