//! Stage 3, plan: the CustomResourceDefinitions, one per group+kind with all its versions, before any schema is
//! resolved: which types are root kinds, which versions each CRD has (one stored, served or not), and what the
//! CRD markers on them say (applied through crd_markers.rs).

use crate::crd_markers;
use crate::model::{At, Model, Resolved, TypeKind};
use crate::type_expr::TypeExpr;
use rkb_markers::{CrdMarker, Diagnostic, Effect, Marker, Value as MarkerValue};
use serde_json::Value;

/// A root kind found in the model: a struct marked `+kubebuilder:object:root=true` with an ObjectMeta
/// `metadata` field, in a package with a group.
#[derive(Clone, Debug)]
pub struct Root {
    pub ty: usize,
    pub pkg: usize,
}

pub fn find_roots(model: &Model, diags: &mut Vec<Diagnostic>) -> Vec<Root> {
    let mut roots = Vec::new();
    for (i, t) in model.types.iter().enumerate() {
        let TypeKind::Struct(fields) = &t.kind else {
            continue;
        };
        let meta = |name: &str| {
            fields
                .iter()
                .find_map(|f| k8s_type_of(model, t.file, &f.ty, name))
        };
        match t.doc.get(Effect::Root) {
            // controller-gen makes a CRD for any type embedding TypeMeta and ObjectMeta; rkb asks for the marker,
            // and says so for a struct shaped like a kind (metadata: ObjectMeta beside a flattened TypeMeta).
            None => {
                let type_meta = fields.iter().any(|f| {
                    f.flatten && k8s_type_of(model, t.file, &f.ty, "TypeMeta") == Some(false)
                });
                if type_meta && meta("ObjectMeta") == Some(false) {
                    diags.push(type_diag(
                        model,
                        i,
                        Diagnostic::warning(format!(
                            "`{}` has `metadata: ObjectMeta` and a flattened `TypeMeta` but no `+kubebuilder:object:root=true`: no CRD is generated for it",
                            t.name
                        )),
                        "add `/// +kubebuilder:object:root=true` to make it a kind, or `/// +kubebuilder:object:root=false` to say it is not one",
                    ));
                }
                continue;
            }
            Some(mk) if mk.value.as_ref().and_then(MarkerValue::as_bool) == Some(false) => continue,
            Some(_) => {}
        }
        match (meta("ObjectMeta"), meta("ListMeta")) {
            (Some(false), _) => {}
            // A list type (`metadata: ListMeta`) is a root for deep copy and clients, not a kind.
            (None, Some(_)) => continue,
            (optional, _) => {
                let hint = if optional == Some(true) {
                    "a kind's metadata is never absent: make it `metadata: ObjectMeta` with `#[serde(default)]`"
                } else {
                    "add `#[serde(default)] pub metadata: ObjectMeta`, or remove the marker if it is not a kind"
                };
                diags.push(type_diag(
                    model,
                    i,
                    Diagnostic::warning(format!(
                        "`{}` is marked `+kubebuilder:object:root=true` but has no `metadata: ObjectMeta` field: it is not a kind, so no CRD is generated",
                        t.name
                    )),
                    hint,
                ));
                continue;
            }
        }
        let pkg = &model.packages[t.package];
        if pkg.skip {
            continue;
        }
        if pkg.group.is_none() {
            diags.push(type_diag(
                model,
                i,
                Diagnostic::warning(format!(
                    "root kind `{}` is in a module without `+groupName`: no CRD generated",
                    t.name
                )),
                &format!(
                    "add `//! +groupName=<group>` to the version module `{}`",
                    pkg.module_path()
                ),
            ));
            continue;
        }
        roots.push(Root {
            ty: i,
            pkg: t.package,
        });
    }
    roots
}

/// Whether `ty` names k8s-openapi's type `name` (`Some(false)`), an `Option` of it (`Some(true)`), or neither.
fn k8s_type_of(model: &Model, file: usize, ty: &TypeExpr, name: &str) -> Option<bool> {
    let TypeExpr::Path { segments, args } = ty else {
        return None;
    };
    match model.resolve(file, segments) {
        Resolved::K8s(ref path) if path.rsplit("::").next() == Some(name) => Some(false),
        Resolved::Wrapper if segments.last().is_some_and(|s| s == "Option") => args
            .first()
            .and_then(|inner| k8s_type_of(model, file, inner, name))
            .map(|_| true),
        _ => None,
    }
}

/// `d` placed on type `ty`'s name, with `hint`.
fn type_diag(model: &Model, ty: usize, d: Diagnostic, hint: &str) -> Diagnostic {
    model.locate(model.type_at(ty), d).with_hint(hint)
}

/// Everything about one version of a CRD except its schema.
#[derive(Clone, Debug)]
pub struct VersionPlan {
    pub name: String,
    pub ty: usize,
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
}

impl CrdPlan {
    pub fn file_name(&self) -> String {
        format!("{}_{}.yaml", self.group, self.plural)
    }
}

/// An error at marker `m` on type `ty`.
pub(crate) fn marker_diag(model: &Model, ty: usize, m: &Marker, msg: String) -> Diagnostic {
    model.locate(At::marker(model.types[ty].file, m), Diagnostic::error(msg))
}

/// Groups roots into CRDs and applies the CRD-level markers (names, scope, subresources, columns, versions).
pub fn plan_crds(model: &Model, roots: &[Root], diags: &mut Vec<Diagnostic>) -> Vec<CrdPlan> {
    let mut plans = group_versions(model, roots, diags);
    for plan in &mut plans {
        let skipped = apply_crd_markers(model, plan, diags);
        finish_versions(model, plan, &skipped, diags);
    }
    plans.retain(|p| !p.versions.is_empty());
    // controller-gen orders kinds by "Kind.group".
    plans.sort_by(|a, b| format!("{}.{}", a.kind, a.group).cmp(&format!("{}.{}", b.kind, b.group)));
    plans
}

