use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;
use rkb_runtime::{DeepCopy, Kind, TypeMeta};
use serde::{Deserialize, Serialize};

/// WidgetSpec defines the desired state of Widget.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, DeepCopy)]
#[serde(rename_all = "camelCase")]
pub struct WidgetSpec {
    /// Replicas is the desired count (the scale subresource's spec path).
    pub replicas: i32,
    /// Color is free text.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub color: Option<String>,
    /// Tags are free text.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tags: Vec<String>,
}

/// WidgetStatus defines the observed state of Widget.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, DeepCopy)]
#[serde(rename_all = "camelCase")]
pub struct WidgetStatus {
    /// Replicas is the observed count (the scale subresource's status path).
    #[serde(default)]
    pub replicas: i32,
    /// Ready is true once the widget works.
    #[serde(default)]
    pub ready: bool,
    /// Phase is free text.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub phase: Option<String>,
}

/// Widget is a namespaced kind with status and scale subresources and the full client.
/// +genclient
/// +genclient:method=GetScale,verb=get,subresource=scale,result=k8s_openapi::api::autoscaling::v1::Scale
/// +genclient:method=UpdateScale,verb=update,subresource=scale,input=k8s_openapi::api::autoscaling::v1::Scale,result=k8s_openapi::api::autoscaling::v1::Scale
/// +genclient:method=PatchScale,verb=patch,subresource=scale,result=k8s_openapi::api::autoscaling::v1::Scale
/// +genclient:method=CreateCopy,verb=create
/// +genclient:method=ApplyPhase,verb=apply,subresource=status,input=serde_json::Value
/// +genclient:method=ApplyRaw,verb=apply,input=serde_json::Value
/// +genclient:method=ListRaw,verb=list,result=serde_json::Value
/// +genclient:method=WatchRaw,verb=watch,result=serde_json::Value
/// +genclient:method=Remove,verb=delete
/// +genclient:method=RemoveAll,verb=deleteCollection
/// +kubebuilder:object:root=true
/// +kubebuilder:subresource:status
/// +kubebuilder:subresource:scale:specpath=.spec.replicas,statuspath=.status.replicas
/// +kubebuilder:resource:shortName=wd
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, Kind)]
pub struct Widget {
    #[serde(flatten)]
    pub type_meta: TypeMeta,
    #[serde(default)]
    pub metadata: ObjectMeta,
    pub spec: WidgetSpec,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status: Option<WidgetStatus>,
}
