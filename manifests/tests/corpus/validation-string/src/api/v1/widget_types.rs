use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;
use rkb_runtime::{Kind, TypeMeta};
use serde::{Deserialize, Serialize};

/// WidgetSpec exercises string validation markers.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct WidgetSpec {
    /// Name is a DNS label.
    /// +kubebuilder:validation:MinLength=1
    /// +kubebuilder:validation:MaxLength=63
    /// +kubebuilder:validation:Pattern=`^[a-z0-9]([-a-z0-9]*[a-z0-9])?$`
    pub name: String,
    /// Email of the owner.
    /// +kubebuilder:validation:Format=email
    /// +optional
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub email: Option<String>,
    /// Tier of service.
    /// +kubebuilder:validation:Enum=gold;silver;bronze
    /// +optional
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tier: Option<String>,
    /// Ratio is written as a decimal string.
    /// +kubebuilder:validation:Pattern="^[0-9]+(\\.[0-9]+)?$"
    /// +kubebuilder:validation:XValidation:rule="self != '0'",message="ratio must not be zero"
    /// +optional
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ratio: Option<String>,
    /// Immutable may be set once.
    /// +kubebuilder:validation:XValidation:rule="self == oldSelf",message="immutable is immutable",reason=FieldValueForbidden,fieldPath=""
    /// +optional
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub immutable: Option<String>,
    /// Checksum is base64 data.
    /// +kubebuilder:validation:Format=byte
    /// +optional
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub checksum: Option<String>,
    /// Title has a title marker.
    /// +kubebuilder:title=The title
    /// +optional
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
}

/// Widget is the Schema for the widgets API.
/// +kubebuilder:object:root=true
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, Kind)]
pub struct Widget {
    #[serde(flatten)]
    pub type_meta: TypeMeta,
    #[serde(default)]
    pub metadata: ObjectMeta,
    #[serde(default)]
    pub spec: WidgetSpec,
}