/// One plan per (group, kind), with a version per root; a kind defined twice in one version is an error.
fn group_versions(model: &Model, roots: &[Root], diags: &mut Vec<Diagnostic>) -> Vec<CrdPlan> {
    let mut plans: Vec<CrdPlan> = Vec::new();
    for r in roots {
        let t = &model.types[r.ty];
        let group = model.packages[r.pkg].group.clone().unwrap_or_default();
        let idx = match plans
            .iter()
            .position(|p| p.group == group && p.kind == t.name)
        {
            Some(i) => i,
            None => {
                plans.push(CrdPlan {
                    plural: rkb_markers::plural_of(&t.name),
                    singular: t.name.to_lowercase(),
                    group: group.clone(),
                    kind: t.name.clone(),
                    short_names: Vec::new(),
                    categories: Vec::new(),
                    scope: "Namespaced".into(),
                    annotations: Vec::new(),
                    labels: Vec::new(),
                    versions: Vec::new(),
                });
                plans.len() - 1
            }
        };
        let version = model.packages[r.pkg].version.clone();
        let plan = &mut plans[idx];
        if plan.versions.iter().any(|v| v.name == version) {
            diags.push(model.locate(
                model.type_at(r.ty),
                Diagnostic::error(format!(
                    "kind `{}` is defined twice in {}/{}",
                    t.name, group, version
                )),
            ));
            continue;
        }
        plan.versions.push(VersionPlan {
            name: version,
            ty: r.ty,
            served: true,
            storage: false,
            deprecated: false,
            deprecation_warning: None,
            status: false,
            scale: None,
            subresources: false,
            columns: Vec::new(),
            selectable: Vec::new(),
        });
    }
    plans
}

/// Applies the CRD markers of every version's type (crd_markers.rs); returns the versions `+kubebuilder:skipversion`
/// leaves out.
fn apply_crd_markers(
    model: &Model,
    plan: &mut CrdPlan,
    diags: &mut Vec<Diagnostic>,
) -> Vec<String> {
    let mut skipped: Vec<String> = Vec::new();
    for vi in 0..plan.versions.len() {
        let ty = plan.versions[vi].ty;
        for m in &model.types[ty].doc.markers {
            let crd_marker = match m.def.effect {
                Effect::Crd(c) => c,
                // Applied to the schema (schema.rs), the package (model.rs), RBAC (rbac.rs), webhooks
                // (webhook.rs), the derive, or not at all (other generators' markers); object:root made this
                // type a root.
                Effect::Package(_)
                | Effect::Presence(_)
                | Effect::Schema(_)
                | Effect::ItemsSchema(_)
                | Effect::Schemaless
                | Effect::Rbac
                | Effect::Webhook(_)
                | Effect::Root
                | Effect::Derive(_)
                | Effect::Ignored => continue,
            };
            let at = crd_markers::Planning {
                model,
                ty,
                marker: m,
            };
            crd_markers::apply(crd_marker, &at, plan, vi, &mut skipped, diags);
        }
    }
    skipped
}

/// Drops skipped versions, orders the rest, and checks what the API server requires: exactly one storage version
/// (a single version is it), at least one served version.
fn finish_versions(
    model: &Model,
    plan: &mut CrdPlan,
    skipped: &[String],
    diags: &mut Vec<Diagnostic>,
) {
    if !skipped.is_empty() && plan.versions.len() == 1 {
        let ty = plan.versions[0].ty;
        if let Some(m) = model.types[ty].doc.get(Effect::Crd(CrdMarker::SkipVersion)) {
            diags.push(marker_diag(
                model,
                ty,
                m,
                "cannot skip a version if there is only a single version".into(),
            ));
        }
    }
    plan.versions.retain(|v| !skipped.contains(&v.name));
    plan.versions.sort_by(|a, b| a.name.cmp(&b.name));
    if plan.versions.len() == 1 {
        plan.versions[0].storage = true;
    }
    let storage: Vec<&VersionPlan> = plan.versions.iter().filter(|v| v.storage).collect();
    if !plan.versions.is_empty() && storage.len() != 1 {
        let ty = plan.versions[0].ty;
        let names: Vec<&str> = plan.versions.iter().map(|v| v.name.as_str()).collect();
        let msg = if storage.is_empty() {
            format!(
                "CRD for {}/{} has no storage version (versions: {})",
                plan.group,
                plan.kind,
                names.join(", ")
            )
        } else {
            let s: Vec<&str> = storage.iter().map(|v| v.name.as_str()).collect();
            format!(
                "CRD for {}/{} has {} storage versions ({})",
                plan.group,
                plan.kind,
                s.len(),
                s.join(", ")
            )
        };
        diags.push(
            model
                .locate(model.type_at(ty), Diagnostic::error(msg))
                .with_hint(
                    "mark exactly one version's type with `/// +kubebuilder:storageversion`",
                ),
        );
    }
    if !plan.versions.is_empty() && !plan.versions.iter().any(|v| v.served) {
        let ty = plan.versions[0].ty;
        diags.push(
            model
                .locate(
                    model.type_at(ty),
                    Diagnostic::error(format!(
                        "CRD for {}/{} does not serve any version",
                        plan.group, plan.kind
                    )),
                )
                .with_hint("remove `+kubebuilder:unservedversion` from one version"),
        );
    }
}

pub(crate) fn set_kv(v: &mut Vec<(String, String)>, k: &str, val: &str) {
    match v.iter_mut().find(|(kk, _)| kk == k) {
        Some(e) => e.1 = val.to_string(),
        None => v.push((k.to_string(), val.to_string())),
    }
}
