//! Stage 4, resolve: OpenAPI v3 schemas for types, the way controller-gen builds them: each type gets its own
//! schema with `$ref`s to the types it uses, markers applied in `markers::order` (controller-gen's
//! ApplyPriority); then references are flattened (field docs and field-level validation kept over the
//! referenced type) and `allOf` branches merged.

mod adapters;
pub mod markers;
pub mod node;
mod serde_with;
pub mod shared;

use crate::model::item_markers::{ItemMarkers, Written};
use crate::model::{At, Field, FileId, Model, Origin, OwnJson, Prim, Resolved, TypeId, TypeKind};
use crate::read::scan::nesting::MAX_NESTING;
use crate::read::type_expr::TypeExpr;
use crate::schema::shared::SharedSchemas;
use rkb_markers::{Diagnostic, Presence, SchemaMarker, TopologyMarker};
use serde_json::{Map, Value, json};

pub use crate::schema::node::{K8sPath, Node, Properties, Provenance, Schema, TypeRef};
use std::collections::HashMap;
use std::rc::Rc;

pub struct SchemaGen<'m> {
    pub model: &'m Model,
    pub diags: Vec<Diagnostic>,
    unflat: HashMap<TypeId, Schema>,
    in_progress: Vec<TypeId>,
    /// Flattened schemas by the type they stand for, shared: each use copies what it needs.
    flat: HashMap<TypeRef, Rc<Schema>>,
    /// k8s-openapi schemas by Rust path (`None`: no schema), fetched once per run.
    k8s: HashMap<String, Option<Rc<Schema>>>,
    share_k8s: bool,
    /// The run's shared k8s sub-schemas (shared.rs), which the checks and the printer also read.
    pub shared: &'m SharedSchemas,
    /// The types being flattened right now (a hit means the type refers to itself).
    flattening: Vec<TypeRef>,
    /// Names of local types found to refer to themselves (their inner reference becomes `{}`).
    pub recursive: Vec<String>,
    /// Whether the stages before resolving reported an error: the check rules do not run then (check/mod.rs).
    pub earlier_errors: bool,
    /// How many field types name each local type ([`type_uses`]). A type named once has its
    /// flattened schema moved into that one use instead of copied out of the cache (which kept every
    /// CRD's spec alive).
    uses: &'m [usize],
    /// How many levels deep the generator is: each type it resolves inside another, each type expression, each
    /// level of the schema it flattens. At most [`MAX_NESTING`]: past it, what is deeper is an error and left out,
    /// so that no stage recurses without bound.
    nesting: usize,
    /// The deepest `nesting` reached since the flattening of the current type began, counting what the cached
    /// schemas it uses span.
    deepest: usize,
    /// Per flattened type, how many levels its schema spans below the level it is used at: a cached schema
    /// used deeper than where it was made may not pass the limit either.
    heights: HashMap<TypeRef, usize>,
    /// The kinds whose schema was found too deep (one error each: what is left out below the first cut would only
    /// repeat it).
    too_deep_kinds: Vec<Option<TypeId>>,
}

/// How many field types name each local type of `model`, by type index; computed once per run and
/// shared by every generator.
pub fn type_uses(model: &Model) -> Vec<usize> {
    let mut uses = vec![0; model.types.len()];
    for td in &model.types {
        match &td.kind {
            TypeKind::Struct(fields) => {
                for f in fields {
                    count_uses(model, td.file, &f.ty, &mut uses);
                }
            }
            TypeKind::Alias(ty) | TypeKind::Newtype(ty) => {
                count_uses(model, td.file, ty, &mut uses)
            }
            _ => {}
        }
    }
    uses
}

/// Counts the local types named by `ty` (and its generic arguments), as [`SchemaGen::expr_schema`]
/// resolves them. Counting too many or too few only costs time: a schema taken out of the cache is
/// rebuilt when asked for again.
fn count_uses(model: &Model, file: FileId, ty: &TypeExpr, uses: &mut [usize]) {
    match ty {
        TypeExpr::Path { segments, args } => {
            if let Resolved::Local(t) = model.resolve(file, segments) {
                uses[t.index()] += 1;
            }
            for arg in args {
                count_uses(model, file, arg, uses);
            }
        }
        TypeExpr::List(elem) => count_uses(model, file, elem, uses),
        TypeExpr::Other(_) => {}
    }
}

const TYPE_META_APIVERSION: &str = "APIVersion defines the versioned schema of this representation of an object.\nServers should convert recognized schemas to the latest internal value, and\nmay reject unrecognized values.\nMore info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#resources";
const TYPE_META_KIND: &str = "Kind is a string value representing the REST resource this object represents.\nServers may infer this from the endpoint the client submits requests to.\nCannot be updated.\nIn CamelCase.\nMore info: https://git.k8s.io/community/contributors/devel/sig-architecture/api-conventions.md#types-kinds";

/// metav1.TypeMeta's schema (what an inline TypeMeta contributes to a root kind).
pub fn type_meta_schema() -> Schema {
    Schema::from_value(json!({
        "type": "object",
        "properties": {
            "apiVersion": {"description": TYPE_META_APIVERSION, "type": "string"},
            "kind": {"description": TYPE_META_KIND, "type": "string"}
        }
    }))
}

impl<'m> SchemaGen<'m> {
    /// `share_k8s`: keep k8s types' sub-schemas shared in `shared` (see shared.rs) instead of copying them per
    /// use.
    pub fn new(
        model: &'m Model,
        uses: &'m [usize],
        shared: &'m SharedSchemas,
        share_k8s: bool,
    ) -> Self {
        SchemaGen {
            share_k8s,
            shared,
            model,
            diags: Vec::new(),
            unflat: HashMap::new(),
            in_progress: Vec::new(),
            flat: HashMap::new(),
            k8s: HashMap::new(),
            flattening: Vec::new(),
            recursive: Vec::new(),
            earlier_errors: false,
            uses,
            nesting: 0,
            deepest: 0,
            heights: HashMap::new(),
            too_deep_kinds: Vec::new(),
        }
    }

