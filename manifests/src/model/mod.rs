//! Stage 2, model: the API model built from the parsed files: packages (group/version modules), types (structs,
//! unit enums, aliases, newtypes) and fields with their serde JSON names, plus every RBAC marker.

pub mod doc_comment;
pub mod ids;
pub mod item_markers;

use crate::model::doc_comment::{Doc, build_doc};
use crate::model::item_markers::{ItemMarkers, Written};
use crate::read::outline::{Fields, Ident, Item, SerdeAttrs, UseName, Variant};
use crate::read::source::{DocLine, SourceFile};
use crate::read::type_expr::TypeExpr;
pub use ids::{FileId, PackageId, TypeId};
use rkb_markers::{Diagnostic, PackageMarker, RbacRule, Span, Target, WebhookMarker};
use std::collections::HashMap;

pub struct Package {
    /// Module path, e.g. `["api", "v1"]`.
    pub module: Vec<String>,
    pub group: Option<String>,
    pub version: String,
    /// The package settings of the module's `//!` lines (of any of its files), each with its file.
    pub settings: Vec<(FileId, Written<PackageMarker>)>,
    pub skip: bool,
    /// `+kubebuilder:validation:Optional` on the package.
    pub default_optional: bool,
    /// `+kubebuilder:object:generate=false` or `+k8s:deepcopy-gen=false` on the package.
    pub deep_copy_off: bool,
}

impl Package {
    pub fn module_path(&self) -> String {
        self.module.join("::")
    }
}

impl Package {
    /// Takes what the `//!` markers of one of its files (`fi`) say: the defaults of its fields and deep copy now,
    /// the package settings for [`Package::apply_settings`].
    fn take(&mut self, fi: FileId, markers: ItemMarkers) {
        // `+kubebuilder:validation:Optional` makes fields optional by default; Required is the default.
        self.default_optional |= markers.presence.iter().any(|p| !p.value.required);
        self.deep_copy_off |= markers.deep_copy_off;
        self.settings
            .extend(markers.package.into_iter().map(|p| (fi, p)));
    }

    /// Applies the package settings: group, version and skip; a version name the API server refuses is an error at
    /// the marker that names it.
    fn apply_settings(&mut self, files: &[SourceFile], diags: &mut Vec<Diagnostic>) {
        // Where the version is named: its `+versionName`, else the `+groupName` that makes the module a version.
        let mut version_named_at = None;
        for (fi, mk) in &self.settings {
            match &mk.value {
                // A bare `+groupName` is the empty group, as in controller-gen.
                PackageMarker::GroupName(group) => {
                    self.group = Some(group.clone().unwrap_or_default());
                    version_named_at.get_or_insert((*fi, mk.span, false));
                }
                PackageMarker::VersionName(v) => {
                    self.version = v.clone();
                    version_named_at = Some((*fi, mk.span, true));
                }
                PackageMarker::Skip => self.skip = true,
            }
        }
        if let Some((fi, span, by_marker)) = version_named_at
            && self.group.is_some()
            && !self.skip
        {
            diags.extend(version_name_error(
                &self.version,
                by_marker,
                &files[fi.index()],
                span,
            ));
        }
    }
}

pub struct Field {
    pub json_name: String,
    pub ty: TypeExpr,
    pub doc: Doc,
    /// `#[serde(flatten)]`: Go's `json:",inline"`.
    pub flatten: bool,
    /// Option<T>, `#[serde(default)]` or `skip_serializing_if`: Go's `omitempty`.
    pub omit_empty: bool,
    /// The field's name in the source.
    pub span: Span,
    /// `#[serde_as(as = "T")]`: serde_with writes the field through `T`, not through its type's `Serialize`.
    pub adapter: Option<Adapter>,
}

/// The serde_with adapter a field is written through (`#[serde_as(as = "DisplayFromStr")]`).
pub struct Adapter {
    /// The attribute's key and value as written (`as = "DisplayFromStr"`), for messages.
    pub attr: String,
    /// The adapter; `None` when the text is no type.
    pub ty: Option<TypeExpr>,
}

pub enum TypeKind {
    Struct(Vec<Field>),
    /// `type X = Y;`
    Alias(TypeExpr),
    /// `struct X(Y);` (serde serializes it as Y)
    Newtype(TypeExpr),
    /// Unit-variant enum: JSON string values in declaration order.
    Enum(Vec<String>),
    /// Something the generator cannot express (reported when a CRD uses it).
    Unsupported(String),
}

/// Why a local type's JSON is not what its fields (or variants) say: controller-gen's type with its own JSON
/// (un)marshaler, whose schema its markers alone give.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum OwnJson {
    /// `#[serde(into = "T")]`, `from` or `try_from`, as written.
    SerdeAttr(String),
    /// serde_with's `#[derive(SerializeDisplay)]`, `SerializeDisplayAlt` or `DeserializeFromStr` (the derive's name):
    /// a JSON string, the text of its Display (Go's MarshalText).
    Display(String),
    /// A newtype (or `#[serde(transparent)]` struct) whose field is written through serde_with's
    /// `#[serde_as(as = "T")]`: the attribute as written.
    Adapter(String),
    /// A hand-written `impl Serialize` (or `Deserialize`) for it: the trait, and where the impl names the type.
    Impl {
        trait_name: String,
        file: FileId,
        line: usize,
    },
}

