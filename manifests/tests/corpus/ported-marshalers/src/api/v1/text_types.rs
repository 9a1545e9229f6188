//! Types written as text: rkb takes each one's schema from its markers, as controller-gen does for Go types that
//! implement encoding.TextMarshaler (always a string there; here the Type marker says so).

use serde::{Deserialize, Serialize};
use std::fmt;
use std::net::IpAddr;
use std::str::FromStr;

/// Endpoint is a host and a port, written as one string "host:port": its JSON is that text, not its fields.
/// +kubebuilder:validation:Type=string
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(into = "String", try_from = "String")]
pub struct Endpoint {
    pub host: String,
    pub port: i32,
}

impl From<Endpoint> for String {
    fn from(e: Endpoint) -> String {
        if e.host.contains(':') {
            format!("[{}]:{}", e.host, e.port)
        } else {
            format!("{}:{}", e.host, e.port)
        }
    }
}

impl TryFrom<String> for Endpoint {
    type Error = String;

    fn try_from(text: String) -> Result<Self, String> {
        let (host, port) = text
            .rsplit_once(':')
            .ok_or_else(|| format!("not host:port: {text}"))?;
        let port = port.parse().map_err(|e| format!("port of {text}: {e}"))?;
        let host = host.trim_start_matches('[').trim_end_matches(']');
        Ok(Endpoint {
            host: host.to_owned(),
            port,
        })
    }
}

/// CIDR is an IP network written in CIDR notation.
/// +kubebuilder:validation:Type=string
/// +kubebuilder:validation:Format=cidr
/// +kubebuilder:validation:MaxLength=43
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Cidr {
    pub addr: IpAddr,
    pub prefix_len: u8,
}

impl fmt::Display for Cidr {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}/{}", self.addr, self.prefix_len)
    }
}

impl FromStr for Cidr {
    type Err = String;

    fn from_str(text: &str) -> Result<Self, String> {
        let (addr, len) = text
            .split_once('/')
            .ok_or_else(|| format!("not a CIDR: {text}"))?;
        Ok(Cidr {
            addr: addr.parse().map_err(|e| format!("{text}: {e}"))?,
            prefix_len: len.parse().map_err(|e| format!("{text}: {e}"))?,
        })
    }
}

impl serde::Serialize for Cidr {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

impl<'de> serde::Deserialize<'de> for Cidr {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        String::deserialize(d)?
            .parse()
            .map_err(serde::de::Error::custom)
    }
}

/// +kubebuilder:validation:Type=string
/// +kubebuilder:validation:Format=uri

/// Link is a URL, written as text.
pub type Link = url::Url;

/// Level is a log level: a number in memory, its name on the wire.
/// +kubebuilder:validation:Enum=debug;info;warn
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Level {
    #[default]
    Debug,
    Info,
    Warn,
}
