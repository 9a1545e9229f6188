//! How each CRD marker ([`CrdMarker`]) changes the plan of the CRD around a root kind: subresources, printer
//! columns, names and scope, versions, the CRD's own metadata and selectable fields. The match in [`apply`] is
//! exhaustive, so a CRD marker added to the vocabulary without an effect does not compile.

use crate::model::Model;
use crate::plan::{CrdPlan, marker_diag, set_kv};
use rkb_markers::{CrdMarker, Diagnostic, Marker, Value as MarkerValue};
use serde_json::{Map, Value, json};

/// The marker being applied, and where it is (for diagnostics).
pub struct Planning<'a> {
    pub model: &'a Model,
    /// The root type the marker is on.
    pub ty: usize,
    pub marker: &'a Marker,
}

impl Planning<'_> {
    fn error(&self, msg: String, hint: &str) -> Diagnostic {
        marker_diag(self.model, self.ty, self.marker, msg).with_hint(hint)
    }
}

/// Applies one CRD marker of version `vi` of `plan`; `+kubebuilder:skipversion` adds the version to `skipped`
/// (dropped once every marker of every version is applied).
pub fn apply(
    c: CrdMarker,
    at: &Planning,
    plan: &mut CrdPlan,
    vi: usize,
    skipped: &mut Vec<String>,
    diags: &mut Vec<Diagnostic>,
) {
    let m = at.marker;
    let v = &mut plan.versions[vi];
    match c {
        CrdMarker::StatusSubresource => {
            v.subresources = true;
            v.status = true;
        }
        CrdMarker::ScaleSubresource => {
            v.subresources = true;
            v.scale = Some(scale(m));
        }
        CrdMarker::PrintColumn => {
            // controller-gen creates an (empty) subresources object here too.
            v.subresources = true;
            v.columns.push(column(m));
        }
        CrdMarker::SelectableField => {
            v.selectable
                .push(json!({"jsonPath": m.str_arg("JSONPath").unwrap_or("")}));
        }
        CrdMarker::StorageVersion => v.storage = true,
        CrdMarker::UnservedVersion => v.served = false,
        CrdMarker::DeprecatedVersion => {
            v.deprecated = true;
            v.deprecation_warning = m.str_arg("warning").map(str::to_owned);
        }
        CrdMarker::SkipVersion => skipped.push(v.name.clone()),
        CrdMarker::Resource => diags.extend(resource(plan, at)),
        CrdMarker::Metadata => diags.extend(metadata(plan, at)),
    }
}

fn scale(m: &Marker) -> Value {
    let mut s = Map::new();
    s.insert(
        "specReplicasPath".into(),
        json!(m.str_arg("specpath").unwrap_or("")),
    );
    s.insert(
        "statusReplicasPath".into(),
        json!(m.str_arg("statuspath").unwrap_or("")),
    );
    if let Some(sel) = m.str_arg("selectorpath") {
        s.insert("labelSelectorPath".into(), json!(sel));
    }
    Value::Object(s)
}

fn column(m: &Marker) -> Value {
    let mut c = Map::new();
    c.insert("name".into(), json!(m.str_arg("name").unwrap_or("")));
    c.insert("type".into(), json!(m.str_arg("type").unwrap_or("")));
    c.insert(
        "jsonPath".into(),
        json!(m.str_arg("JSONPath").unwrap_or("")),
    );
    if let Some(d) = m.str_arg("description").filter(|d| !d.is_empty()) {
        c.insert("description".into(), json!(d));
    }
    if let Some(f) = m.str_arg("format").filter(|d| !d.is_empty()) {
        c.insert("format".into(), json!(f));
    }
    if let Some(p) = m
        .arg("priority")
        .and_then(MarkerValue::as_i64)
        .filter(|p| *p != 0)
    {
        c.insert("priority".into(), json!(p));
    }
    Value::Object(c)
}

/// `+kubebuilder:resource`: plural, singular, short names, categories and scope.
fn resource(plan: &mut CrdPlan, at: &Planning) -> Option<Diagnostic> {
    let m = at.marker;
    if let Some(p) = m.str_arg("path").filter(|p| !p.is_empty()) {
        plan.plural = p.to_string();
    }
    if let Some(s) = m.str_arg("singular").filter(|p| !p.is_empty()) {
        plan.singular = s.to_string();
    }
    plan.short_names = m.list_arg("shortName");
    plan.categories = m.list_arg("categories");
    match m.str_arg("scope").unwrap_or("") {
        "" | "Namespaced" => plan.scope = "Namespaced".into(),
        "Cluster" => plan.scope = "Cluster".into(),
        other => {
            return Some(at.error(
                format!("unknown resource scope `{other}`"),
                "scope is `Namespaced` (the default) or `Cluster`",
            ));
        }
    }
    None
}

/// `+kubebuilder:metadata`: annotations (`key=value`) and labels (`key=value` or `key`) of the CRD.
fn metadata(plan: &mut CrdPlan, at: &Planning) -> Vec<Diagnostic> {
    let m = at.marker;
    let mut diags = Vec::new();
    for a in m.list_arg("annotations") {
        match a.split_once('=') {
            Some((k, val)) => set_kv(&mut plan.annotations, k, val),
            None => diags.push(at.error(
                format!("annotation `{a}` is not in `key=value` form"),
                "e.g. `+kubebuilder:metadata:annotations=\"a.example.com/x=y\"`",
            )),
        }
    }
    for l in m.list_arg("labels") {
        let (k, val) = l.split_once('=').unwrap_or((l.as_str(), ""));
        set_kv(&mut plan.labels, k, val);
    }
    diags
}