pub struct TypeDef {
    pub name: String,
    pub file: FileId,
    pub package: PackageId,
    pub doc: Doc,
    pub kind: TypeKind,
    /// Set when serde's derive from the fields is not the type's JSON.
    pub own_json: Option<OwnJson>,
    /// The type's name in the source.
    pub span: Span,
}

#[derive(Default)]
pub struct UseMap {
    /// `use a::b::C as D;` -> D => [a, b, C]
    pub names: HashMap<String, Vec<String>>,
    pub globs: Vec<Vec<String>>,
}

pub struct Model {
    pub files: Vec<SourceFile>,
    pub packages: Vec<Package>,
    pub types: Vec<TypeDef>,
    pub uses: Vec<UseMap>,
    /// Every `+kubebuilder:rbac` rule, in file order.
    pub rbac: Vec<Written<RbacRule>>,
    /// Every webhook marker, in file order, with its file and kind.
    pub webhooks: Vec<(FileId, Written<WebhookMarker>)>,
    /// Per package: its types by name.
    by_pkg: Vec<HashMap<String, TypeId>>,
    by_name: HashMap<String, Vec<TypeId>>,
    pkg_by_module: HashMap<Vec<String>, PackageId>,
    /// The Kubernetes version whose schemas embedded k8s types get (the project's k8s-openapi feature).
    pub k8s: crate::k8s::Version,
}

ids::index_by!(TypeId, TypeDef);
ids::index_by!(FileId, SourceFile);
ids::index_by!(PackageId, Package);
ids::index_by!(FileId, UseMap);
ids::index_by!(PackageId, HashMap<String, TypeId>);

/// The item of the model a schema node was made for: a type, or one field (by position) of a struct.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Origin {
    Type(TypeId),
    Field(TypeId, u32),
}

/// What a type path in a field refers to.
#[derive(Clone, Debug, PartialEq)]
pub enum Resolved {
    Prim(Prim),
    /// Option, Box, Rc, Arc: transparent.
    Wrapper,
    /// Vec, VecDeque, sets.
    List,
    /// BTreeMap, HashMap, IndexMap.
    Map,
    /// serde_json::Value
    Json,
    /// serde_json::Map<String, Value>
    JsonMap,
    Local(TypeId),
    /// A k8s-openapi type, full path `k8s_openapi::...`.
    K8s(String),
    /// kube's / rkb-runtime's TypeMeta (apiVersion + kind).
    TypeMeta,
    Unknown,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Prim {
    String,
    Bool,
    Int32,
    Int64,
    /// Go's int, int8/16, uint8/16: `integer` without a format.
    Int,
    Float,
}

/// A place in one of the model's files, where a diagnostic points: the one position type of the generator
/// (markers carry a [`rkb_markers::Span`] within their file; [`At::marker`] adds the file).
#[derive(Clone, Copy, Debug)]
pub struct At {
    pub file: FileId,
    pub span: Span,
}

impl At {
    /// A marker's text, in `file`.
    pub fn marker<T>(file: FileId, m: &Written<T>) -> At {
        At { file, span: m.span }
    }
}

impl Model {
    /// The struct names of each API group's packages.
    pub fn struct_names_by_group(
        &self,
    ) -> std::collections::BTreeMap<String, std::collections::BTreeSet<String>> {
        let mut groups: std::collections::BTreeMap<_, std::collections::BTreeSet<_>> =
            Default::default();
        for t in &self.types {
            if let (Some(group), TypeKind::Struct(_)) = (&self.packages[t.package].group, &t.kind) {
                groups
                    .entry(group.clone())
                    .or_default()
                    .insert(t.name.clone());
            }
        }
        for p in &self.packages {
            if let Some(group) = &p.group {
                groups.entry(group.clone()).or_default();
            }
        }
        groups
    }

    /// The markers of `origin`, with the file they are in (`None` for a field of what is not a struct).
    pub fn markers_of(&self, origin: Origin) -> Option<(FileId, &ItemMarkers)> {
        match origin {
            Origin::Type(t) => Some((self.types[t].file, &self.types[t].doc.markers)),
            Origin::Field(t, i) => match &self.types[t].kind {
                TypeKind::Struct(fields) => {
                    Some((self.types[t].file, &fields.get(i as usize)?.doc.markers))
                }
                _ => None,
            },
        }
    }

