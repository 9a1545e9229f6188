use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;
use rkb_runtime::{Kind, TypeMeta};
use serde::{Deserialize, Serialize};

fn default_entries() -> Vec<String> {
    Vec::new()
}

/// LedgerSpec has fields of every visibility, and docs split by attributes.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[allow(dead_code)]
pub struct LedgerSpec {
    /// Owner is private in Rust; serde still writes it.
    owner: String,
    /// Book is crate-visible.
    /// +optional
    #[serde(default)]
    pub(crate) book: String,
    /// Entries default through a function.
    /// +optional
    #[serde(default = "default_entries")]
    pub entries: Vec<String>,
    /// Notes may hold empty slots.
    /// +optional
    #[serde(default)]
    pub notes: Vec<Option<String>>,
    /// Currency uses a fully qualified String.
    #[allow(clippy::struct_field_names)]
    /// The doc continues after an attribute.
    pub currency: std::string::String,
    /// Rate is documented once; a hidden doc attribute adds nothing.
    /// +optional
    #[doc(hidden)]
    pub rate: Option<i64>,
}

/// Ledger is the Schema for the ledgers API.
/// +kubebuilder:object:root=true
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, Kind)]
pub struct Ledger {
    #[serde(flatten)]
    pub type_meta: TypeMeta,
    #[serde(default)]
    pub metadata: ObjectMeta,
    #[serde(default)]
    pub spec: LedgerSpec,
}
