//! What the `#[kube(...)]` attributes of a kube-derive type (read/kube_derive.rs) make of its CRD, as kube-derive's
//! `crd()` makes it: names, scope, the CRD's annotations and labels, and the version's flags, subresources (only
//! with `status`: kube-derive writes none without it, scale included), printer columns and selectable fields.

use super::crd_markers::{column, scale};
use super::crd_plan::CrdPlan;
use crate::read::kube_derive::KubeKind;
use serde_json::json;

/// Applies `kind`'s settings to version `vi` of `plan` (and to the CRD-wide names, as a version's
/// `+kubebuilder:resource` does: the plan checks that all versions agree).
pub fn apply(kind: &KubeKind, plan: &mut CrdPlan, vi: usize) {
    (plan.plural, plan.singular) = kind.names();
    plan.scope = if kind.namespaced {
        "Namespaced"
    } else {
        "Cluster"
    }
    .into();
    plan.short_names.clone_from(&kind.short_names);
    plan.categories.clone_from(&kind.categories);
    for (k, v) in &kind.annotations {
        super::crd_plan::set_kv(&mut plan.annotations, k, v);
    }
    for (k, v) in &kind.labels {
        super::crd_plan::set_kv(&mut plan.labels, k, v);
    }
    let v = &mut plan.versions[vi];
    v.served = kind.served;
    v.storage = kind.storage;
    if let Some(warning) = &kind.deprecated {
        v.deprecated = true;
        v.deprecation_warning.clone_from(warning);
    }
    v.status = kind.status.is_some();
    v.subresources = v.status;
    v.scale = kind.scale.as_ref().filter(|_| v.status).map(scale);
    v.columns = kind.columns.iter().map(column).collect();
    v.selectable = kind
        .selectable
        .iter()
        .map(|path| json!({ "jsonPath": path }))
        .collect();
}