    /// Where the item `origin` is written: the field's name, or the type's (`None` for a field of what is not a
    /// struct).
    pub fn origin_at(&self, origin: Origin) -> Option<At> {
        match origin {
            Origin::Type(t) => Some(self.type_at(t)),
            Origin::Field(t, i) => match &self.types[t].kind {
                TypeKind::Struct(fields) => Some(At {
                    file: self.types[t].file,
                    span: fields.get(i as usize)?.span,
                }),
                _ => None,
            },
        }
    }

    /// Every type with its id, in table order.
    pub fn types_with_ids(&self) -> impl Iterator<Item = (TypeId, &TypeDef)> {
        TypeId::all(self.types.len()).zip(&self.types)
    }

    /// Where type `ty`'s name is.
    pub fn type_at(&self, ty: TypeId) -> At {
        let t = &self.types[ty];
        At {
            file: t.file,
            span: t.span,
        }
    }

    /// `d` pointing at `at`, with the source line shown.
    pub fn locate(&self, at: At, d: Diagnostic) -> Diagnostic {
        let f = &self.files[at.file];
        let Span { line, col, len } = at.span;
        d.at(&f.rel, line, col, len).with_source_line(f.line(line))
    }

    pub fn build(files: Vec<SourceFile>, diags: &mut Vec<Diagnostic>) -> Model {
        let mut m = Model {
            packages: Vec::new(),
            types: Vec::new(),
            uses: Vec::new(),
            rbac: Vec::new(),
            webhooks: Vec::new(),
            by_pkg: Vec::new(),
            by_name: HashMap::new(),
            pkg_by_module: HashMap::new(),
            files: Vec::new(),
            k8s: crate::k8s::Version::BASE,
        };
        // Packages first (a file's package is its module, or its parent module for leaf files).
        let mut file_pkg = Vec::with_capacity(files.len());
        for f in &files {
            let pkg_module = if f.is_module_root || f.module.is_empty() {
                f.module.clone()
            } else {
                f.module[..f.module.len() - 1].to_vec()
            };
            let idx = *m
                .pkg_by_module
                .entry(pkg_module.clone())
                .or_insert_with(|| {
                    m.packages.push(Package {
                        version: pkg_module.last().cloned().unwrap_or_default(),
                        module: pkg_module,
                        group: None,
                        settings: Vec::new(),
                        skip: false,
                        default_optional: false,
                        deep_copy_off: false,
                    });
                    PackageId::nth(m.packages.len() - 1)
                });
            file_pkg.push(idx);
        }
        let mut serde_impls = Vec::new();
        for (fi, items) in FileId::all(files.len()).zip(walk_files(&files, &file_pkg)) {
            m.types.extend(items.types);
            serde_impls.extend(items.serde_impls.into_iter().map(|i| (fi, i)));
            m.rbac.extend(items.rbac);
            m.webhooks
                .extend(items.webhooks.into_iter().map(|w| (fi, w)));
            for markers in items.package {
                m.packages[file_pkg[fi.index()]].take(fi, markers);
            }
            m.uses.push(items.uses);
            diags.extend(items.diags);
        }
        for p in &mut m.packages {
            p.apply_settings(&files, diags);
        }
        m.by_pkg = vec![HashMap::new(); m.packages.len()];
        for (i, t) in TypeId::all(m.types.len()).zip(&m.types) {
            m.by_pkg[t.package].insert(t.name.clone(), i);
            m.by_name.entry(t.name.clone()).or_default().push(i);
        }
        m.files = files;
        m.mark_serde_impls(serde_impls);
        m
    }

    /// Marks the local types that hand-written serde impls serialize: the impl's self type resolves as a field
    /// type written in the impl's file would. A type rkb does not model (say, one inside a fn) is left alone.
    fn mark_serde_impls(&mut self, impls: Vec<(FileId, (String, Ident))>) {
        for (fi, (trait_name, self_ty)) in impls {
            if let Resolved::Local(t) = self.resolve(fi, std::slice::from_ref(&self_ty.name)) {
                // A serde attribute, or an earlier impl, already gave the reason.
                self.types[t].own_json.get_or_insert(OwnJson::Impl {
                    trait_name,
                    file: fi,
                    line: self_ty.line,
                });
            }
        }
    }

    pub fn type_in_package(&self, pkg: PackageId, name: &str) -> Option<TypeId> {
        self.by_pkg.get(pkg.index())?.get(name).copied()
    }

    /// Resolves a path written in file `fi`.
    pub fn resolve(&self, fi: FileId, segs: &[String]) -> Resolved {
        let t = self.resolve_inner(fi, segs);
        if t == Resolved::Unknown && segs.len() == 1 {
            self.resolve_global(&segs[0])
        } else {
            t
        }
    }

