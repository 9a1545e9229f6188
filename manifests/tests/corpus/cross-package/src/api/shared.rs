//! Package shared holds types used by several API packages; it has no group.

use serde::{Deserialize, Serialize};

/// Container is a local type that shares its name with core/v1's.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Container {
    /// Command to run.
    pub command: Vec<String>,
    /// Shell to run the command in.
    /// +kubebuilder:default=sh
    /// +optional
    pub shell: Option<String>,
}

/// Retry configures retries.
/// +kubebuilder:validation:XValidation:rule="self.attempts <= 10",message="too many attempts"
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Retry {
    /// Attempts before giving up.
    /// +kubebuilder:validation:Minimum=1
    pub attempts: i32,
}
