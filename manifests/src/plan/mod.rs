//! Stage 3, plan: the CustomResourceDefinitions, one per group+kind with all its versions, before any schema is
//! resolved: which types are root kinds, which versions each CRD has (one stored, served or not), and what the
//! CRD markers on them say (applied through crd_markers.rs). Which structs are kinds, kinds.rs decides.

mod adopted;
pub mod crd_markers;
mod crd_plan;
pub mod kinds;

pub use crd_plan::{CrdPlan, VersionPlan};

use crate::model::{At, Model};
use crate::plan::kinds::Root;
use crd_plan::marker_diag;
use rkb_markers::{CrdMarker, Diagnostic};

/// Groups roots into CRDs and applies the CRD-level markers (names, scope, subresources, columns, versions).
pub fn plan_crds(model: &Model, roots: &[Root], diags: &mut Vec<Diagnostic>) -> Vec<CrdPlan> {
    let mut plans = group_versions(model, roots, diags);
    for plan in &mut plans {
        let skipped = apply_crd_markers(model, roots, plan, diags);
        finish_versions(model, plan, &skipped, diags);
    }
    plans.retain(|p| !p.versions.is_empty());
    plural_clashes(model, &plans, diags);
    // controller-gen orders kinds by "Kind.group".
    plans.sort_by(|a, b| format!("{}.{}", a.kind, a.group).cmp(&format!("{}.{}", b.kind, b.group)));
    plans
}