    /// Goes one level deeper, for what is at `at`; past [`MAX_NESTING`] levels, reports that instead and returns
    /// false: the caller leaves out what is deeper.
    fn enter(&mut self, at: At) -> bool {
        if self.nesting >= MAX_NESTING {
            self.too_deep(at);
            return false;
        }
        self.nesting += 1;
        self.deepest = self.deepest.max(self.nesting);
        true
    }

    fn leave(&mut self) {
        self.nesting -= 1;
    }

    /// The error for nesting past [`MAX_NESTING`] at `at`, naming the kind whose schema is being built (once per
    /// kind).
    fn too_deep(&mut self, at: At) {
        let kind = self.flattening.first().and_then(TypeRef::local);
        if self.too_deep_kinds.contains(&kind) {
            return;
        }
        self.too_deep_kinds.push(kind);
        let within = kind.map_or(String::new(), |t| {
            format!(" in the schema of `{}`", self.model.types[t].name)
        });
        self.error(
            at,
            format!("nested deeper than {MAX_NESTING} levels{within}"),
            Some(format!(
                "rkb follows at most {MAX_NESTING} levels, counting each type resolved inside another (a field's \
                 type, a type argument, an alias's or newtype's target) and each level of the schema; a structure \
                 that nests without end belongs in a type that refers to itself (written as `{{}}` inside, as \
                 controller-gen does) or in serde_json::Value"
            )),
        );
    }

    /// Where the local type being flattened is (for errors found in its schema).
    fn flattening_at(&self) -> Option<At> {
        let t = self.flattening.last().and_then(TypeRef::local)?;
        Some(self.model.type_at(t))
    }

    pub fn error(&mut self, at: At, msg: impl Into<String>, hint: Option<String>) {
        let mut d = self.model.locate(at, Diagnostic::error(msg));
        if let Some(h) = hint {
            d = d.with_hint(h);
        }
        crate::error::report_once(&mut self.diags, d);
    }

    /// The (unflattened) schema of local type `t`, with its description and type-level markers.
    pub fn type_schema(&mut self, t: TypeId) -> Schema {
        if let Some(s) = self.unflat.get(&t) {
            return s.clone();
        }
        if self.in_progress.contains(&t) {
            let td = &self.model.types[t];
            let at = At {
                file: td.file,
                span: td.span,
            };
            self.error(
                at,
                format!("type `{}` is defined in terms of itself", td.name),
                None,
            );
            return Schema::new();
        }
        let td = &self.model.types[t];
        let at = At {
            file: td.file,
            span: td.span,
        };
        if !self.enter(at) {
            return Schema::new();
        }
        self.in_progress.push(t);
        let td = &self.model.types[t];
        // controller-gen's type with its own JSON format: with a Type marker, its markers alone describe it.
        let by_markers = self.described_by_markers(t);
        let mut s = match &td.kind {
            _ if by_markers => {
                if let Some(what) = adapters::written_by_display(td) {
                    self.check_written_as_string(&td.doc.markers, td.file, &what);
                }
                Schema::new()
            }
            // Its fields would describe JSON it does not write: only the markers can.
            _ if td.own_json.is_some() => {
                self.own_json_error(t);
                Schema::new()
            }
            TypeKind::Struct(fields) => self.struct_schema(t, fields),
            TypeKind::Alias(ty) | TypeKind::Newtype(ty) => self.expr_schema(td.file, ty, at),
            TypeKind::Enum(values) => {
                let mut s = Schema::new();
                s.insert("type".into(), json!("string"));
                if !values.is_empty() {
                    s.insert(
                        "enum".into(),
                        Value::Array(values.iter().map(|v| json!(v)).collect()),
                    );
                }
                s
            }
            TypeKind::Unsupported(what) => {
                self.error(
                    at,
                    format!("`{}`: {what} cannot be described by a CRD schema", td.name),
                    None,
                );
                Schema::new()
            }
        };
        // Borrowed from the model, not from `self`: no copies of markers needed.
        let model = self.model;
        let td = &model.types[t];
        // controller-gen leaves the description out too when markers alone describe the type.
        if !td.doc.description.is_empty() && !by_markers {
            s.insert("description".into(), json!(td.doc.description));
        }
        let enum_values = match &td.kind {
            TypeKind::Enum(v) => Some(v.as_slice()),
            _ => None,
        };
        if let Some(own) = s.get("type").and_then(Value::as_str).map(str::to_owned) {
            self.check_type_marker_fits(&td.doc.markers, &td.name, &own, td.file);
        }
        s.provenance.made_for = Some(Origin::Type(t));
        self.apply_markers(&mut s, &td.doc.markers, td.file, enum_values);
        self.in_progress.pop();
        self.leave();
        // Flattening asks once per type (its result is cached); field types ask again for named basic
        // types. A struct named by at most one field is not asked for twice: don't keep a copy.
        let asked_again = self.uses[t.index()] > 1
            || !matches!(td.kind, TypeKind::Struct(_))
            || td.own_json.is_some();
        if asked_again {
            self.unflat.insert(t, s.clone());
        }
        s
    }

