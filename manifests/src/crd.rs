//! CustomResourceDefinitions, one per group+kind, all versions merged: stage 3, plan (which kinds, versions and CRD
//! markers), the driver of stages 4 (resolve) and 5 (check) for one CRD, and stage 6, generate (the document).

use crate::check::{Checker, Version, check_version};
use crate::crd_markers;
use crate::model::{At, Model, Resolved, TypeKind};
use crate::node::{Doc, Node};
use crate::schema::{Schema, SchemaGen, flatten_all_of};
use crate::type_expr::TypeExpr;
use rkb_markers::{CrdMarker, Diagnostic, Effect, Marker, Value as MarkerValue};
use serde_json::{Value, json};

/// The controller-gen version whose output rkb reproduces (written in the CRD annotation, as it does).
pub const CONTROLLER_GEN_VERSION: &str = "v0.21.0";

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

/// The full `openAPIV3Schema` of a root type.
pub fn root_schema(sg: &mut SchemaGen<'_>, ty: usize, max_desc_len: Option<usize>) -> Schema {
    let mut s = sg.take_flattened(&format!("local:{ty}"));
    flatten_all_of(&mut s, sg.shared);
    let props = s.properties.get_or_insert_with(Default::default);
    if props.contains_key("metadata") {
        let mut object = Schema::new();
        object.insert("type".into(), json!("object"));
        props.insert("metadata".into(), Node::Own(object));
    }
    let type_meta = crate::schema::type_meta_schema().properties;
    for (k, v) in type_meta.into_iter().flatten() {
        props.entry(k).or_insert(v);
    }
    if let Some(n) = max_desc_len {
        truncate_descriptions(&mut s, n);
    }
    s
}

fn truncate_descriptions(s: &mut Schema, max: usize) {
    if max == 0 {
        s.remove("description");
    } else if let Some(Value::String(d)) = s.get_mut("description")
        && d.len() > max
    {
        *d = truncate(d, max);
    }
    // Descriptions are cut only in a run that copies k8s types instead of sharing them: every node is the run's own.
    s.for_each_own_mut(&mut |c| truncate_descriptions(c, max));
}

/// controller-gen's truncateString: cut at `max` bytes, then back to the last sentence end, else the last
/// blank (adding "..."), else just "...".
fn truncate(desc: &str, max: usize) -> String {
    let mut cut = max.min(desc.len());
    while !desc.is_char_boundary(cut) {
        cut -= 1;
    }
    let d = &desc[..cut];
    if let Some((i, c)) = d
        .char_indices()
        .rev()
        .find(|(_, c)| is_sentence_terminal(*c))
        && i > 0
    {
        return d[..i + c.len_utf8()].to_string();
    }
    if let Some((i, _)) = d.char_indices().rev().find(|(_, c)| c.is_whitespace())
        && i > 0
    {
        return format!("{}...", &d[..i]);
    }
    format!("{d}...")
}

fn is_sentence_terminal(c: char) -> bool {
    matches!(
        c,
        '.' | '!'
            | '?'
            | '\u{589}'
            | '\u{61f}'
            | '\u{6d4}'
            | '\u{964}'
            | '\u{965}'
            | '\u{3002}'
            | '\u{ff01}'
            | '\u{ff0e}'
            | '\u{ff1f}'
    )
}

/// Stages 4 and 5 for one CRD, one version after the other. Resolve: the version's `openAPIV3Schema`, reporting
/// what resolving finds (types, markers that do not fit their types). Then check: the rules of check.rs on it,
/// before the next version is resolved, so an error in a later version does not hide the problems of an earlier
/// one. Both report into the generator's diagnostics; the schemas come back in plan order.
pub fn resolve_and_check(
    sg: &mut SchemaGen<'_>,
    plan: &CrdPlan,
    max_desc_len: Option<usize>,
) -> Vec<Schema> {
    let mut schemas = Vec::with_capacity(plan.versions.len());
    for v in &plan.versions {
        let schema = root_schema(sg, v.ty, max_desc_len);
        let version = Version {
            ty: v.ty,
            name: &v.name,
            schema: &schema,
        };
        check_version(
            &mut Checker::new(
                sg.model,
                sg.shared,
                &sg.recursive,
                sg.earlier_errors,
                &mut sg.diags,
            ),
            &version,
        );
        schemas.push(schema);
    }
    schemas
}

