use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;
use rkb_runtime::{Kind, TypeMeta};
use serde::{Deserialize, Serialize};

/// PolicySpec holds the policy rules.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PolicySpec {
    /// Rules of the policy.
    pub rules: Vec<String>,
}

/// Policy is cluster scoped, with every naming option set.
/// +kubebuilder:object:root=true
/// +kubebuilder:resource:path=policies,scope=Cluster,shortName={pol,pols},categories={all,security},singular=policy
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, Kind)]
pub struct Policy {
    #[serde(flatten)]
    pub type_meta: TypeMeta,
    #[serde(default)]
    pub metadata: ObjectMeta,
    #[serde(default)]
    pub spec: PolicySpec,
}