    fn struct_schema(&mut self, t: TypeId, fields: &[Field]) -> Schema {
        let td = &self.model.types[t];
        let file = td.file;
        let default_optional = self.model.packages[td.package].default_optional;
        let one_of: Vec<&String> = td
            .doc
            .markers
            .one_ofs()
            .flat_map(|(_, fields)| fields)
            .collect();
        let mut properties = Properties::new();
        let mut required: Vec<String> = Vec::new();
        let mut all_of: Vec<Schema> = Vec::new();
        let mut immutable: Vec<String> = Vec::new();
        for (i, f) in (0u32..).zip(fields) {
            let at = At { file, span: f.span };
            let name = f.json_name.clone();
            if self.is_required(f, default_optional, one_of.contains(&&name), at) {
                required.push(name.clone());
            }
            let prop = self.field_schema(f, Origin::Field(t, i), file, at);
            if f.flatten {
                all_of.push(prop);
                continue;
            }
            if f.doc.markers.immutable() {
                immutable.push(name.clone());
            }
            properties.insert(name, Node::Own(prop));
        }
        // Flattened structs contribute fields we don't see here: the OneOf names cannot be checked then.
        if !fields.iter().any(|f| f.flatten) {
            self.check_one_of_fields(t, fields);
        }
        required.sort();
        let mut props = Schema::new();
        props.insert("type".into(), json!("object"));
        if !properties.is_empty() {
            props.properties = Some(properties);
        }
        if !required.is_empty() {
            props.insert("required".into(), json!(required));
        }
        if !all_of.is_empty() {
            props.all_of = Some(all_of);
        }
        let rules: Vec<Value> = immutable
            .iter()
            .filter(|f| !required.contains(f))
            .map(|f| json!({"rule": format!("!has(oldSelf.{f}) || has(self.{f})"), "message": format!("field {f} is immutable once set")}))
            .collect();
        if !rules.is_empty() {
            props.insert("x-kubernetes-validations".into(), Value::Array(rules));
        }
        props
    }

    /// Whether field `f` is required, by controller-gen's precedence: the kubebuilder:validation: forms decide,
    /// Optional first; of the short forms (optional, required, and their k8s: spellings) optional wins; without a
    /// marker, what serde says (Option, default, skip_serializing_if) unless the package makes fields optional.
    /// A field named by a OneOf marker must not be required (an error at the field says so).
    fn is_required(&mut self, f: &Field, default_optional: bool, in_one_of: bool, at: At) -> bool {
        let name = &f.json_name;
        let has = |required, decisive| f.doc.markers.says(Presence { required, decisive });
        let (required, problem) = if has(false, true) {
            (false, None)
        } else if has(true, true) || (!has(false, false) && has(true, false)) {
            let problem = (
                format!(
                    "field `{name}` is part of a OneOf constraint and cannot be marked as required"
                ),
                "remove the required marker, or the field from the OneOf marker",
            );
            (true, Some(problem))
        } else if has(false, false) {
            (false, None)
        } else if !default_optional && !f.flatten && !f.omit_empty {
            let problem = (
                format!("field `{name}` is part of a OneOf constraint and must be optional"),
                "make it `Option<T>` or add `#[serde(default, skip_serializing_if = ...)]`",
            );
            (true, Some(problem))
        } else {
            (false, None)
        };
        if in_one_of && let Some((message, hint)) = problem {
            self.error(at, message, Some(hint.into()));
        }
        required
    }

    /// The schema of field `f`: its type's, or what its serde_with adapter writes (or none, for Schemaless and for
    /// JSON rkb cannot read, described by markers), its description, its markers.
    fn field_schema(&mut self, f: &Field, origin: Origin, file: FileId, at: At) -> Schema {
        let adapted = adapters::is_adapted(f);
        let by_markers =
            f.doc.markers.type_marker().is_some() && (adapted || self.is_opaque(file, &f.ty));
        if by_markers {
            self.check_field_written_as_string(f, file);
        }
        let mut prop = if f.doc.markers.schemaless || by_markers {
            Schema::new()
        } else if adapted {
            self.adapted_field_schema(f, at)
        } else {
            self.expr_schema(file, &f.ty, at)
        };
        if !f.doc.description.is_empty() {
            prop.insert("description".into(), json!(f.doc.description));
        } else {
            prop.remove("description");
        }
        self.check_field_type_marker(f, &prop, file);
        prop.provenance.made_for = Some(origin);
        self.apply_markers(&mut prop, &f.doc.markers, file, None);
        prop
    }

    /// A Type marker on a field whose local type has a type of its own (see [`Self::check_type_marker_fits`]).
    fn check_field_type_marker(&mut self, f: &Field, prop: &Schema, file: FileId) {
        let Some(r @ TypeRef::Local(t)) = prop.reference.clone() else {
            return;
        };
        let own = self
            .flattened(&r)
            .get("type")
            .and_then(Value::as_str)
            .map(str::to_owned);
        if let Some(own) = own {
            let name = self.model.types[t].name.clone();
            self.check_type_marker_fits(&f.doc.markers, &name, &own, file);
        }
    }

    /// A Type marker saying other than object on a struct with fields (`own`, its schema's type), which serializes
    /// as an object through its derived `Serialize`: controller-gen fails on the pair on a field
    /// ("conflicting types in allOf branches", without saying where) and writes a schema the API server refuses on
    /// a type; rkb said nothing and kept one of them. Name the marker and both types.
    fn check_type_marker_fits(
        &mut self,
        markers: &ItemMarkers,
        name: &str,
        own: &str,
        file: FileId,
    ) {
        let Some((span, wanted)) = markers.type_marker() else {
            return;
        };
        // Only objects: a newtype or an enum may serialize as the marker says (serde_repr, a hand-written impl).
        if wanted.is_empty() || wanted == own || own != "object" {
            return;
        }
        self.error(
            At { file, span },
            format!("conflicting types: the Type marker says {wanted}, but `{name}` serializes as {own}"),
            Some(
                "drop the marker, or give the type the JSON format the marker describes: `#[serde(into = ...)]`, a \
                 hand-written `impl Serialize`, or a newtype over another crate's type"
                    .into(),
            ),
        );
    }