    fn resolve_global(&self, name: &str) -> Resolved {
        match self.by_name.get(name) {
            Some(v) if v.len() == 1 => Resolved::Local(v[0]),
            Some(v) if !v.is_empty() => {
                // Prefer a type under src/api.
                let api: Vec<TypeId> = v
                    .iter()
                    .copied()
                    .filter(|&i| {
                        self.packages[self.types[i].package]
                            .module
                            .first()
                            .is_some_and(|s| s == "api")
                    })
                    .collect();
                if api.len() == 1 {
                    Resolved::Local(api[0])
                } else {
                    Resolved::Unknown
                }
            }
            _ => Resolved::Unknown,
        }
    }

    fn resolve_inner(&self, fi: FileId, segs: &[String]) -> Resolved {
        if segs.is_empty() {
            return Resolved::Unknown;
        }
        let pkg = self.file_package(fi);
        if segs.len() == 1 {
            let name = &segs[0];
            if let Some(t) = self.type_in_package(pkg, name) {
                return Resolved::Local(t);
            }
            if let Some(full) = self.uses[fi].names.get(name) {
                let r = self.resolve_full(fi, full);
                if r != Resolved::Unknown {
                    return r;
                }
            }
            if let Some(p) = prim_or_std(name) {
                return p;
            }
            for g in &self.uses[fi].globs {
                let mut full = g.clone();
                full.push(name.clone());
                let r = self.resolve_full(fi, &full);
                if r != Resolved::Unknown {
                    return r;
                }
            }
            return Resolved::Unknown;
        }
        // Multi-segment: substitute a `use`d first segment.
        if let Some(prefix) = self.uses[fi].names.get(&segs[0]) {
            let mut full = prefix.clone();
            full.extend_from_slice(&segs[1..]);
            return self.resolve_full(fi, &full);
        }
        self.resolve_full(fi, segs)
    }

    /// The full path of `segs`, written in file `fi`, when it names an item of another crate: through the file's
    /// `use` of its first segment, it starts with neither `crate`, `self` nor `super`, nor with a module of this
    /// crate.
    pub fn foreign_path(&self, fi: FileId, segs: &[String]) -> Option<Vec<String>> {
        let first = segs.first()?;
        let full: Vec<String> = match self.uses[fi].names.get(first) {
            Some(prefix) => prefix.iter().chain(&segs[1..]).cloned().collect(),
            None => segs.to_vec(),
        };
        let root = full.first()?;
        let local = PATH_ROOTS.contains(&root.as_str())
            || self.packages.iter().any(|p| p.module.first() == Some(root));
        (full.len() > 1 && !local).then_some(full)
    }

    fn file_package(&self, fi: FileId) -> PackageId {
        let f = &self.files[fi];
        let pm = if f.is_module_root || f.module.is_empty() {
            f.module.clone()
        } else {
            f.module[..f.module.len() - 1].to_vec()
        };
        // Every file got its package when the model was built.
        self.pkg_by_module
            .get(&pm)
            .copied()
            .unwrap_or(PackageId::nth(0))
    }

