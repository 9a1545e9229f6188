//! Types with JSON of their own: rkb takes each one's schema from its markers, as controller-gen does for Go types
//! with a MarshalJSON method and a Type marker.

use serde::{Deserialize, Deserializer, Serialize, Serializer};
use std::fmt;

/// +kubebuilder:validation:Type=string
/// +kubebuilder:validation:Enum=on;off

/// Toggle is a switch written as "on" or "off".
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Toggle(pub bool);

impl Serialize for Toggle {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(if self.0 { "on" } else { "off" })
    }
}

impl<'de> Deserialize<'de> for Toggle {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        Ok(Toggle(String::deserialize(d)? == "on"))
    }
}

/// +kubebuilder:validation:Type=integer
/// +kubebuilder:validation:Format=int64
/// Instant is a point in time. Its text is RFC 3339 and its JSON milliseconds since the epoch; the JSON
/// form is the one the schema describes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Instant(
    #[serde(with = "chrono::serde::ts_milliseconds")] pub chrono::DateTime<chrono::Utc>,
);

impl fmt::Display for Instant {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0.to_rfc3339())
    }
}

/// Extras are settings for plugins: a known "plugin" field and any others, kept as they are.
/// +kubebuilder:validation:Type=object
/// +kubebuilder:pruning:PreserveUnknownFields
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Extras {
    pub plugin: String,
    pub rest: serde_json::Map<String, serde_json::Value>,
}

/// Schedule is a range of days. Its JSON is its fields, trimmed when written: without a Type marker, the
/// schema describes its fields.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Schedule {
    /// From is the first day, e.g. "Mon".
    #[serde(serialize_with = "trimmed")]
    pub from: String,
    /// To is the last day, e.g. "Fri".
    /// +optional
    #[serde(
        default,
        skip_serializing_if = "String::is_empty",
        serialize_with = "trimmed"
    )]
    pub to: String,
}

fn trimmed<S: Serializer>(text: &str, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_str(text.trim())
}