    /// A OneOf marker naming a field that does not exist makes a CEL rule the API server rejects: say so now.
    fn check_one_of_fields(&mut self, t: TypeId, fields: &[Field]) {
        let td = &self.model.types[t];
        let known: Vec<&str> = fields.iter().map(|f| f.json_name.as_str()).collect();
        let mut problems = Vec::new();
        for (m, fields) in td.doc.markers.one_ofs() {
            for f in fields {
                if !f.contains('.') && !known.contains(&f.as_str()) {
                    problems.push((At::marker(td.file, m), f, m.name()));
                }
            }
        }
        let list = known.join(", ");
        for (at, f, name) in problems {
            self.error(
                at,
                format!("`{f}` in {name} is not a JSON field of this type"),
                Some(format!("fields: {list}")),
            );
        }
    }

    /// Schema of a type expression in a field (Go's typeToSchema with no type info).
    pub fn expr_schema(&mut self, file: FileId, ty: &TypeExpr, at: At) -> Schema {
        if !self.enter(at) {
            return Schema::new();
        }
        let s = self.expr_schema_inner(file, ty, at);
        self.leave();
        s
    }

    fn expr_schema_inner(&mut self, file: FileId, ty: &TypeExpr, at: At) -> Schema {
        match ty {
            TypeExpr::Path { segments, args } => {
                let r = self.model.resolve(file, segments);
                self.resolved_schema(file, r, segments, args, at)
            }
            TypeExpr::List(elem) => self.list_schema(file, elem, at),
            TypeExpr::Other(text) => {
                self.error(at, format!("unsupported type `{text}` in an API type"), Some("use String, bool, i32, i64, f64, Vec, BTreeMap<String, _>, Option, Box, serde_json::Value, a local type or a k8s-openapi type".into()));
                Schema::new()
            }
        }
    }

    /// A type with a Type marker whose JSON rkb cannot read (a local type with a JSON format of its own, a newtype
    /// or alias over one or over another crate's type): controller-gen's type with its own JSON format, whose
    /// schema its markers alone give (its fields are never read).
    fn described_by_markers(&self, t: TypeId) -> bool {
        let td = &self.model.types[t];
        let opaque = match &td.kind {
            _ if td.own_json.is_some() => true,
            TypeKind::Alias(ty) | TypeKind::Newtype(ty) => self.is_opaque(td.file, ty),
            _ => false,
        };
        opaque && td.doc.markers.type_marker().is_some()
    }

    /// Whether `ty` (through Option and Box) is a type whose JSON rkb cannot read: a path rkb cannot resolve
    /// (another crate's type), or a local type with a JSON format of its own ([`crate::model::OwnJson`]).
    fn is_opaque(&self, file: FileId, ty: &TypeExpr) -> bool {
        let TypeExpr::Path { segments, args } = ty else {
            return false;
        };
        match self.model.resolve(file, segments) {
            Resolved::Unknown => self.model.foreign_path(file, segments).is_some(),
            Resolved::Local(t) => self.model.types[t].own_json.is_some(),
            Resolved::Wrapper => args
                .first()
                .is_some_and(|inner| self.is_opaque(file, inner)),
            _ => false,
        }
    }

    /// A type with a JSON format of its own and no Type marker, used by a field without one: rkb, like
    /// controller-gen, reads such JSON from markers only. Say where the format comes from, and what to add.
    fn own_json_error(&mut self, t: TypeId) {
        let td = &self.model.types[t];
        let name = &td.name;
        let why = match &td.own_json {
            Some(OwnJson::SerdeAttr(attr)) => format!("its `#[serde({attr})]`"),
            Some(OwnJson::Display(derive)) => format!("its `#[derive({derive})]`"),
            Some(OwnJson::Adapter(attr)) => format!("its field's `#[serde_as({attr})]`"),
            Some(OwnJson::Impl {
                trait_name,
                file,
                line,
            }) => format!(
                "the hand-written `impl {trait_name}` at {}:{line}",
                self.model.files[*file].rel.display()
            ),
            None => return,
        };
        let message =
            format!("`{name}` has a JSON format of its own ({why}), which rkb cannot read");
        let hint = match &td.own_json {
            Some(OwnJson::Display(_)) => {
                adapters::display_hint(&format!("on `{name}` or on the fields that use it"))
            }
            _ => format!(
                "describe its JSON with `+kubebuilder:validation:Type=<type>` (and Format, ...) on `{name}` or on the \
                 fields that use it, as controller-gen does for a Go type with its own MarshalJSON"
            ),
        };
        self.error(self.model.type_at(t), message, Some(hint));
    }

    fn list_schema(&mut self, file: FileId, elem: &TypeExpr, at: At) -> Schema {
        if matches!(elem, TypeExpr::Path { segments, args } if args.is_empty() && segments.len() == 1 && segments[0] == "u8")
        {
            return Schema::from_value(json!({"type": "string", "format": "byte"}));
        }
        array_of(self.expr_schema(file, elem, at))
    }

