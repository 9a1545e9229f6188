//! How each CRD marker ([`CrdMarker`]) changes the plan of the CRD around a root kind: subresources, printer
//! columns, names and scope, versions, the CRD's own metadata and selectable fields. The match in [`apply`] is
//! exhaustive, so a CRD marker added to the vocabulary without an effect does not compile.

use super::crd_plan::{CrdPlan, marker_diag, set_kv};
use crate::model::{Model, TypeId};
use rkb_markers::{CrdMarker, Diagnostic, PrintColumn, Resource, Scale, Span};
use serde_json::{Map, Value, json};

/// Where the marker being applied is (for diagnostics).
pub struct Planning<'a> {
    pub model: &'a Model,
    /// The root type the marker is on.
    pub ty: TypeId,
    pub span: Span,
}

impl Planning<'_> {
    fn error(&self, msg: String, hint: &str) -> Diagnostic {
        marker_diag(self.model, self.ty, self.span, msg).with_hint(hint)
    }
}

/// Applies one CRD marker of version `vi` of `plan`; `+kubebuilder:skipversion` adds the version to `skipped`
/// (dropped once every marker of every version is applied).
pub fn apply(
    c: &CrdMarker,
    at: &Planning,
    plan: &mut CrdPlan,
    vi: usize,
    skipped: &mut Vec<String>,
    diags: &mut Vec<Diagnostic>,
) {
    let v = &mut plan.versions[vi];
    match c {
        CrdMarker::StatusSubresource => {
            v.subresources = true;
            v.status = true;
        }
        CrdMarker::ScaleSubresource(s) => {
            v.subresources = true;
            v.scale = Some(scale(s));
        }
        CrdMarker::PrintColumn(c) => {
            // controller-gen creates an (empty) subresources object here too.
            v.subresources = true;
            v.columns.push(column(c));
        }
        CrdMarker::SelectableField { json_path } => {
            v.selectable.push(json!({ "jsonPath": json_path }));
        }
        CrdMarker::StorageVersion => v.storage = true,
        CrdMarker::UnservedVersion => v.served = false,
        CrdMarker::DeprecatedVersion { warning } => {
            v.deprecated = true;
            v.deprecation_warning = warning.clone();
        }
        CrdMarker::SkipVersion => skipped.push(v.name.clone()),
        CrdMarker::Resource(r) => diags.extend(resource(plan, r, at)),
        CrdMarker::Metadata {
            annotations,
            labels,
        } => diags.extend(metadata(plan, annotations, labels, at)),
    }
}

pub(super) fn scale(m: &Scale) -> Value {
    let mut s = Map::new();
    s.insert("specReplicasPath".into(), json!(m.spec_path));
    s.insert("statusReplicasPath".into(), json!(m.status_path));
    if let Some(sel) = &m.selector_path {
        s.insert("labelSelectorPath".into(), json!(sel));
    }
    Value::Object(s)
}

pub(super) fn column(m: &PrintColumn) -> Value {
    let mut c = Map::new();
    c.insert("name".into(), json!(m.name));
    c.insert("type".into(), json!(m.type_));
    c.insert("jsonPath".into(), json!(m.json_path));
    if let Some(d) = m.description.as_ref().filter(|d| !d.is_empty()) {
        c.insert("description".into(), json!(d));
    }
    if let Some(f) = m.format.as_ref().filter(|d| !d.is_empty()) {
        c.insert("format".into(), json!(f));
    }
    if let Some(p) = m.priority.filter(|p| *p != 0) {
        c.insert("priority".into(), json!(p));
    }
    Value::Object(c)
}

/// `+kubebuilder:resource`: plural, singular, short names, categories and scope.
fn resource(plan: &mut CrdPlan, r: &Resource, at: &Planning) -> Option<Diagnostic> {
    if let Some(p) = r.path.as_ref().filter(|p| !p.is_empty()) {
        plan.plural = p.clone();
    }
    if let Some(s) = r.singular.as_ref().filter(|p| !p.is_empty()) {
        plan.singular = s.clone();
    }
    plan.short_names = r.short_names.clone();
    plan.categories = r.categories.clone();
    match r.scope.as_deref() {
        None | Some("" | "Namespaced") => plan.scope = "Namespaced".into(),
        Some("Cluster") => plan.scope = "Cluster".into(),
        Some(other) => {
            return Some(at.error(
                format!("unknown resource scope `{other}`"),
                "scope is `Namespaced` (the default) or `Cluster`",
            ));
        }
    }
    None
}

/// `+kubebuilder:metadata`: annotations (`key=value`) and labels (`key=value` or `key`) of the CRD.
fn metadata(
    plan: &mut CrdPlan,
    annotations: &[String],
    labels: &[String],
    at: &Planning,
) -> Vec<Diagnostic> {
    let mut diags = Vec::new();
    for a in annotations {
        match a.split_once('=') {
            Some((k, val)) => set_kv(&mut plan.annotations, k, val),
            None => diags.push(at.error(
                format!("annotation `{a}` is not in `key=value` form"),
                "e.g. `+kubebuilder:metadata:annotations=\"a.example.com/x=y\"`",
            )),
        }
    }
    // A label without `=` has an empty value.
    for l in labels {
        let (k, val) = l.split_once('=').unwrap_or((l, ""));
        set_kv(&mut plan.labels, k, val);
    }
    diags
}