    /// Resolves an absolute-ish path (`crate::..`, `super::..`, `k8s_openapi::..`, `std::..`).
    fn resolve_full(&self, fi: FileId, segs: &[String]) -> Resolved {
        if let Some(r) = external(segs) {
            return r;
        }
        let f = &self.files[fi];
        let mut module: Vec<String> = match segs[0].as_str() {
            "crate" => Vec::new(),
            "self" => f.module.clone(),
            "super" => {
                let mut m = f.module.clone();
                // `super` in mod.rs/lib.rs is relative to the directory module itself.
                m.pop();
                m
            }
            _ => return Resolved::Unknown,
        };
        let mut rest = &segs[1..];
        while rest.first().is_some_and(|s| s == "super") {
            module.pop();
            rest = &rest[1..];
        }
        if rest.is_empty() {
            return Resolved::Unknown;
        }
        let name = &rest[rest.len() - 1];
        module.extend(rest[..rest.len() - 1].iter().cloned());
        // The module may be a package, or a leaf file module of a package (`api::v1::demo_types`).
        for candidate in [
            module.clone(),
            module[..module.len().saturating_sub(1)].to_vec(),
        ] {
            if let Some(&p) = self.pkg_by_module.get(&candidate)
                && let Some(t) = self.type_in_package(p, name)
            {
                return Resolved::Local(t);
            }
        }
        Resolved::Unknown
    }
}

/// An error at `mk` when `version`, the name of a version module's CRD versions, is one the API server refuses: it
/// must be a DNS-1035 label. `by_marker`: `mk` is the `+versionName` that gives it, else the `+groupName` of a
/// module whose name it is.
fn version_name_error(
    version: &str,
    by_marker: bool,
    file: &SourceFile,
    span: Span,
) -> Option<Diagnostic> {
    let problem = rkb_markers::dns1035_label_problem(version)?;
    let fix = match rkb_markers::dns1035_label_like(version) {
        Some(label) => format!("`//! +versionName={label}`"),
        None => "`//! +versionName=v1`".into(),
    };
    let rule = rkb_markers::DNS1035_LABEL_RULE;
    let hint = if by_marker {
        format!("the API server requires a CRD version name to be {rule}: e.g. {fix}")
    } else {
        format!(
            "the version is the module's name, and the API server requires a CRD version name to be {rule}: name \
             the version with {fix} beside `+groupName`"
        )
    };
    let message = if version.is_empty() {
        "the crate root has no module name to be its CRD version name".to_string()
    } else {
        format!("`{version}` is not a valid CRD version name: {problem}")
    };
    let Span { line, col, len } = span;
    Some(
        Diagnostic::error(message)
            .at(&file.rel, line, col, len)
            .with_source_line(file.line(line))
            .with_hint(hint),
    )
}

/// The first segments of paths inside this crate.
const PATH_ROOTS: [&str; 3] = ["crate", "self", "super"];

/// Paths to things the generator knows without looking at the project.
fn external(segs: &[String]) -> Option<Resolved> {
    let last = segs.last()?.as_str();
    if let Some(i) = segs.iter().position(|s| s == "k8s_openapi") {
        return Some(Resolved::K8s(segs[i..].join("::")));
    }
    let first = segs[0].as_str();
    match first {
        // kube-core's own TypeMeta, and the metas it re-exports from k8s-openapi (its `metadata` module: ObjectMeta
        // and ListMeta, nothing else), reached through kube, kube-client or rkb-runtime too. kube's other types
        // (`kube::core::Duration`...) are its own, whose JSON rkb does not read.
        "kube" | "kube_core" | "kube_client" | "rkb_runtime" => {
            return Some(match last {
                "TypeMeta" => Resolved::TypeMeta,
                "ObjectMeta" | "ListMeta" => Resolved::K8s(format!(
                    "k8s_openapi::apimachinery::pkg::apis::meta::v1::{last}"
                )),
                _ => Resolved::Unknown,
            });
        }
        "serde_json" => {
            return Some(match last {
                "Value" => Resolved::Json,
                "Map" => Resolved::JsonMap,
                _ => Resolved::Unknown,
            });
        }
        "std" | "alloc" | "core" | "indexmap" => {
            return prim_or_std(last).or(Some(Resolved::Unknown));
        }
        _ => {}
    }
    None
}

fn prim_or_std(name: &str) -> Option<Resolved> {
    Some(match name {
        "String" | "str" | "char" => Resolved::Prim(Prim::String),
        "bool" => Resolved::Prim(Prim::Bool),
        "i32" | "u32" => Resolved::Prim(Prim::Int32),
        "i64" | "u64" => Resolved::Prim(Prim::Int64),
        "i8" | "i16" | "u8" | "u16" | "isize" | "usize" => Resolved::Prim(Prim::Int),
        "f32" | "f64" => Resolved::Prim(Prim::Float),
        "Option" | "Box" | "Rc" | "Arc" | "Cow" => Resolved::Wrapper,
        "Vec" | "VecDeque" | "BTreeSet" | "HashSet" | "IndexSet" => Resolved::List,
        "BTreeMap" | "HashMap" | "IndexMap" => Resolved::Map,
        _ => return None,
    })
}

/// What one file adds to the model, in the order the walk meets it; merged in file order, so the model
/// and its diagnostics do not depend on which thread walked which file.
#[derive(Default)]
struct FileItems {
    types: Vec<TypeDef>,
    uses: UseMap,
    /// Every `+kubebuilder:rbac` rule.
    rbac: Vec<Written<RbacRule>>,
    /// Every webhook marker.
    webhooks: Vec<Written<WebhookMarker>>,
    /// The markers of the file's package: of each inner doc of the file and of its inline modules.
    package: Vec<ItemMarkers>,
    /// Serde impls ([`Item::SerdeImpl`]): the trait and the self type's name; resolved once every type is known.
    serde_impls: Vec<(String, Ident)>,
    diags: Vec<Diagnostic>,
}

impl FileItems {
    /// Takes the RBAC rules and webhooks of any doc comment (their generators read them wherever they are).
    fn take_generator_markers(&mut self, markers: &mut ItemMarkers) {
        self.rbac.append(&mut markers.rbac);
        self.webhooks.append(&mut markers.webhooks);
    }
}

/// Parses and walks every file, on every core (files are independent until types are resolved);
/// returns their items in file order.
fn walk_files(files: &[SourceFile], file_pkg: &[PackageId]) -> Vec<FileItems> {
    crate::read::source::with_fallback_lexer(|| {
        crate::parallel::map_indexed(
            files.len(),
            crate::parallel::MIN_FILES_TO_PARSE,
            || (),
            |(), fi| {
                let mut items = FileItems::default();
                let f = &files[fi];
                let (fi, pkg) = (FileId::nth(fi), file_pkg[fi]);
                // The scanner reads most files; syn reads the rest, and reports syntax errors.
                let Some(outline) = crate::read::outline(f, &mut items.diags) else {
                    return items;
                };
                let mut walk = Walk {
                    out: &mut items,
                    file: f,
                    fi,
                    pkg,
                };
                walk.package_docs(&outline.inner_docs);
                walk.items(&outline.items);
                items
            },
        )
    })
}

struct Walk<'a> {
    out: &'a mut FileItems,
    file: &'a SourceFile,
    fi: FileId,
    pkg: PackageId,
}