    fn resolved_schema(
        &mut self,
        file: FileId,
        r: Resolved,
        segs: &[String],
        args: &[TypeExpr],
        at: At,
    ) -> Schema {
        let obj = Schema::from_value;
        match r {
            Resolved::Prim(p) => obj(prim_schema(p)),
            Resolved::Wrapper => match args.first() {
                Some(inner) => self.expr_schema(file, inner, at),
                None => Schema::new(),
            },
            Resolved::List => match args.first() {
                Some(inner) => self.list_schema(file, inner, at),
                None => Schema::new(),
            },
            Resolved::Map => match args {
                [k, v, ..] => self.map_schema(file, k, v, at),
                _ => Schema::new(),
            },
            Resolved::Json => obj(json!({"x-kubernetes-preserve-unknown-fields": true})),
            Resolved::JsonMap => obj(
                json!({"type": "object", "additionalProperties": {"x-kubernetes-preserve-unknown-fields": true}}),
            ),
            Resolved::TypeMeta => reference(TypeRef::TypeMeta),
            Resolved::K8s(path) => {
                if self.k8s_schema(&path).is_none() {
                    self.error(
                        at,
                        format!("`{path}` has no CRD schema"),
                        Some("controller-gen cannot generate a schema for this Kubernetes type either; use another type or serde_json::Value".into()),
                    );
                    return Schema::new();
                }
                reference(TypeRef::K8s(K8sPath(path)))
            }
            Resolved::Local(t) => self.local_ref_schema(t),
            Resolved::Unknown => {
                self.unresolved_error(file, segs, at);
                Schema::new()
            }
        }
    }

    /// `BTreeMap<K, V>`: an object whose values are V's; JSON object keys are strings, so K must be one.
    fn map_schema(&mut self, file: FileId, k: &TypeExpr, v: &TypeExpr, at: At) -> Schema {
        self.check_map_key(file, k, at);
        object_of(self.expr_schema(file, v, at))
    }

    /// A map's key type `k` must serialize as a string: JSON object keys are strings.
    fn check_map_key(&mut self, file: FileId, k: &TypeExpr, at: At) {
        let key = self.expr_schema(file, k, at);
        if key.get("type") != Some(&json!("string")) {
            let text = k.to_rust();
            self.error(
                at,
                format!("map keys must be strings, not `{text}`"),
                Some("use BTreeMap<String, _> (JSON object keys are strings)".into()),
            );
        }
    }

    /// A field's reference to local type `t`, flattened later.
    fn local_ref_schema(&mut self, t: TypeId) -> Schema {
        let mut s = reference(TypeRef::Local(t));
        // Named basic types (aliases, newtypes, unit enums, types with their own JSON) also carry their
        // type and format so field markers that need a type (Minimum, MaxLength...) apply.
        let td = &self.model.types[t];
        if td.own_json.is_some()
            || matches!(
                td.kind,
                TypeKind::Alias(_) | TypeKind::Newtype(_) | TypeKind::Enum(_)
            )
        {
            let ts = self.type_schema(t);
            if let Some(Value::String(ty)) = ts.get("type")
                && matches!(ty.as_str(), "string" | "integer" | "number" | "boolean")
            {
                s.insert("type".into(), json!(ty));
                if let Some(f) = ts.get("format") {
                    s.insert("format".into(), f.clone());
                }
            }
        }
        s
    }

    /// A path in file `file` that names no type rkb reads: for another crate's type, how to describe its JSON;
    /// else the closest local type's name, or where types come from.
    fn unresolved_error(&mut self, file: FileId, segs: &[String], at: At) {
        let name = segs.join("::");
        let last = segs.last().map(String::as_str).unwrap_or("");
        let close = || {
            self.model
                .types
                .iter()
                .map(|t| {
                    (
                        rkb_markers::levenshtein(&t.name.to_lowercase(), &last.to_lowercase()),
                        &t.name,
                    )
                })
                .filter(|(d, n)| *d <= 2 && n.as_str() != last)
                .min()
                .map(|(_, n)| n.clone())
        };
        let hint = if let Some(full) = self.model.foreign_path(file, segs) {
            self.foreign_type_hint(&full.join("::"), at)
        } else if let Some(n) = close() {
            format!("did you mean `{n}`?")
        } else if segs.len() == 1 {
            format!(
                "define `{name}` under src/, or import it (e.g. `use k8s_openapi::api::core::v1::{name};`)"
            )
        } else {
            format!("no type `{last}` is defined at this path under src/")
        };
        self.error(at, format!("cannot resolve type `{name}`"), Some(hint));
    }

    /// How to describe `path`, another crate's type whose JSON rkb cannot read, where it was met (`at`): by a Type
    /// marker on the newtype or alias being resolved, or else on the field.
    fn foreign_type_hint(&self, path: &str, at: At) -> String {
        let wrapper = self
            .in_progress
            .last()
            .map(|&t| &self.model.types[t])
            .filter(|td| {
                matches!(td.kind, TypeKind::Alias(_) | TypeKind::Newtype(_))
                    && td.file == at.file
                    && td.span == at.span
            });
        match wrapper {
            Some(td) => format!(
                "`{path}` is another crate's type, whose JSON rkb cannot read: add a Type marker to `{name}` that says \
                 what JSON `{path}` serializes as, e.g. `/// +kubebuilder:validation:Type=string` (and Format, ...), as \
                 controller-gen takes a type with its own JSON format from its markers",
                name = td.name
            ),
            None => format!(
                "rkb reads types under src/, k8s_openapi, std and serde_json; describe `{path}` by its JSON instead: \
                 `+kubebuilder:validation:Type=<type>` (and Format) on this field or on a newtype around it, as \
                 controller-gen takes a type with its own JSON format from its markers"
            ),
        }
    }

    /// Applies schema markers in `markers::order` (controller-gen's ApplyPriority), then the `items:`
    /// variants.
    fn apply_markers(
        &mut self,
        s: &mut Schema,
        markers: &ItemMarkers,
        file: FileId,
        enum_values: Option<&[String]>,
    ) {
        let mut main: Vec<&Written<SchemaMarker>> = markers.schema.iter().collect();
        let mut items: Vec<&Written<SchemaMarker>> = markers.items.iter().collect();
        main.sort_by_key(|m| markers::order(&m.value));
        items.sort_by_key(|m| markers::order(&m.value));
        for &m in &main {
            self.apply_marker(s, m, file, enum_values);
        }
        self.check_map_list_has_keys(s, &main, file);
        for m in items {
            let found = match s.get("type").and_then(Value::as_str) {
                Some("") | None => "no type".to_string(),
                Some(t) => t.to_string(),
            };
            match s.items.as_deref_mut() {
                Some(items) if found == "array" => {
                    let items = self.shared.materialize(items);
                    // The items' keywords this marker writes are the field's (or type's) doing.
                    items.provenance.made_for = items.provenance.made_for.or(s.provenance.made_for);
                    self.apply_marker(items, m, file, None);
                }
                _ => {
                    let message =
                        format!("must apply {} to an array value, found {found}", m.name());
                    self.error(At::marker(file, m), message, None);
                }
            }
        }
    }

