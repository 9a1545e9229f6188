use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;
use rkb_runtime::{Kind, TypeMeta};
use serde::{Deserialize, Serialize};

/// ReportSpec is the desired state of a Report.
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct ReportSpec {
    /// Name shown at the top of the report. Its title is a number, not a string: controller-gen refuses it.
    ///
    /// +kubebuilder:title=123
    pub name: String,

    /// Layout of the report's pages.
    /// +optional
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub layout: Option<Layout>,
}

/// Layout of the pages of a report. Its title is a map, not a string: controller-gen refuses it.
/// +kubebuilder:title={}
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct Layout {
    /// Columns per page.
    /// +optional
    #[serde(default)]
    pub columns: i32,
}

/// Report is a periodic summary. It carries no root marker: it is a kind because it embeds TypeMeta and ObjectMeta.
#[derive(Clone, Debug, Default, Serialize, Deserialize, Kind)]
pub struct Report {
    #[serde(flatten)]
    pub type_meta: TypeMeta,
    #[serde(default)]
    pub metadata: ObjectMeta,

    pub spec: ReportSpec,
}