impl Walk<'_> {
    fn items(&mut self, items: &[Item]) {
        for item in items {
            match item {
                Item::Struct {
                    docs,
                    serde,
                    ident,
                    fields,
                } => self.struct_item(docs, serde, ident, fields),
                Item::Enum {
                    docs,
                    serde,
                    ident,
                    variants,
                } => self.enum_item(docs, serde, ident, variants),
                Item::Alias { docs, ident, ty } => {
                    let doc = self.doc(docs, Target::Type);
                    self.push_type(ident, doc, TypeKind::Alias(ty.clone()), None);
                }
                Item::Use(names) => {
                    for n in names {
                        match n {
                            UseName::Name(name, full) => {
                                self.out.uses.names.insert(name.clone(), full.clone());
                            }
                            UseName::Glob(prefix) => self.out.uses.globs.push(prefix.clone()),
                        }
                    }
                }
                Item::Mod { docs, body } => {
                    let _ = self.doc(docs, Target::Package);
                    if let Some(body) = body {
                        self.package_docs(&body.inner_docs);
                        self.items(&body.items);
                    }
                }
                // Not API types: only RBAC markers matter (others are reported as misplaced).
                Item::Other { docs } => {
                    let _ = self.doc(docs, Target::Package);
                }
                Item::SerdeImpl {
                    trait_name,
                    self_ty,
                } => self
                    .out
                    .serde_impls
                    .push((trait_name.clone(), self_ty.clone())),
            }
        }
    }

    /// Inner docs of a file or inline module: package markers.
    fn package_docs(&mut self, lines: &[DocLine]) {
        let mut doc = build_doc(lines, self.file, Target::Package, &mut self.out.diags);
        self.out.take_generator_markers(&mut doc.markers);
        self.out.package.push(doc.markers);
    }

    fn doc(&mut self, lines: &[DocLine], target: Target) -> Doc {
        let mut doc = build_doc(lines, self.file, target, &mut self.out.diags);
        self.out.take_generator_markers(&mut doc.markers);
        doc
    }

    fn push_type(&mut self, ident: &Ident, doc: Doc, kind: TypeKind, own_json: Option<OwnJson>) {
        self.out.types.push(TypeDef {
            own_json,
            span: Span {
                line: ident.line,
                col: ident.col,
                len: ident.name.chars().count(),
            },
            name: ident.name.clone(),
            file: self.fi,
            package: self.pkg,
            doc,
            kind,
        });
    }

    fn struct_item(
        &mut self,
        docs: &[DocLine],
        cattrs: &SerdeAttrs,
        ident: &Ident,
        fields: &Fields,
    ) {
        let doc = self.doc(docs, Target::Type);
        let rename_all = cattrs.rename_all.as_deref().and_then(RenameRule::parse);
        // A newtype's (or transparent struct's) field: its serde attributes too decide the type's JSON.
        let mut newtype_field = None;
        let kind = match fields {
            // serde(transparent): serialized as its only field, like a newtype.
            Fields::Named(named) if cattrs.transparent && named.len() == 1 => {
                newtype_field = Some(&named[0].serde);
                TypeKind::Newtype(named[0].ty.clone())
            }
            Fields::Named(named) => {
                let mut out = Vec::new();
                for f in named {
                    let fdoc = self.doc(&f.docs, Target::Field);
                    let fattrs = &f.serde;
                    if fattrs.skip {
                        continue;
                    }
                    let rust_name = f
                        .ident
                        .name
                        .strip_prefix("r#")
                        .unwrap_or(&f.ident.name)
                        .to_string();
                    let json_name = fattrs.rename.clone().unwrap_or_else(|| {
                        rename_all
                            .map(|r| r.apply_to_field(&rust_name))
                            .unwrap_or(rust_name.clone())
                    });
                    let omit_empty =
                        f.ty.is_option() || fattrs.default || fattrs.skip_if || cattrs.default;
                    out.push(Field {
                        span: Span {
                            line: f.ident.line,
                            col: f.ident.col,
                            len: rust_name.chars().count(),
                        },
                        json_name,
                        ty: f.ty.clone(),
                        doc: fdoc,
                        flatten: fattrs.flatten,
                        omit_empty,
                        adapter: fattrs.serde_as.as_ref().map(|(key, ty)| Adapter {
                            attr: serde_as_attr(key, ty),
                            // Inside the walk's fallback lexer (walk_files).
                            ty: syn::parse_str::<syn::Type>(ty)
                                .ok()
                                .map(|t| TypeExpr::from_syn(&t)),
                        }),
                    });
                }
                TypeKind::Struct(out)
            }
            Fields::Tuple(types) if types.len() == 1 => {
                newtype_field = Some(&types[0].0);
                TypeKind::Newtype(types[0].1.clone())
            }
            Fields::Tuple(_) => {
                TypeKind::Unsupported("tuple structs with more than one field".into())
            }
            Fields::Unit => TypeKind::Unsupported("unit structs".into()),
        };
        self.push_type(ident, doc, kind, own_json(cattrs, newtype_field));
    }

    fn enum_item(
        &mut self,
        docs: &[DocLine],
        cattrs: &SerdeAttrs,
        ident: &Ident,
        variants: &[Variant],
    ) {
        let doc = self.doc(docs, Target::Type);
        let rename_all = cattrs.rename_all.as_deref().and_then(RenameRule::parse);
        let mut values = Vec::new();
        let mut unit = true;
        for v in variants {
            let _ = self.doc(&v.docs, Target::Field);
            if !v.unit {
                unit = false;
                continue;
            }
            if v.serde.skip {
                continue;
            }
            values.push(v.serde.rename.clone().unwrap_or_else(|| {
                rename_all
                    .map(|r| r.apply_to_variant(&v.name))
                    .unwrap_or(v.name.clone())
            }));
        }
        let kind = if unit && !cattrs.untagged {
            TypeKind::Enum(values)
        } else {
            TypeKind::Unsupported(
                "enums with data (only unit-variant enums map to a string enum)".into(),
            )
        };
        self.push_type(ident, doc, kind, own_json(cattrs, None));
    }
}