    fn apply_marker(
        &mut self,
        s: &mut Schema,
        m: &Written<SchemaMarker>,
        file: FileId,
        enum_values: Option<&[String]>,
    ) {
        let applying = markers::Applying {
            name: m.name(),
            short: m.short_name(),
            enum_values,
        };
        if let Err((msg, hint)) = markers::apply(&m.value, s, &applying) {
            let at = At::marker(file, m);
            self.error(at, msg, hint);
        }
    }

    /// A `+listType=map` whose list got no `+listMapKey`: controller-gen writes that CRD, and the API server
    /// refuses it ("x-kubernetes-list-map-keys: Required value").
    fn check_map_list_has_keys(
        &mut self,
        s: &Schema,
        markers: &[&Written<SchemaMarker>],
        file: FileId,
    ) {
        let map_list = markers.iter().find(|m| {
            matches!(&m.value, SchemaMarker::Topology(TopologyMarker::ListType(t)) if t == "map")
        });
        if let Some(m) = map_list
            && s.get("x-kubernetes-list-type") == Some(&json!("map"))
            && !s.contains_key("x-kubernetes-list-map-keys")
        {
            let at = At::marker(file, m);
            self.error(
                at,
                "`+listType=map` needs at least one `+listMapKey`: the API server refuses a map list without keys",
                Some("add `/// +listMapKey=<field>` naming the item field that identifies an entry (e.g. name), or use `+listType=atomic`".into()),
            );
        }
    }

    /// The flattened schema of the type `key` refers to.
    pub fn flattened(&mut self, key: &TypeRef) -> Rc<Schema> {
        if let Some(s) = self.flat.get(key) {
            let s = Rc::clone(s);
            if self.flattening.contains(key)
                && let Some(t) = key.local()
            {
                let name = self.model.types[t].name.clone();
                if !self.recursive.contains(&name) {
                    self.recursive.push(name);
                }
            }
            let reach = self.nesting + self.heights.get(key).copied().unwrap_or(0);
            if reach > MAX_NESTING {
                if let Some(t) = key.local() {
                    self.too_deep(self.model.type_at(t));
                }
                return Rc::new(Schema::new());
            }
            self.deepest = self.deepest.max(reach);
            return s;
        }
        if let TypeRef::K8s(K8sPath(p)) = key {
            // Already flattened by the k8s module.
            let s = self.k8s_schema(p).unwrap_or_default();
            self.flat.insert(key.clone(), Rc::clone(&s));
            return s;
        }
        // A type that refers to itself flattens its inner reference to an empty schema, as controller-gen does.
        self.flat.insert(key.clone(), Rc::new(Schema::new()));
        let local = key.local();
        if let Some(t) = local
            && !self.enter(self.model.type_at(t))
        {
            return Rc::new(Schema::new());
        }
        self.flattening.push(key.clone());
        let (entry, outer_deepest) = (
            self.nesting,
            std::mem::replace(&mut self.deepest, self.nesting),
        );
        let mut s = match local {
            Some(t) => self.type_schema(t),
            None => type_meta_schema(),
        };
        self.flatten_refs(&mut s);
        // Counted from the level the schema is used at (this type's own level included).
        self.heights.insert(key.clone(), self.deepest + 1 - entry);
        self.deepest = self.deepest.max(outer_deepest);
        self.flattening.pop();
        if local.is_some() {
            self.leave();
        }
        let s = Rc::new(s);
        self.flat.insert(key.clone(), Rc::clone(&s));
        s
    }

    /// Like [`Self::flattened`], but takes the schema out of the cache (no copy when nothing else holds it).
    pub fn take_flattened(&mut self, key: &TypeRef) -> Schema {
        let s = self.flattened(key);
        self.flat.remove(key);
        Rc::try_unwrap(s).unwrap_or_else(|rc| (*rc).clone())
    }

    fn k8s_schema(&mut self, path: &str) -> Option<Rc<Schema>> {
        let (shared, share, version) = (self.shared, self.share_k8s, self.model.k8s);
        self.k8s
            .entry(path.to_string())
            .or_insert_with(|| {
                if share {
                    // The run's store expands each type once for all its generators; this copies only the
                    // top level, whose children are references.
                    return shared
                        .k8s_schema(version, path)
                        .map(|s| Rc::new((*s).clone()));
                }
                match crate::k8s::schema_in(version, path) {
                    Some(Value::Object(m)) => Some(Rc::new(Schema::from_json(m))),
                    _ => None,
                }
            })
            .clone()
    }

    /// Replaces the references in `node` and below with the flattened schemas they stand for. Its sub-schemas are one
    /// level deeper: past [`MAX_NESTING`], the node is left out (and the error reported).
    pub fn flatten_refs(&mut self, node: &mut Schema) {
        if let Some(r) = node.reference.clone() {
            let used_once = r
                .local()
                .is_some_and(|t| self.uses.get(t.index()) == Some(&1));
            // Inside its own flattening a type is the `{}` placeholder: leave that in the cache.
            let ty = if used_once && !self.flattening.contains(&r) {
                self.take_flattened(&r)
            } else {
                (*self.flattened(&r)).clone()
            };
            let field = std::mem::take(node);
            *node = preserve_fields(ty, field);
            return;
        }
        let Some(at) = self.flattening_at() else {
            return node.for_each_own_mut(&mut |c| self.flatten_refs(c));
        };
        if !self.enter(at) {
            *node = Schema::new();
            return;
        }
        node.for_each_own_mut(&mut |c| self.flatten_refs(c));
        self.leave();
    }
}

