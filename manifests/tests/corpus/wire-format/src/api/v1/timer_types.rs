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

/// Priority is written as a number from 0 to 9.
/// +kubebuilder:validation:Type=integer
/// +kubebuilder:validation:Minimum=0
/// +kubebuilder:validation:Maximum=9
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(into = "u8", try_from = "u8")]
pub enum Priority {
    Low,
    Normal,
    High,
}

/// Window is a daily time range written as "HH:MM-HH:MM".
/// +kubebuilder:validation:Type=string
/// +kubebuilder:validation:Pattern=`^\d\d:\d\d-\d\d:\d\d$`
#[derive(Clone, Debug, PartialEq)]
pub struct Window {
    pub start: u16,
    pub end: u16,
}

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
    /// Priority of the timer among those firing together.
    pub priority: Priority,
    /// Window the timer may fire in, if limited.
    /// +optional
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub window: Option<Window>,
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