/// Why a type with serde attributes `cattrs` (and, for a newtype, its field's `field`) has a JSON format of its own,
/// if it has: the first of a conversion, a Display derive, the newtype field's adapter.
fn own_json(cattrs: &SerdeAttrs, field: Option<&SerdeAttrs>) -> Option<OwnJson> {
    let conversion = cattrs.conversion.clone().map(OwnJson::SerdeAttr);
    let display = || cattrs.display.clone().map(OwnJson::Display);
    let adapter = || {
        let (key, ty) = field?.serde_as.as_ref()?;
        Some(OwnJson::Adapter(serde_as_attr(key, ty)))
    };
    conversion.or_else(display).or_else(adapter)
}

/// A `#[serde_as(...)]` key and its type as written in it, for messages: `as = "DisplayFromStr"`.
fn serde_as_attr(key: &str, ty: &str) -> String {
    format!("{key} = {ty:?}")
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RenameRule {
    Lower,
    Upper,
    Pascal,
    Camel,
    Snake,
    ScreamingSnake,
    Kebab,
    ScreamingKebab,
}

impl RenameRule {
    fn parse(s: &str) -> Option<Self> {
        Some(match s {
            "lowercase" => Self::Lower,
            "UPPERCASE" => Self::Upper,
            "PascalCase" => Self::Pascal,
            "camelCase" => Self::Camel,
            "snake_case" => Self::Snake,
            "SCREAMING_SNAKE_CASE" => Self::ScreamingSnake,
            "kebab-case" => Self::Kebab,
            "SCREAMING-KEBAB-CASE" => Self::ScreamingKebab,
            _ => return None,
        })
    }

    /// serde's rule for snake_case field names.
    pub fn apply_to_field(self, field: &str) -> String {
        match self {
            Self::Lower | Self::Snake => field.to_string(),
            Self::Upper | Self::ScreamingSnake => field.to_ascii_uppercase(),
            Self::Pascal | Self::Camel => {
                let mut out = String::new();
                let mut cap = self == Self::Pascal;
                for ch in field.chars() {
                    if ch == '_' {
                        cap = true;
                    } else if cap {
                        out.push(ch.to_ascii_uppercase());
                        cap = false;
                    } else {
                        out.push(ch);
                    }
                }
                if self == Self::Camel
                    && let Some(first) = out.chars().next()
                {
                    // A leading `_x` field still starts lowercase in camelCase.
                    out = first.to_ascii_lowercase().to_string() + &out[first.len_utf8()..];
                }
                out
            }
            Self::Kebab => field.replace('_', "-"),
            Self::ScreamingKebab => field.to_ascii_uppercase().replace('_', "-"),
        }
    }

    /// serde's rule for PascalCase variant names.
    pub fn apply_to_variant(self, variant: &str) -> String {
        let snake = || {
            let mut s = String::new();
            for (i, ch) in variant.char_indices() {
                if i > 0 && ch.is_uppercase() {
                    s.push('_');
                }
                s.push(ch.to_ascii_lowercase());
            }
            s
        };
        match self {
            Self::Pascal => variant.to_string(),
            Self::Lower => variant.to_ascii_lowercase(),
            Self::Upper => variant.to_ascii_uppercase(),
            Self::Camel => {
                let mut c = variant.chars();
                c.next()
                    .map(|f| f.to_ascii_lowercase().to_string() + c.as_str())
                    .unwrap_or_default()
            }
            Self::Snake => snake(),
            Self::ScreamingSnake => snake().to_ascii_uppercase(),
            Self::Kebab => snake().replace('_', "-"),
            Self::ScreamingKebab => snake().to_ascii_uppercase().replace('_', "-"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::RenameRule;

    #[test]
    fn serde_rename_rules() {
        assert_eq!(
            RenameRule::Camel.apply_to_field("image_pull_policy"),
            "imagePullPolicy"
        );
        assert_eq!(RenameRule::Pascal.apply_to_field("a_b"), "AB");
        assert_eq!(RenameRule::Kebab.apply_to_field("a_b"), "a-b");
        assert_eq!(
            RenameRule::Snake.apply_to_variant("RollingUpdate"),
            "rolling_update"
        );
        assert_eq!(
            RenameRule::Camel.apply_to_variant("RollingUpdate"),
            "rollingUpdate"
        );
        assert_eq!(RenameRule::ScreamingKebab.apply_to_variant("AbC"), "AB-C");
    }
}

#[cfg(test)]
mod resolve_tests {
    use super::*;
    use std::fs;

    fn model(files: &[(&str, &str)]) -> (tempfile::TempDir, Model, Vec<Diagnostic>) {
        let dir = tempfile::tempdir().unwrap();
        for (rel, text) in files {
            let p = dir.path().join(rel);
            fs::create_dir_all(p.parent().unwrap()).unwrap();
            fs::write(p, text).unwrap();
        }
        let mut diags = Vec::new();
        let srcs = crate::read::load::load_sources(dir.path(), &mut diags).unwrap();
        let m = Model::build(srcs, &mut diags);
        (dir, m, diags)
    }

    fn segs(p: &str) -> Vec<String> {
        p.split("::").map(str::to_owned).collect()
    }

    #[test]
    fn resolves_uses_renames_globs_and_relative_paths() {
        let (_d, m, diags) = model(&[
            ("src/lib.rs", "pub mod api;\n"),
            ("src/api/mod.rs", "pub mod v1;\npub mod common;\n"),
            ("src/api/common.rs", "pub struct Shared { pub a: String }\n"),
            (
                "src/api/v1/mod.rs",
                "//! +groupName=x.example.com\n//! +versionName=v1beta1\nmod a_types;\npub use a_types::*;\n",
            ),
            (
                "src/api/v1/a_types.rs",
                "use k8s_openapi::api::core::v1 as corev1;\nuse std::collections::*;\nuse serde_json::Value as Json;\n\
                 pub struct A { pub b: B }\npub struct B;\n",
            ),
        ]);
        assert!(diags.is_empty(), "{diags:?}");
        let fi = m
            .files
            .iter()
            .position(|f| f.rel.ends_with("a_types.rs"))
            .map(FileId::nth)
            .unwrap();
        assert_eq!(
            m.resolve(fi, &segs("corev1::Container")),
            Resolved::K8s("k8s_openapi::api::core::v1::Container".into())
        );
        assert_eq!(m.resolve(fi, &segs("BTreeMap")), Resolved::Map);
        assert_eq!(m.resolve(fi, &segs("Json")), Resolved::Json);
        assert_eq!(m.resolve(fi, &segs("i32")), Resolved::Prim(Prim::Int32));
        let b = m
            .types
            .iter()
            .position(|t| t.name == "B")
            .map(TypeId::nth)
            .unwrap();
        assert_eq!(m.resolve(fi, &segs("B")), Resolved::Local(b));
        let shared = m
            .types
            .iter()
            .position(|t| t.name == "Shared")
            .map(TypeId::nth)
            .unwrap();
        assert_eq!(
            m.resolve(fi, &segs("super::super::common::Shared")),
            Resolved::Local(shared)
        );
        assert_eq!(
            m.resolve(fi, &segs("crate::api::common::Shared")),
            Resolved::Local(shared)
        );
        assert_eq!(m.resolve(fi, &segs("Nope")), Resolved::Unknown);
        let pkg = &m.packages[m.types[b].package];
        assert_eq!(
            (
                pkg.module_path().as_str(),
                pkg.group.as_deref(),
                pkg.version.as_str()
            ),
            ("api::v1", Some("x.example.com"), "v1beta1")
        );
    }

    #[test]
    fn doc_positions_point_at_the_marker_text() {
        let (_d, m, diags) = model(&[(
            "src/lib.rs",
            "/// Doc.\n///   +kubebuilder:validation:Minimun=1\n#[doc = \" +kubebuilder:validation:Maxmum=2\"]\npub struct T { pub a: i32 }\n",
        )]);
        let _ = m;
        let cols: Vec<(usize, usize)> = diags.iter().map(|d| (d.line, d.col)).collect();
        // The name after `+` is underlined: `+` sits at 2:7 and 3:11.
        assert_eq!(cols, vec![(2, 8), (3, 12)], "{diags:?}");
    }
}