/// One plan per (group, kind), with a version per root; a kind defined twice in one version is an error.
fn group_versions(model: &Model, roots: &[Root], diags: &mut Vec<Diagnostic>) -> Vec<CrdPlan> {
    let mut plans: Vec<CrdPlan> = Vec::new();
    for r in roots {
        let t = &model.types[r.ty];
        let (group, version) = match &r.adopted {
            Some(kind) => (kind.group.clone(), kind.version.clone()),
            None => (
                model.packages[r.pkg].group.clone().unwrap_or_default(),
                model.packages[r.pkg].version.clone(),
            ),
        };
        // The CRD's kind: an adopted kind's `kind`, which its generated struct (`root`) may not be named after.
        let kind = r.adopted.as_ref().map_or(&t.name, |k| &k.kind);
        let idx = match plans
            .iter()
            .position(|p| p.group == group && &p.kind == kind)
        {
            Some(i) => i,
            None => {
                plans.push(CrdPlan {
                    plural: rkb_markers::plural_of(kind),
                    singular: kind.to_lowercase(),
                    group: group.clone(),
                    kind: kind.clone(),
                    short_names: Vec::new(),
                    categories: Vec::new(),
                    scope: "Namespaced".into(),
                    annotations: Vec::new(),
                    labels: Vec::new(),
                    versions: Vec::new(),
                    names_at: None,
                });
                plans.len() - 1
            }
        };
        let plan = &mut plans[idx];
        if plan.versions.iter().any(|v| v.name == version) {
            diags.push(model.locate(
                model.type_at(r.ty),
                Diagnostic::error(format!(
                    "kind `{kind}` is defined twice in {group}/{version}"
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
/// leaves out. Each version's markers decide its plural and scope on their own (a version without
/// `+kubebuilder:resource` says the defaults); when two versions disagree, both places get an error.
fn apply_crd_markers(
    model: &Model,
    roots: &[Root],
    plan: &mut CrdPlan,
    diags: &mut Vec<Diagnostic>,
) -> Vec<String> {
    let mut skipped: Vec<String> = Vec::new();
    let defaults = (plan.plural.clone(), plan.scope.clone());
    let mut said: Vec<VersionNames> = Vec::new();
    for vi in 0..plan.versions.len() {
        let ty = plan.versions[vi].ty;
        (plan.plural, plan.scope) = defaults.clone();
        let markers = &model.types[ty].doc.markers;
        for m in &markers.crd {
            let at = crd_markers::Planning {
                model,
                ty,
                span: m.span,
            };
            crd_markers::apply(&m.value, &at, plan, vi, &mut skipped, diags);
        }
        if let Some(kind) = roots
            .iter()
            .find(|r| r.ty == ty)
            .and_then(|r| r.adopted.as_deref())
        {
            adopted::apply(kind, plan, vi);
        }
        let at = markers
            .crd_at(|c| matches!(c, CrdMarker::Resource(_)))
            .map_or(model.type_at(ty), |span| At {
                file: model.types[ty].file,
                span,
            });
        said.push(VersionNames {
            version: plan.versions[vi].name.clone(),
            plural: plan.plural.clone(),
            scope: plan.scope.clone(),
            at,
        });
    }
    if let Some(first) = said.first() {
        (plan.plural, plan.scope) = (first.plural.clone(), first.scope.clone());
        plan.names_at = Some(first.at);
    }
    version_name_conflicts(model, plan, &said, diags);
    skipped
}

/// The plural and scope one version of a kind says, and where it says them (its `+kubebuilder:resource`, else
/// the type).
struct VersionNames {
    version: String,
    plural: String,
    scope: String,
    at: At,
}

/// An error at both versions for each version whose plural or scope differs from the first version's: the API
/// server has one of each per CRD, so merging them would rename the CRD or change its scope without a word.
fn version_name_conflicts(
    model: &Model,
    plan: &CrdPlan,
    said: &[VersionNames],
    diags: &mut Vec<Diagnostic>,
) {
    let Some((first, rest)) = said.split_first() else {
        return;
    };
    type NameOf = fn(&VersionNames) -> &str;
    let names: [(&str, NameOf); 2] = [("plural", |v| &v.plural), ("scope", |v| &v.scope)];
    for other in rest {
        for (what, name) in names {
            if name(first) == name(other) {
                continue;
            }
            for (here, there) in [(first, other), (other, first)] {
                diags.push(
                    model
                        .locate(
                            here.at,
                            Diagnostic::error(format!(
                                "version {} of {}/{} has {what} `{}`, but version {} has {what} `{}` ({})",
                                here.version,
                                plan.group,
                                plan.kind,
                                name(here),
                                there.version,
                                name(there),
                                location(model, there.at)
                            )),
                        )
                        .with_hint("a kind has one plural and one scope in all its versions: write the same `+kubebuilder:resource` on every version"),
                );
            }
        }
    }
}

/// `file:line:col` of `at`, for a message that points at a second place.
fn location(model: &Model, at: At) -> String {
    format!(
        "{}:{}:{}",
        model.files[at.file].rel.display(),
        at.span.line,
        at.span.col
    )
}

/// An error at both kinds for each two kinds of one group with the same plural: they would be one CRD
/// (`<plural>.<group>`) and one file.
fn plural_clashes(model: &Model, plans: &[CrdPlan], diags: &mut Vec<Diagnostic>) {
    for (i, a) in plans.iter().enumerate() {
        for b in &plans[i + 1..] {
            if a.group != b.group || a.plural != b.plural {
                continue;
            }
            let (Some(a_at), Some(b_at)) = (a.names_at, b.names_at) else {
                continue;
            };
            for (here, here_at, there, there_at) in [(a, a_at, b, b_at), (b, b_at, a, a_at)] {
                diags.push(
                    model
                        .locate(
                            here_at,
                            Diagnostic::error(format!(
                                "kinds `{}` and `{}` of group {} both have the plural `{}` ({} is the other)",
                                here.kind,
                                there.kind,
                                here.group,
                                here.plural,
                                location(model, there_at)
                            )),
                        )
                        .with_hint(format!(
                            "the plural names the CRD (`{}.{}`): give one of them another with `+kubebuilder:resource:path=<plural>`",
                            here.plural, here.group
                        )),
                );
            }
        }
    }
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
        let markers = &model.types[ty].doc.markers;
        if let Some(span) = markers.crd_at(|c| *c == CrdMarker::SkipVersion) {
            diags.push(marker_diag(
                model,
                ty,
                span,
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
