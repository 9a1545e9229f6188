//! Stage 3a, kinds: which structs of the model are Kubernetes kinds, found the way controller-gen finds them.
//!
//! Contract:
//! - A struct is a kind when it has a flattened TypeMeta (any path that resolves to it: `rkb_runtime::TypeMeta`,
//!   `kube::core::TypeMeta`, ...) and an ObjectMeta field, whether or not it carries
//!   `+kubebuilder:object:root=true` (controller-gen makes a CRD for every type embedding both, and Go projects
//!   rely on it). A struct marked `+kubebuilder:object:root=true` with an ObjectMeta field is a kind too.
//! - `+kubebuilder:object:root=false` on the struct, or `+kubebuilder:skip` on its package, says it is not one.
//! - A kind's ObjectMeta must be the field `metadata` as it is on the wire: flattened or renamed, the CRD would
//!   describe an object the API server does not store, so it is an error at the field. An optional one
//!   (`Option<ObjectMeta>`) is a warning and no CRD.
//! - A struct with `metadata: ListMeta` is a list: a root for deep copy and clients, never a kind.
//! - Kind-level markers (`object:root=true`, subresources, resource, printcolumn, versions) on a struct that is
//!   not a kind do nothing in controller-gen; a Go file ported as it is often has them on the Spec. Each such
//!   struct gets one warning naming the kind they most likely belong to.
//! - A kind in a module without `+groupName` gets a warning and no CRD.
//! - The kind of a kube-derive type (read/kube_derive.rs adds its struct) is a kind wherever it is: its group and
//!   version are its `#[kube(...)]`'s.
//!
//! Nothing is skipped without a word: every struct shaped like a kind either is one or is named in a diagnostic.

use crate::model::{Field, FileId, Model, PackageId, Resolved, TypeId, TypeKind};
use crate::read::kube_derive::{self, KubeKind};
use crate::read::type_expr::TypeExpr;
use rkb_markers::Diagnostic;
use std::collections::HashMap;

/// A root kind found in the model: a struct that is a kind (see the module docs), in a package with a group, or
/// the kind of a kube-derive type (`adopted`: its group, version and CRD settings are its `#[kube(...)]`'s).
#[derive(Clone, Debug)]
pub struct Root {
    pub ty: TypeId,
    pub pkg: PackageId,
    pub adopted: Option<Box<KubeKind>>,
}

/// What a struct's fields say about it being a kind.
struct Shape<'a> {
    /// A `#[serde(flatten)]` field whose type is TypeMeta.
    type_meta: bool,
    /// The field whose type is ObjectMeta (or `Option<ObjectMeta>`), and whether it is optional.
    object_meta: Option<(&'a Field, bool)>,
    /// A field whose type is ListMeta.
    list_meta: bool,
}

