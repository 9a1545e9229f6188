//! The AppService kind: its spec (desired state) and status (observed state).

use rkb_runtime::k8s_openapi::apimachinery::pkg::apis::meta::v1::{Condition, ObjectMeta};
use rkb_runtime::{DeepCopy, Kind, TypeMeta};
use serde::{Deserialize, Serialize};

// EDIT THIS FILE! THIS IS SCAFFOLDING FOR YOU TO OWN!
// After editing, run `make manifests` to regenerate the CRD.

/// AppServiceSpec defines the desired state of AppService.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, DeepCopy)]
#[serde(rename_all = "camelCase")]
pub struct AppServiceSpec {
    // Add the fields of the desired state here. Doc comments become the descriptions in the CRD,
    // and validation markers in them become its validation rules.
    /// foo is an example field of AppService. Edit appservice_types.rs to remove or update it.
    /// +optional
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub foo: Option<String>,
}

/// AppServiceStatus defines the observed state of AppService.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, DeepCopy)]
#[serde(rename_all = "camelCase")]
pub struct AppServiceStatus {
    /// conditions represent the current state of the AppService resource.
    /// Each condition has a unique type and reflects the status of a specific aspect of the resource.
    ///
    /// Standard condition types include:
    /// - "Available": the resource is fully functional
    /// - "Progressing": the resource is being created or updated
    /// - "Degraded": the resource failed to reach or maintain its desired state
    ///
    /// The status of each condition is one of True, False, or Unknown.
    /// +listType=map
    /// +listMapKey=type
    /// +optional
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub conditions: Vec<Condition>,
}

/// AppService is the Schema for the appservices API.
/// +kubebuilder:object:root=true
/// +kubebuilder:subresource:status
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, Kind)]
pub struct AppService {
    #[serde(flatten)]
    pub type_meta: TypeMeta,

    /// metadata is a standard object metadata
    /// +optional
    #[serde(default)]
    pub metadata: ObjectMeta,

    /// spec defines the desired state of AppService
    /// +required
    pub spec: AppServiceSpec,

    /// status defines the observed state of AppService
    /// +optional
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status: Option<AppServiceStatus>,
}
