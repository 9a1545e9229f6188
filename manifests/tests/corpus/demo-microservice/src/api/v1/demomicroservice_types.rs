use k8s_openapi::apimachinery::pkg::apis::meta::v1::{Condition, ObjectMeta};
use rkb_runtime::{Kind, TypeMeta};
use serde::{Deserialize, Serialize};

/// DemoMicroServiceSpec defines the desired state of DemoMicroService
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct DemoMicroServiceSpec {
    /// image is the container image the micro service runs.
    pub image: String,
}

/// DemoMicroServiceStatus defines the observed state of DemoMicroService.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct DemoMicroServiceStatus {
    /// conditions represent the current state of the DemoMicroService resource.
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

/// DemoMicroService is the Schema for the demomicroservices API
/// +kubebuilder:object:root=true
/// +kubebuilder:subresource:status
/// +kubebuilder:resource:shortName=dms
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, Kind)]
pub struct DemoMicroService {
    #[serde(flatten)]
    pub type_meta: TypeMeta,
    /// metadata is a standard object metadata
    /// +optional
    #[serde(default)]
    pub metadata: ObjectMeta,
    /// spec defines the desired state of DemoMicroService
    /// +required
    pub spec: DemoMicroServiceSpec,
    /// status defines the observed state of DemoMicroService
    /// +optional
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status: Option<DemoMicroServiceStatus>,
}