impl<'a> Shape<'a> {
    fn of(model: &Model, file: FileId, fields: &'a [Field]) -> Shape<'a> {
        let mut shape = Shape {
            type_meta: false,
            object_meta: None,
            list_meta: false,
        };
        // Resolving every field's type of every struct was most of this stage's time: only fields that can be
        // metadata are resolved (flattened, on the wire as `metadata`, or written with a metadata type's name).
        for f in fields.iter().filter(|f| could_be_metadata(f)) {
            let meta = |name: &str| meta_type(model, file, &f.ty, name);
            shape.type_meta |= f.flatten && meta("TypeMeta").is_some();
            if shape.object_meta.is_none() {
                shape.object_meta = meta("ObjectMeta").map(|optional| (f, optional));
            }
            shape.list_meta |= meta("ListMeta").is_some();
        }
        shape
    }
}

/// Whether field `f` may hold TypeMeta, ObjectMeta or ListMeta. A metadata type renamed by a `use .. as` and put in a
/// field with another wire name is the one shape this misses.
fn could_be_metadata(f: &Field) -> bool {
    const NAMES: [&str; 3] = ["TypeMeta", "ObjectMeta", "ListMeta"];
    let last = |ty: &TypeExpr| match ty {
        TypeExpr::Path { segments, args } => match segments.last().map(String::as_str) {
            Some("Option") => args.first().and_then(|inner| match inner {
                TypeExpr::Path { segments, .. } => segments.last().cloned(),
                _ => None,
            }),
            other => other.map(str::to_owned),
        },
        _ => None,
    };
    f.flatten
        || f.json_name == "metadata"
        || last(&f.ty).is_some_and(|n| NAMES.contains(&n.as_str()))
}

/// How a struct came out of [`classify`].
enum Verdict {
    Kind,
    NotAKind,
    /// Not a kind, with a diagnostic saying why (it looked like one).
    Refused(Diagnostic),
}

pub fn find_roots(model: &Model, diags: &mut Vec<Diagnostic>) -> Vec<Root> {
    let mut roots = Vec::new();
    let mut strays = Vec::new();
    let mut kube_kinds: HashMap<FileId, Vec<KubeKind>> = HashMap::new();
    for (i, t) in model.types_with_ids() {
        let TypeKind::Struct(fields) = &t.kind else {
            continue;
        };
        match classify(model, i, fields) {
            Verdict::Kind => {}
            Verdict::NotAKind => {
                strays.push(i);
                continue;
            }
            Verdict::Refused(d) => {
                diags.push(d);
                continue;
            }
        }
        let pkg = &model.packages[t.package];
        if pkg.skip {
            continue;
        }
        let adopted = kube_kinds
            .entry(t.file)
            .or_insert_with(|| kube_derive::kinds_in(&model.files[t.file]))
            .iter()
            .find(|k| k.ident.name == t.name && k.ident.line == t.span.line);
        if let Some(kind) = adopted {
            roots.push(Root {
                ty: i,
                pkg: t.package,
                adopted: Some(Box::new(kind.clone())),
            });
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
            adopted: None,
        });
    }
    for ty in strays {
        diags.extend(stray_kind_markers(model, ty, &roots));
    }
    roots
}

/// Whether struct `ty` (with `fields`) is a kind.
fn classify(model: &Model, ty: TypeId, fields: &[Field]) -> Verdict {
    let t = &model.types[ty];
    let shape = Shape::of(model, t.file, fields);
    let marked = match &t.doc.markers.root {
        Some(root) if !root.value => return Verdict::NotAKind,
        Some(_) => true,
        None => false,
    };
    let candidate = marked || shape.type_meta;
    match shape.object_meta {
        Some((field, false)) if candidate => match metadata_misplaced(model, ty, field) {
            Some(d) => Verdict::Refused(d),
            None => Verdict::Kind,
        },
        Some((_, true)) if candidate => Verdict::Refused(type_diag(
            model,
            ty,
            Diagnostic::warning(format!(
                "`{}` is a kind but its `metadata` is an `Option<ObjectMeta>`: no CRD is generated",
                t.name
            )),
            "a kind's metadata is never absent: make it `metadata: ObjectMeta` with `#[serde(default)]`",
        )),
        // A list type (`metadata: ListMeta`) is a root for deep copy and clients, not a kind.
        _ if shape.list_meta => Verdict::NotAKind,
        // A root marker without ObjectMeta: a kind that lost its metadata, or a marker left on the Spec; the
        // latter is told apart (and reported) by `stray_kind_markers`.
        _ => Verdict::NotAKind,
    }
}

/// An error when a kind's ObjectMeta `field` is not the `metadata` object the API server stores.
fn metadata_misplaced(model: &Model, ty: TypeId, field: &Field) -> Option<Diagnostic> {
    let t = &model.types[ty];
    let (what, hint) = if field.flatten {
        (
            "flattened",
            "remove `#[serde(flatten)]`: the API server keeps a kind's metadata under `metadata`",
        )
    } else if field.json_name != "metadata" {
        (
            "renamed",
            "name it `metadata` on the wire (remove the `#[serde(rename)]`): the API server keeps a kind's metadata under `metadata`",
        )
    } else {
        return None;
    };
    let at = crate::model::At {
        file: t.file,
        span: field.span,
    };
    let message = if field.flatten {
        format!("the ObjectMeta of kind `{}` is {what}", t.name)
    } else {
        format!(
            "the ObjectMeta of kind `{}` is {what} to `{}`",
            t.name, field.json_name
        )
    };
    Some(model.locate(at, Diagnostic::error(message)).with_hint(hint))
}

