use k8s_openapi::api::core::v1::{Container, LocalObjectReference, PodStatus, PodTemplateSpec, Toleration};
use k8s_openapi::apimachinery::pkg::api::resource::Quantity;
use k8s_openapi::apimachinery::pkg::apis::meta::v1::{Condition, LabelSelector, ObjectMeta, Time};
use k8s_openapi::apimachinery::pkg::util::intstr::IntOrString;
use rkb_runtime::{Kind, TypeMeta};
use serde::{Deserialize, Serialize};

/// JobRunnerSpec puts field markers on k8s-typed fields.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct JobRunnerSpec {
    /// Template is kept schemaless to keep the CRD small.
    /// +kubebuilder:validation:Schemaless
    /// +kubebuilder:pruning:PreserveUnknownFields
    /// +kubebuilder:validation:Type=object
    /// +optional
    #[serde(default)]
    pub template: PodTemplateSpec,
    /// Containers are bounded and keyed by name.
    /// +kubebuilder:validation:MinItems=1
    /// +kubebuilder:validation:MaxItems=4
    /// +listType=map
    /// +listMapKey=name
    pub containers: Vec<Container>,
    /// Memory defaults to one gibibyte.
    /// +kubebuilder:default="1Gi"
    /// +optional
    pub memory: Option<Quantity>,
    /// MaxSurge defaults to a percentage.
    /// +kubebuilder:default="25%"
    /// +optional
    pub max_surge: Option<IntOrString>,
    /// MaxUnavailable defaults to a number.
    /// +kubebuilder:default=1
    /// +optional
    pub max_unavailable: Option<IntOrString>,
    /// Selector is required and must not be empty.
    /// +kubebuilder:validation:XValidation:rule="has(self.matchLabels) || has(self.matchExpressions)",message="selector must not be empty"
    pub selector: LabelSelector,
    /// Deadline is a timestamp kept as a date.
    /// +kubebuilder:validation:Format=date
    /// +optional
    pub deadline: Option<Time>,
    /// Secret is a reference with a default name.
    /// +kubebuilder:default={name: "runner-secret"}
    /// +optional
    pub secret: Option<LocalObjectReference>,
    /// Tolerations may be null.
    /// +nullable
    /// +optional
    #[serde(default)]
    pub tolerations: Vec<Toleration>,
}

/// JobRunnerStatus reports the pod status.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct JobRunnerStatus {
    /// PodStatus of the runner pod.
    /// +optional
    pub pod_status: Option<PodStatus>,
    /// Conditions have no list markers here.
    /// +optional
    #[serde(default)]
    pub conditions: Vec<Condition>,
}

/// JobRunner shows conditions in columns.
/// +kubebuilder:object:root=true
/// +kubebuilder:subresource:status
/// +kubebuilder:printcolumn:name="Ready",type=string,JSONPath=`.status.conditions[?(@.type=="Ready")].status`
/// +kubebuilder:printcolumn:name="Reason",type=string,JSONPath=`.status.conditions[?(@.type=="Ready")].reason`,priority=1
/// +kubebuilder:printcolumn:name="Phase",type=string,JSONPath=".status.podStatus.phase",description="Phase of the runner pod"
/// +kubebuilder:printcolumn:name="Age",type=date,JSONPath=`.metadata.creationTimestamp`
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, Kind)]
pub struct JobRunner {
    #[serde(flatten)]
    pub type_meta: TypeMeta,
    #[serde(default)]
    pub metadata: ObjectMeta,
    #[serde(default)]
    pub spec: JobRunnerSpec,
    #[serde(default)]
    pub status: JobRunnerStatus,
}