/// A schema that refers to the type `r` and says nothing else (yet).
fn reference(r: TypeRef) -> Schema {
    let mut s = Schema::new();
    s.reference = Some(r);
    s
}

const DOC_KEYS: [&str; 4] = ["description", "title", "externalDocs", "example"];

/// controller-gen's preserveFields: the referenced type's schema, with the field's docs (when it has
/// any) and the field's own validation kept as a second allOf branch.
fn preserve_fields(ty: Schema, mut field: Schema) -> Schema {
    let mut out = Schema::new();
    for k in DOC_KEYS {
        if let Some(v) = ty.get(k) {
            out.insert(k.into(), v.clone());
        }
    }
    for k in DOC_KEYS {
        if let Some(v) = field.remove(k)
            && !is_zero(&v)
        {
            out.insert(k.into(), v);
        }
    }
    field.reference = None;
    out.provenance = Provenance {
        made_for: field.provenance.made_for,
        referenced: ty.provenance.made_for,
    };
    out.all_of = Some(vec![ty, field]);
    out
}

/// Merges every `allOf` branch into its parent, top-down (controller-gen's FlattenEmbedded).
/// `shared` holds the sub-schemas that references in `node` stand for.
pub fn flatten_all_of(node: &mut Schema, shared: &SharedSchemas) {
    for e in node.all_of.take().into_iter().flatten() {
        merge_into(node, e, shared);
    }
    node.for_each_own_mut(&mut |c| flatten_all_of(c, shared));
}

fn is_zero(v: &Value) -> bool {
    match v {
        Value::Null => true,
        Value::Bool(b) => !b,
        Value::String(s) => s.is_empty(),
        _ => false,
    }
}

/// Keys whose Go field is a plain string or bool (compared by value); pointer, slice and map fields
/// never compare equal in controller-gen's merge.
fn comparable(k: &str) -> bool {
    matches!(
        k,
        "type"
            | "format"
            | "pattern"
            | "title"
            | "description"
            | "exclusiveMaximum"
            | "exclusiveMinimum"
            | "uniqueItems"
            | "nullable"
            | "x-kubernetes-embedded-resource"
            | "x-kubernetes-int-or-string"
            | "id"
            | "$schema"
    )
}

/// controller-gen's flattenAllOfInto.
pub fn merge_into(dst: &mut Schema, mut src: Schema, shared: &SharedSchemas) {
    for e in src.all_of.take().into_iter().flatten() {
        merge_into(dst, e, shared);
    }
    // What both sides have and cannot merge: kept side by side as a new pair of allOf branches.
    let mut dst_rem = Schema::new();
    let mut src_rem = Schema::new();
    let src_keywords = src.take_keywords();
    merge_keywords(dst, src_keywords, &mut dst_rem, &mut src_rem);
    merge_sub_schemas(dst, src, shared, &mut dst_rem, &mut src_rem);
    if !dst_rem.is_empty() {
        dst.all_of
            .get_or_insert_with(Vec::new)
            .extend([dst_rem, src_rem]);
    }
    if let Some(Value::Array(req)) = dst.get_mut("required") {
        let mut names: Vec<String> = req
            .iter()
            .filter_map(|v| v.as_str().map(str::to_owned))
            .collect();
        names.sort();
        names.dedup();
        *req = names.into_iter().map(Value::String).collect();
    }
}

/// [`merge_into`] for the keywords.
fn merge_keywords(
    dst: &mut Schema,
    src: Map<String, Value>,
    dst_rem: &mut Schema,
    src_rem: &mut Schema,
) {
    for (k, v) in src {
        if DOC_KEYS.contains(&k.as_str()) {
            continue;
        }
        if k == "enum" {
            if !dst.contains_key("enum") {
                dst.keywords_mut().insert(k, v);
            }
            continue;
        }
        if is_zero(&v) {
            continue;
        }
        // `additionalProperties: true` (a keyword: not a schema) beside a schema: the schema stays.
        if k == "additionalProperties" && dst.additional_properties.is_some() {
            continue;
        }
        let Some(d) = dst.keywords_mut().get_mut(&k) else {
            dst.keywords_mut().insert(k, v);
            continue;
        };
        if is_zero(d) {
            *d = v;
            continue;
        }
        if comparable(&k) && *d == v {
            continue;
        }
        match k.as_str() {
            "required" => {
                if let (Value::Array(da), Value::Array(sa)) = (d, v) {
                    da.extend(sa);
                }
            }
            "type" | "additionalProperties" => {}
            "x-kubernetes-preserve-unknown-fields" | "x-kubernetes-map-type" => *d = v,
            "x-kubernetes-validations" => {
                if let (Value::Array(da), Value::Array(mut sa)) = (d.take(), v) {
                    sa.extend(da);
                    *d = Value::Array(sa);
                }
            }
            _ => {
                dst_rem.keywords_mut().insert(k.clone(), d.take());
                src_rem.keywords_mut().insert(k.clone(), v);
                dst.keywords_mut().remove(&k);
            }
        }
    }
}