/// Stage 6, generate: the CRD document of a checked `plan` with its resolved `schemas`, one per version.
pub fn crd_document(plan: &CrdPlan, schemas: Vec<Schema>) -> Doc {
    let versions = plan
        .versions
        .iter()
        .zip(schemas)
        .map(|(v, schema)| version_document(v, schema))
        .collect();
    let mut names = serde_json::Map::new();
    names.insert("kind".into(), json!(plan.kind));
    names.insert("listKind".into(), json!(format!("{}List", plan.kind)));
    names.insert("plural".into(), json!(plan.plural));
    names.insert("singular".into(), json!(plan.singular));
    if !plan.short_names.is_empty() {
        names.insert("shortNames".into(), json!(plan.short_names));
    }
    if !plan.categories.is_empty() {
        names.insert("categories".into(), json!(plan.categories));
    }
    let spec = Doc::Map(vec![
        ("group".into(), Doc::Json(json!(plan.group))),
        ("names".into(), Doc::Json(Value::Object(names))),
        ("scope".into(), Doc::Json(json!(plan.scope))),
        ("versions".into(), Doc::List(versions)),
    ]);
    Doc::Map(vec![
        (
            "apiVersion".into(),
            Doc::Json(json!("apiextensions.k8s.io/v1")),
        ),
        ("kind".into(), Doc::Json(json!("CustomResourceDefinition"))),
        ("metadata".into(), Doc::Json(crd_metadata(plan))),
        ("spec".into(), spec),
    ])
}

/// One entry of the CRD's `versions`.
fn version_document(v: &VersionPlan, schema: Schema) -> Doc {
    let mut ver = vec![
        ("name".to_string(), Doc::Json(json!(v.name))),
        (
            "schema".into(),
            Doc::Map(vec![("openAPIV3Schema".into(), Doc::Schema(schema))]),
        ),
        ("served".into(), Doc::Json(json!(v.served))),
        ("storage".into(), Doc::Json(json!(v.storage))),
    ];
    let mut add = |k: &str, v: Value| ver.push((k.to_string(), Doc::Json(v)));
    if v.deprecated {
        add("deprecated", json!(true));
    }
    if let Some(w) = &v.deprecation_warning {
        add("deprecationWarning", json!(w));
    }
    if v.subresources {
        let mut sub = serde_json::Map::new();
        if v.status {
            sub.insert("status".into(), json!({}));
        }
        if let Some(scale) = &v.scale {
            sub.insert("scale".into(), scale.clone());
        }
        add("subresources", Value::Object(sub));
    }
    if !v.columns.is_empty() {
        add("additionalPrinterColumns", Value::Array(v.columns.clone()));
    }
    if !v.selectable.is_empty() {
        add("selectableFields", Value::Array(v.selectable.clone()));
    }
    Doc::Map(ver)
}

/// The CRD's `metadata`: its name, labels, and annotations with controller-gen's version.
fn crd_metadata(plan: &CrdPlan) -> Value {
    let mut annotations = serde_json::Map::new();
    for (k, v) in &plan.annotations {
        annotations.insert(k.clone(), json!(v));
    }
    annotations.insert(
        "controller-gen.kubebuilder.io/version".into(),
        json!(CONTROLLER_GEN_VERSION),
    );
    let mut metadata = serde_json::Map::new();
    metadata.insert("annotations".into(), Value::Object(annotations));
    if !plan.labels.is_empty() {
        let labels: serde_json::Map<String, Value> = plan
            .labels
            .iter()
            .map(|(k, v)| (k.clone(), json!(v)))
            .collect();
        metadata.insert("labels".into(), Value::Object(labels));
    }
    metadata.insert(
        "name".into(),
        json!(format!("{}.{}", plan.plural, plan.group)),
    );
    Value::Object(metadata)
}

#[cfg(test)]
mod tests {
    use super::truncate;

    #[test]
    fn truncates_like_controller_gen() {
        assert_eq!(truncate("One. Two three four.", 12), "One.");
        assert_eq!(truncate("alpha beta gamma", 12), "alpha beta...");
        assert_eq!(truncate("abcdefghijkl", 5), "abcde...");
    }
}
