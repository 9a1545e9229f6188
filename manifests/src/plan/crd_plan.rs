//! The plan of one CRD (its names, scope, metadata and versions, everything but the schemas), which plan/mod.rs
//! builds and crd_markers.rs changes, and the helpers both use to change it.

use crate::model::{At, Model, TypeId};
use rkb_markers::{Diagnostic, Span};
use serde_json::Value;

/// Everything about one version of a CRD except its schema.
#[derive(Clone, Debug)]
pub struct VersionPlan {
    pub name: String,
    pub ty: TypeId,
    pub served: bool,
    pub storage: bool,
    pub deprecated: bool,
    pub deprecation_warning: Option<String>,
    pub status: bool,
    pub scale: Option<Value>,
    pub subresources: bool,
    pub columns: Vec<Value>,
    pub selectable: Vec<Value>,
}

#[derive(Clone, Debug)]
pub struct CrdPlan {
    pub group: String,
    pub kind: String,
    pub plural: String,
    pub singular: String,
    pub short_names: Vec<String>,
    pub categories: Vec<String>,
    pub scope: String,
    pub annotations: Vec<(String, String)>,
    pub labels: Vec<(String, String)>,
    pub versions: Vec<VersionPlan>,
    /// Where the plural and scope were decided (the first version's `+kubebuilder:resource`, else its type).
    pub names_at: Option<At>,
}

impl CrdPlan {
    pub fn file_name(&self) -> String {
        format!("{}_{}.yaml", self.group, self.plural)
    }
}

/// An error at the marker at `span` on type `ty`.
pub(crate) fn marker_diag(model: &Model, ty: TypeId, span: Span, msg: String) -> Diagnostic {
    let file = model.types[ty].file;
    model.locate(At { file, span }, Diagnostic::error(msg))
}

/// Sets `k` to `val` in the ordered map `v` (an annotation or label of the CRD).
pub(crate) fn set_kv(v: &mut Vec<(String, String)>, k: &str, val: &str) {
    match v.iter_mut().find(|(kk, _)| kk == k) {
        Some(e) => e.1 = val.to_string(),
        None => v.push((k.to_string(), val.to_string())),
    }
}