/// [`merge_into`] for the sub-schemas (`src`'s allOf is already merged): properties and additionalProperties
/// merge; items, not, anyOf and oneOf that both sides have go to the remainders.
fn merge_sub_schemas(
    dst: &mut Schema,
    src: Schema,
    shared: &SharedSchemas,
    dst_rem: &mut Schema,
    src_rem: &mut Schema,
) {
    match (&mut dst.properties, src.properties) {
        (Some(d), Some(p)) => merge_properties(d, p, shared),
        (d, p @ Some(_)) => *d = p,
        (_, None) => {}
    }
    match (&mut dst.additional_properties, src.additional_properties) {
        (Some(d), Some(a)) => merge_into(shared.materialize(d), shared.owned(*a), shared),
        (None, a @ Some(_)) => {
            // A schema replaces `additionalProperties: true` or `false` (a keyword).
            dst.additional_properties = a;
            dst.keywords_mut().remove("additionalProperties");
        }
        (_, None) => {}
    }
    fn side_by_side<T>(d: &mut Option<T>, s: Option<T>, dr: &mut Option<T>, sr: &mut Option<T>) {
        match (d.is_some(), s) {
            (true, s @ Some(_)) => (*dr, *sr) = (d.take(), s),
            (false, s @ Some(_)) => *d = s,
            (_, None) => {}
        }
    }
    side_by_side(
        &mut dst.items,
        src.items,
        &mut dst_rem.items,
        &mut src_rem.items,
    );
    side_by_side(&mut dst.not, src.not, &mut dst_rem.not, &mut src_rem.not);
    side_by_side(
        &mut dst.any_of,
        src.any_of,
        &mut dst_rem.any_of,
        &mut src_rem.any_of,
    );
    side_by_side(
        &mut dst.one_of,
        src.one_of,
        &mut dst_rem.one_of,
        &mut src_rem.one_of,
    );
}

/// [`merge_into`] for `properties`: a property both sides have is merged (a shared one copied out first, as
/// merging changes it), the others are added.
fn merge_properties(dst: &mut Properties, src: Properties, shared: &SharedSchemas) {
    for (name, prop) in src {
        match dst.get_mut(&name) {
            Some(existing) => merge_into(shared.materialize(existing), shared.owned(prop), shared),
            None => {
                dst.insert(name, prop);
            }
        }
    }
}

/// A list whose items are `items`.
fn array_of(items: Schema) -> Schema {
    let mut s = Schema::new();
    s.insert("type".into(), json!("array"));
    s.items = Some(Box::new(Node::Own(items)));
    s
}

/// A map whose values are `values`.
fn object_of(values: Schema) -> Schema {
    let mut s = Schema::new();
    s.insert("type".into(), json!("object"));
    s.additional_properties = Some(Box::new(Node::Own(values)));
    s
}

fn prim_schema(p: Prim) -> Value {
    match p {
        Prim::String => json!({"type": "string"}),
        Prim::Bool => json!({"type": "boolean"}),
        Prim::Int32 => json!({"type": "integer", "format": "int32"}),
        Prim::Int64 => json!({"type": "integer", "format": "int64"}),
        Prim::Int => json!({"type": "integer"}),
        Prim::Float => json!({"type": "number"}),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn obj(v: Value) -> Schema {
        Schema::from_value(v)
    }

    fn json(s: Schema) -> Value {
        s.to_json(&SharedSchemas::new())
    }

    /// `additionalProperties: true` or `false` is a keyword beside the typed schema: merged as controller-gen
    /// merges its AdditionalProperties (a schema wins over `false` and over `true`; two `true`s stay one).
    #[test]
    fn merge_reconciles_additional_properties_written_as_a_boolean() {
        let merged = |dst: Value, src: Value| {
            let mut dst = obj(dst);
            merge_into(&mut dst, obj(src), &SharedSchemas::new());
            // One or the other: the printer would write both.
            let both = dst.additional_properties.is_some()
                && dst.keywords().contains_key("additionalProperties");
            assert!(!both, "{dst:?}");
            json(dst)
        };
        let strings = json!({"additionalProperties": {"type": "string"}});
        for flag in [false, true] {
            let flagged = json!({"additionalProperties": flag});
            assert_eq!(
                merged(flagged.clone(), strings.clone()),
                strings,
                "{flag} then a schema"
            );
            assert_eq!(
                merged(strings.clone(), flagged),
                strings,
                "a schema then {flag}"
            );
        }
        let open = json!({"additionalProperties": true});
        assert_eq!(merged(open.clone(), open.clone()), open);
    }

    #[test]
    fn merge_keeps_field_rules_first_and_hoists_pointer_conflicts() {
        let mut dst = obj(
            json!({"type": "integer", "minimum": 1, "x-kubernetes-validations": [{"rule": "t"}]}),
        );
        merge_into(
            &mut dst,
            obj(
                json!({"type": "integer", "minimum": 2, "x-kubernetes-validations": [{"rule": "f"}]}),
            ),
            &SharedSchemas::new(),
        );
        assert_eq!(
            json(dst),
            json!({"type": "integer", "allOf": [{"minimum": 1}, {"minimum": 2}], "x-kubernetes-validations": [{"rule": "f"}, {"rule": "t"}]})
        );
    }

    #[test]
    fn preserve_fields_prefers_field_doc() {
        let t = obj(json!({"type": "object", "description": "type doc"}));
        let mut out = preserve_fields(t.clone(), {
            let mut field = reference(TypeRef::Local(TypeId::nth(0)));
            field.insert("description".into(), json!("field doc"));
            field
        });
        flatten_all_of(&mut out, &SharedSchemas::new());
        assert_eq!(
            json(out),
            json!({"type": "object", "description": "field doc"})
        );
        let mut out = preserve_fields(t, reference(TypeRef::Local(TypeId::nth(0))));
        flatten_all_of(&mut out, &SharedSchemas::new());
        assert_eq!(
            json(out),
            json!({"type": "object", "description": "type doc"})
        );
    }
}