/// The warning for kind-level markers on struct `ty`, which is not a kind; `None` when it has none (or is a list,
/// which may carry the root marker).
fn stray_kind_markers(model: &Model, ty: TypeId, roots: &[Root]) -> Option<Diagnostic> {
    let t = &model.types[ty];
    let TypeKind::Struct(fields) = &t.kind else {
        return None;
    };
    let is_list = Shape::of(model, t.file, fields).list_meta;
    let kind_level = t.doc.markers.kind_level(is_list);
    let &(_, span) = kind_level.first()?;
    let names: Vec<String> = kind_level
        .iter()
        .map(|(name, _)| format!("`+{name}`"))
        .collect();
    let at = crate::model::At { file: t.file, span };
    let d = match probable_kind(model, ty, roots) {
        Some(kind) => Diagnostic::warning(format!(
            "{} on `{}`, which is not a kind: no CRD reads {}",
            names.join(", "),
            t.name,
            if names.len() == 1 { "it" } else { "them" }
        ))
        .with_hint(format!(
            "move {} to the kind `{kind}` (a Go file ported as it is often has them on the Spec)",
            if names.len() == 1 { "it" } else { "them" }
        )),
        None => Diagnostic::warning(format!(
            "{} on `{}`, which is not a kind: no CRD is generated for it",
            names.join(", "),
            t.name
        ))
        .with_hint(
            "a kind has a flattened `TypeMeta` and `metadata: ObjectMeta`; add them if it is one, else remove the markers",
        ),
    };
    Some(model.locate(at, d))
}

/// The kind struct `ty` most likely belongs to: a kind of its package with a field of that type (its `spec`), else
/// the kind its name starts with (`CronJobSpec` -> `CronJob`).
fn probable_kind<'m>(model: &'m Model, ty: TypeId, roots: &[Root]) -> Option<&'m str> {
    let t = &model.types[ty];
    let kinds = roots
        .iter()
        .map(|r| &model.types[r.ty])
        .filter(|k| k.package == t.package);
    let uses = |k: &&crate::model::TypeDef| {
        let TypeKind::Struct(fields) = &k.kind else {
            return false;
        };
        fields.iter().any(|f| names_type(&f.ty, &t.name))
    };
    kinds
        .clone()
        .find(uses)
        .or_else(|| {
            kinds
                .filter(|k| t.name.starts_with(&k.name))
                .max_by_key(|k| k.name.len())
        })
        .map(|k| k.name.as_str())
}

/// Whether type expression `ty` names `name`, directly or inside a wrapper such as `Option`.
fn names_type(ty: &TypeExpr, name: &str) -> bool {
    match ty {
        TypeExpr::Path { segments, args } => {
            segments.last().is_some_and(|s| s == name) || args.iter().any(|a| names_type(a, name))
        }
        _ => false,
    }
}

/// Whether `ty` names the metadata type `name` (TypeMeta, or k8s-openapi's ObjectMeta/ListMeta): `Some(false)`
/// for the type itself, `Some(true)` for an `Option` of it.
fn meta_type(model: &Model, file: FileId, ty: &TypeExpr, name: &str) -> Option<bool> {
    let TypeExpr::Path { segments, args } = ty else {
        return None;
    };
    match model.resolve(file, segments) {
        Resolved::TypeMeta if name == "TypeMeta" => Some(false),
        // k8s-openapi has no TypeMeta; its ObjectMeta and ListMeta are the metadata types.
        Resolved::K8s(ref path) if name != "TypeMeta" && path.rsplit("::").next() == Some(name) => {
            Some(false)
        }
        Resolved::Wrapper if segments.last().is_some_and(|s| s == "Option") => args
            .first()
            .and_then(|inner| meta_type(model, file, inner, name))
            .map(|_| true),
        _ => None,
    }
}

/// `d` placed on type `ty`'s name, with `hint`.
fn type_diag(model: &Model, ty: TypeId, d: Diagnostic, hint: &str) -> Diagnostic {
    model.locate(model.type_at(ty), d).with_hint(hint)
}
