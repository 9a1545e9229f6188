use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;
use rkb_runtime::{Kind, TypeMeta};
use serde::{Deserialize, Serialize};

/// Seconds is a duration written as whole seconds; controller-gen takes its schema from its markers alone.
/// +kubebuilder:validation:Type=integer
/// +kubebuilder:validation:Format=int64
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(transparent)]
pub struct Seconds(#[serde(with = "crate::wire::seconds")] pub chrono::Duration);

/// Address is a URL written as a string.
/// +kubebuilder:validation:Type=string
/// +kubebuilder:validation:Format=uri
/// +kubebuilder:validation:MaxLength=2048
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Address(pub url::Url);

/// TimerSpec uses types whose wire format is not their fields.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct TimerSpec {
    /// Timeout before the timer fires.
    pub timeout: Seconds,
    /// Grace after the timeout, if any.
    /// +optional
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub grace: Option<Seconds>,
    /// Callback to call when the timer fires.
    pub callback: Address,
    /// Mirrors to call as well.
    /// +optional
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub mirrors: Vec<Address>,
}

/// Timer is the Schema for the timers API.
/// +kubebuilder:object:root=true
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, Kind)]
pub struct Timer {
    #[serde(flatten)]
    pub type_meta: TypeMeta,
    #[serde(default)]
    pub metadata: ObjectMeta,
    pub spec: TimerSpec,
}
