//! Go's TextMarshaler types ported the way Rust writes a type whose JSON is its text: Display and FromStr, with
//! serde_with deriving Serialize from Display (`SerializeDisplay`) or writing a field through it (`DisplayFromStr`).

use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;
use rkb_runtime::{Kind, TypeMeta};
use serde::{Deserialize, Serialize};
use serde_with::{DeserializeFromStr, DisplayFromStr, SerializeDisplay, serde_as};
use std::fmt;
use std::str::FromStr;

/// Version is a release number, written as "major.minor".
/// +kubebuilder:validation:Type=string
/// +kubebuilder:validation:Pattern=`^\d+\.\d+$`
#[derive(Clone, Copy, Debug, PartialEq, Eq, SerializeDisplay, DeserializeFromStr)]
pub struct Version {
    pub major: i32,
    pub minor: i32,
}

impl fmt::Display for Version {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}.{}", self.major, self.minor)
    }
}

impl FromStr for Version {
    type Err = String;

    fn from_str(text: &str) -> Result<Self, String> {
        let (major, minor) = text
            .split_once('.')
            .ok_or_else(|| format!("not major.minor: {text}"))?;
        Ok(Version {
            major: major.parse().map_err(|e| format!("{text}: {e}"))?,
            minor: minor.parse().map_err(|e| format!("{text}: {e}"))?,
        })
    }
}

/// Channel is a release channel, written as its name with "-beta" when it carries pre-releases.
/// +kubebuilder:validation:Type=string
/// +kubebuilder:validation:MaxLength=32
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Channel {
    pub name: String,
    pub beta: bool,
}

impl fmt::Display for Channel {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let suffix = if self.beta { "-beta" } else { "" };
        write!(f, "{}{suffix}", self.name)
    }
}

impl FromStr for Channel {
    type Err = std::convert::Infallible;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        let (name, beta) = match text.strip_suffix("-beta") {
            Some(name) => (name, true),
            None => (text, false),
        };
        Ok(Channel {
            name: name.to_owned(),
            beta,
        })
    }
}

/// UpgradeSpec is the desired state of an Upgrade.
#[serde_as]
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct UpgradeSpec {
    /// Target is the version to upgrade to.
    pub target: Version,

    /// Skipped versions are never installed.
    /// +optional
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub skipped: Vec<Version>,

    /// Channel the target is taken from.
    #[serde_as(as = "DisplayFromStr")]
    pub channel: Channel,
}

/// +kubebuilder:object:root=true

/// Upgrade moves a fleet to a new release.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, Kind)]
pub struct Upgrade {
    #[serde(flatten)]
    pub type_meta: TypeMeta,
    #[serde(default)]
    pub metadata: ObjectMeta,

    pub spec: UpgradeSpec,
}
