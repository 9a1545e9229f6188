//! Stage 3a: OpenAPI v3 schemas for types, the way controller-gen builds them: each type gets its own
//! schema with `$ref`s to the types it uses, markers applied in priority order; then references are
//! flattened (field docs and field-level validation kept over the referenced type) and `allOf` branches
//! merged.

use crate::model::{Field, Model, Prim, Resolved, TypeKind};
use crate::type_expr::TypeExpr;
use rkb_markers::{Diagnostic, Marker, Value as MValue};
use serde_json::{Map, Value, json};
use std::collections::HashMap;
use std::rc::Rc;

pub type Schema = Map<String, Value>;

/// Where to report a problem: a file and a position in it.
#[derive(Clone, Copy)]
pub struct At {
    pub file: usize,
    pub line: usize,
    pub col: usize,
    pub len: usize,
}

pub struct SchemaGen<'m> {
    pub model: &'m Model,
    pub diags: Vec<Diagnostic>,
    unflat: HashMap<usize, Schema>,
    in_progress: Vec<usize>,
    /// Flattened schemas by `$ref` key, shared: each use copies what it needs.
    flat: HashMap<String, Rc<Schema>>,
    /// k8s-openapi schemas by Rust path (`None`: no schema), fetched once per run.
    k8s: HashMap<String, Option<Rc<Schema>>>,
    share_k8s: bool,
    /// `$ref` keys being flattened right now (a hit means the type refers to itself).
    flattening: Vec<String>,
    /// Names of local types found to refer to themselves (their inner reference becomes `{}`).
    pub recursive: Vec<String>,
    /// How many field types name each local type ([`type_uses`]). A type named once has its
    /// flattened schema moved into that one use instead of copied out of the cache (which kept every
    /// CRD's spec alive).
    uses: &'m [usize],
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
fn count_uses(model: &Model, file: usize, ty: &TypeExpr, uses: &mut [usize]) {
    match ty {
        TypeExpr::Path { segments, args } => {
            if let Resolved::Local(t) = model.resolve(file, segments) {
                uses[t] += 1;
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
    json!({
        "type": "object",
        "properties": {
            "apiVersion": {"description": TYPE_META_APIVERSION, "type": "string"},
            "kind": {"description": TYPE_META_KIND, "type": "string"}
        }
    })
    .as_object()
    .cloned()
    .unwrap_or_default()
}

impl<'m> SchemaGen<'m> {
    /// `share_k8s`: keep k8s types' sub-schemas shared (see frozen.rs) instead of copying them per use.
    pub fn new(model: &'m Model, uses: &'m [usize], share_k8s: bool) -> Self {
        SchemaGen {
            share_k8s,
            model,
            diags: Vec::new(),
            unflat: HashMap::new(),
            in_progress: Vec::new(),
            flat: HashMap::new(),
            k8s: HashMap::new(),
            flattening: Vec::new(),
            recursive: Vec::new(),
            uses,
        }
    }

    pub fn error(&mut self, at: At, msg: impl Into<String>, hint: Option<String>) {
        let f = &self.model.files[at.file];
        let mut d = Diagnostic::error(msg)
            .at(&f.rel, at.line, at.col, at.len)
            .with_source_line(f.line(at.line));
        if let Some(h) = hint {
            d = d.with_hint(h);
        }
        // The same problem is found once per use of a type; report it once.
        if !self.diags.contains(&d) {
            self.diags.push(d);
        }
    }

    fn marker_at(&self, file: usize, m: &Marker) -> At {
        At {
            file,
            line: m.span.line,
            col: m.span.col,
            len: m.span.len,
        }
    }

    /// The (unflattened) schema of local type `t`, with its description and type-level markers.
    pub fn type_schema(&mut self, t: usize) -> Schema {
        if let Some(s) = self.unflat.get(&t) {
            return s.clone();
        }
        if self.in_progress.contains(&t) {
            let td = &self.model.types[t];
            let at = At {
                file: td.file,
                line: td.line,
                col: td.col,
                len: td.len,
            };
            self.error(
                at,
                format!("type `{}` is defined in terms of itself", td.name),
                None,
            );
            return Schema::new();
        }
        self.in_progress.push(t);
        let td = &self.model.types[t];
        let at = At {
            file: td.file,
            line: td.line,
            col: td.col,
            len: td.len,
        };
        let mut s = match &td.kind {
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
        if !td.doc.description.is_empty() {
            s.insert("description".into(), json!(td.doc.description));
        }
        let enum_values = match &td.kind {
            TypeKind::Enum(v) => Some(v.as_slice()),
            _ => None,
        };
        self.apply_markers(&mut s, &td.doc.markers, td.file, enum_values);
        self.in_progress.pop();
        // Flattening asks once per type (its result is cached); field types ask again for named basic
        // types. A struct named by at most one field is not asked for twice: don't keep a copy.
        let asked_again = self.uses[t] > 1 || !matches!(td.kind, TypeKind::Struct(_));
        if asked_again {
            self.unflat.insert(t, s.clone());
        }
        s
    }

    fn struct_schema(&mut self, t: usize, fields: &[Field]) -> Schema {
        let td = &self.model.types[t];
        let file = td.file;
        let pkg = &self.model.packages[td.package];
        let default_optional = pkg.default_optional;
        let one_of: Vec<String> = td
            .doc
            .markers
            .iter()
            .filter(|m| {
                matches!(
                    m.name(),
                    "kubebuilder:validation:ExactlyOneOf"
                        | "kubebuilder:validation:AtMostOneOf"
                        | "kubebuilder:validation:AtLeastOneOf"
                )
            })
            .flat_map(|m| {
                m.value
                    .as_ref()
                    .map(MValue::as_str_list)
                    .unwrap_or_default()
            })
            .collect();
        let mut props = Schema::new();
        props.insert("type".into(), json!("object"));
        let mut properties = Schema::new();
        let mut required: Vec<String> = Vec::new();
        let mut all_of: Vec<Value> = Vec::new();
        let mut immutable: Vec<String> = Vec::new();
        for f in fields {
            let at = At {
                file,
                line: f.line,
                col: f.col,
                len: f.len,
            };
            let inline = f.flatten;
            let name = f.json_name.clone();
            let has = |n: &str| f.doc.has(n);
            let req_err = |s: &mut Self, msg: String| {
                s.error(
                    at,
                    msg,
                    Some("remove the required marker, or the field from the OneOf marker".into()),
                )
            };
            if has("kubebuilder:validation:Optional") {
            } else if has("kubebuilder:validation:Required")
                || (!has("optional")
                    && !has("k8s:optional")
                    && (has("required") || has("k8s:required")))
            {
                if one_of.contains(&name) {
                    req_err(
                        self,
                        format!(
                            "field `{name}` is part of a OneOf constraint and cannot be marked as required"
                        ),
                    );
                }
                required.push(name.clone());
            } else if has("optional") || has("k8s:optional") {
            } else if !default_optional && !inline && !f.omit_empty {
                if one_of.contains(&name) {
                    self.error(
                        at,
                        format!("field `{name}` is part of a OneOf constraint and must be optional"),
                        Some("make it `Option<T>` or add `#[serde(default, skip_serializing_if = ...)]`".into()),
                    );
                }
                required.push(name.clone());
            }
            let mut prop = if has("kubebuilder:validation:Schemaless") {
                Schema::new()
            } else {
                self.expr_schema(file, &f.ty, at)
            };
            if !f.doc.description.is_empty() {
                prop.insert("description".into(), json!(f.doc.description));
            } else {
                prop.remove("description");
            }
            self.apply_markers(&mut prop, &f.doc.markers, file, None);
            if inline {
                all_of.push(Value::Object(prop));
                continue;
            }
            if has("k8s:immutable") {
                immutable.push(name.clone());
            }
            properties.insert(name, Value::Object(prop));
        }
        // A OneOf marker naming a field that does not exist makes a CEL rule the API server rejects: say so
        // now. (Flattened structs contribute fields we don't see here; skip the check then.)
        if !fields.iter().any(|f| f.flatten) {
            let td = &self.model.types[t];
            let known: Vec<&str> = fields.iter().map(|f| f.json_name.as_str()).collect();
            let mut problems = Vec::new();
            for m in td
                .doc
                .markers
                .iter()
                .filter(|m| m.name().ends_with("OneOf"))
            {
                for f in m
                    .value
                    .as_ref()
                    .map(MValue::as_str_list)
                    .unwrap_or_default()
                {
                    if !f.contains('.') && !known.contains(&f.as_str()) {
                        problems.push((self.marker_at(file, m), f, m.name()));
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
        required.sort();
        if !properties.is_empty() {
            props.insert("properties".into(), Value::Object(properties));
        }
        if !required.is_empty() {
            props.insert("required".into(), json!(required));
        }
        if !all_of.is_empty() {
            props.insert("allOf".into(), Value::Array(all_of));
        }
        let mut rules = Vec::new();
        for f in immutable {
            if required.contains(&f) {
                continue;
            }
            rules.push(json!({"rule": format!("!has(oldSelf.{f}) || has(self.{f})"), "message": format!("field {f} is immutable once set")}));
        }
        if !rules.is_empty() {
            props.insert("x-kubernetes-validations".into(), Value::Array(rules));
        }
        props
    }

    /// Schema of a type expression in a field (Go's typeToSchema with no type info).
    pub fn expr_schema(&mut self, file: usize, ty: &TypeExpr, at: At) -> Schema {
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

    fn list_schema(&mut self, file: usize, elem: &TypeExpr, at: At) -> Schema {
        if matches!(elem, TypeExpr::Path { segments, args } if args.is_empty() && segments.len() == 1 && segments[0] == "u8")
        {
            return json!({"type": "string", "format": "byte"})
                .as_object()
                .cloned()
                .unwrap_or_default();
        }
        let items = self.expr_schema(file, elem, at);
        let mut s = Schema::new();
        s.insert("type".into(), json!("array"));
        s.insert("items".into(), Value::Object(items));
        s
    }

    fn resolved_schema(
        &mut self,
        file: usize,
        r: Resolved,
        segs: &[String],
        args: &[TypeExpr],
        at: At,
    ) -> Schema {
        let obj = |v: Value| v.as_object().cloned().unwrap_or_default();
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
            Resolved::Map => {
                let (Some(k), Some(v)) = (args.first(), args.get(1)) else {
                    return Schema::new();
                };
                let key = self.expr_schema(file, k, at);
                if key.get("type") != Some(&json!("string")) {
                    let text = k.to_rust();
                    self.error(
                        at,
                        format!("map keys must be strings, not `{text}`"),
                        Some("use BTreeMap<String, _> (JSON object keys are strings)".into()),
                    );
                }
                let vs = self.expr_schema(file, v, at);
                let mut s = Schema::new();
                s.insert("type".into(), json!("object"));
                s.insert("additionalProperties".into(), Value::Object(vs));
                s
            }
            Resolved::Json => obj(json!({"x-kubernetes-preserve-unknown-fields": true})),
            Resolved::JsonMap => obj(
                json!({"type": "object", "additionalProperties": {"x-kubernetes-preserve-unknown-fields": true}}),
            ),
            Resolved::TypeMeta => obj(json!({"$ref": "typemeta"})),
            Resolved::K8s(path) => {
                if self.k8s_schema(&path).is_none() {
                    self.error(
                        at,
                        format!("`{path}` has no CRD schema"),
                        Some("controller-gen cannot generate a schema for this Kubernetes type either; use another type or serde_json::Value".into()),
                    );
                    return Schema::new();
                }
                obj(json!({"$ref": format!("k8s:{path}")}))
            }
            Resolved::Local(t) => {
                let mut s = Schema::new();
                s.insert("$ref".into(), json!(format!("local:{t}")));
                // Named basic types (aliases, newtypes, unit enums) also carry their type and format so
                // field markers that need a type (Minimum, MaxLength...) apply.
                if matches!(
                    self.model.types[t].kind,
                    TypeKind::Alias(_) | TypeKind::Newtype(_) | TypeKind::Enum(_)
                ) {
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
            Resolved::Unknown => {
                let name = segs.join("::");
                let last = segs.last().map(String::as_str).unwrap_or("");
                let close = self
                    .model
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
                    .map(|(_, n)| n.clone());
                let hint = if let Some(n) = close {
                    format!("did you mean `{n}`?")
                } else if segs.len() == 1 {
                    format!(
                        "define `{name}` under src/, or import it (e.g. `use k8s_openapi::api::core::v1::{name};`)"
                    )
                } else {
                    "paths must name a type under src/, a k8s_openapi type, std or serde_json"
                        .into()
                };
                self.error(at, format!("cannot resolve type `{name}`"), Some(hint));
                Schema::new()
            }
        }
    }

    /// Applies schema markers in controller-gen's priority order, then the `items:` variants.
    fn apply_markers(
        &mut self,
        s: &mut Schema,
        markers: &[Marker],
        file: usize,
        enum_values: Option<&[String]>,
    ) {
        let mut main: Vec<&Marker> = Vec::new();
        let mut items: Vec<&Marker> = Vec::new();
        for m in markers {
            if m.name().starts_with("kubebuilder:validation:items:") {
                items.push(m);
            } else {
                main.push(m);
            }
        }
        main.sort_by_key(|m| priority(m.name()));
        items.sort_by_key(|m| priority(m.name()));
        for m in &main {
            if let Err((msg, hint)) = apply_one(s, m, m.name(), enum_values) {
                let at = self.marker_at(file, m);
                self.error(at, msg, hint);
            }
        }
        self.check_map_list_has_keys(s, &main, file);
        for m in items {
            let short = m.name().replacen("items:", "", 1);
            let ok = s.get("type") == Some(&json!("array"))
                && s.get("items").is_some_and(Value::is_object);
            if !ok {
                let found = s
                    .get("type")
                    .and_then(Value::as_str)
                    .unwrap_or("")
                    .to_string();
                let at = self.marker_at(file, m);
                self.error(
                    at,
                    format!(
                        "must apply {} to an array value, found {}",
                        m.name(),
                        if found.is_empty() {
                            "no type".into()
                        } else {
                            found
                        }
                    ),
                    None,
                );
                continue;
            }
            let Some(Value::Object(it)) = s.get_mut("items") else {
                continue;
            };
            if let Err((msg, hint)) = apply_one(it, m, &short, None) {
                let at = self.marker_at(file, m);
                self.error(at, msg, hint);
            }
        }
    }

    /// A `+listType=map` whose list got no `+listMapKey`: controller-gen writes that CRD, and the API server
    /// refuses it ("x-kubernetes-list-map-keys: Required value").
    fn check_map_list_has_keys(&mut self, s: &Schema, markers: &[&Marker], file: usize) {
        let map_list = markers.iter().find(|m| {
            m.name() == "listType" && m.value.as_ref().and_then(MValue::as_str) == Some("map")
        });
        if let Some(m) = map_list
            && s.get("x-kubernetes-list-type") == Some(&json!("map"))
            && !s.contains_key("x-kubernetes-list-map-keys")
        {
            let at = self.marker_at(file, m);
            self.error(
                at,
                "`+listType=map` needs at least one `+listMapKey`: the API server refuses a map list without keys",
                Some("add `/// +listMapKey=<field>` naming the item field that identifies an entry (e.g. name), or use `+listType=atomic`".into()),
            );
        }
    }

    /// The flattened schema behind a `$ref` key (`local:N`, `k8s:path`, `typemeta`).
    pub fn flattened(&mut self, key: &str) -> Rc<Schema> {
        if let Some(s) = self.flat.get(key) {
            if self.flattening.iter().any(|k| k == key)
                && let Some(t) = key
                    .strip_prefix("local:")
                    .and_then(|i| i.parse::<usize>().ok())
            {
                let name = self.model.types[t].name.clone();
                if !self.recursive.contains(&name) {
                    self.recursive.push(name);
                }
            }
            return Rc::clone(s);
        }
        if let Some(p) = key.strip_prefix("k8s:") {
            // Already flattened by the k8s module.
            let s = self.k8s_schema(p).unwrap_or_default();
            self.flat.insert(key.to_string(), Rc::clone(&s));
            return s;
        }
        // A type that refers to itself flattens its inner reference to an empty schema, as controller-gen does.
        self.flat.insert(key.to_string(), Rc::new(Schema::new()));
        self.flattening.push(key.to_string());
        let mut s = match key.strip_prefix("local:") {
            Some(i) => self.type_schema(i.parse().unwrap_or(0)),
            None => type_meta_schema(),
        };
        self.flatten_refs(&mut s);
        self.flattening.pop();
        let s = Rc::new(s);
        self.flat.insert(key.to_string(), Rc::clone(&s));
        s
    }

    /// Like [`Self::flattened`], but takes the schema out of the cache (no copy when nothing else holds it).
    pub fn take_flattened(&mut self, key: &str) -> Schema {
        let s = self.flattened(key);
        self.flat.remove(key);
        Rc::try_unwrap(s).unwrap_or_else(|rc| (*rc).clone())
    }

    fn k8s_schema(&mut self, path: &str) -> Option<Rc<Schema>> {
        let share = self.share_k8s;
        self.k8s
            .entry(path.to_string())
            .or_insert_with(|| match crate::k8s::schema_for(path) {
                Some(Value::Object(mut m)) => {
                    if share {
                        crate::frozen::freeze_children(path, &mut m);
                    }
                    Some(Rc::new(m))
                }
                _ => None,
            })
            .clone()
    }

    pub fn flatten_refs(&mut self, node: &mut Schema) {
        if let Some(Value::String(r)) = node.get("$ref").cloned() {
            let used_once = r
                .strip_prefix("local:")
                .and_then(|i| i.parse::<usize>().ok())
                .is_some_and(|t| self.uses.get(t) == Some(&1));
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
        for_children(node, &mut |c| self.flatten_refs(c));
    }
}

fn for_children(node: &mut Schema, f: &mut dyn FnMut(&mut Schema)) {
    if let Some(Value::Object(props)) = node.get_mut("properties") {
        for v in props.values_mut() {
            if let Value::Object(o) = v {
                f(o);
            }
        }
    }
    for k in ["items", "additionalProperties", "not"] {
        if let Some(Value::Object(o)) = node.get_mut(k) {
            f(o);
        }
    }
    for k in ["allOf", "anyOf", "oneOf"] {
        if let Some(Value::Array(a)) = node.get_mut(k) {
            for v in a {
                if let Value::Object(o) = v {
                    f(o);
                }
            }
        }
    }
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
    field.remove("$ref");
    out.insert(
        "allOf".into(),
        Value::Array(vec![Value::Object(ty), Value::Object(field)]),
    );
    out
}

/// Merges every `allOf` branch into its parent, top-down (controller-gen's FlattenEmbedded).
pub fn flatten_all_of(node: &mut Schema) {
    if let Some(Value::Array(all)) = node.remove("allOf") {
        for e in all {
            if let Value::Object(e) = e {
                merge_into(node, e);
            }
        }
    }
    for_children(node, &mut |c| flatten_all_of(c));
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
pub fn merge_into(dst: &mut Schema, mut src: Schema) {
    if let Some(Value::Array(all)) = src.remove("allOf") {
        for e in all {
            if let Value::Object(e) = e {
                merge_into(dst, e);
            }
        }
    }
    let mut dst_rem = Schema::new();
    let mut src_rem = Schema::new();
    for (k, v) in src {
        if DOC_KEYS.contains(&k.as_str()) {
            continue;
        }
        if k == "enum" {
            if !dst.contains_key("enum") {
                dst.insert(k, v);
            }
            continue;
        }
        if is_zero(&v) {
            continue;
        }
        let Some(d) = dst.get_mut(&k) else {
            dst.insert(k, v);
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
            "properties" => {
                if let (Value::Object(dp), Value::Object(sp)) = (d, v) {
                    for (pk, pv) in sp {
                        if let Some(existing) = dp.get_mut(&pk) {
                            crate::frozen::materialize(existing);
                        }
                        match dp.get_mut(&pk) {
                            Some(Value::Object(existing)) => {
                                if let Value::Object(pv) = pv {
                                    merge_into(existing, pv);
                                }
                            }
                            _ => {
                                dp.insert(pk, pv);
                            }
                        }
                    }
                }
            }
            "required" => {
                if let (Value::Array(da), Value::Array(sa)) = (d, v) {
                    da.extend(sa);
                }
            }
            "type" => {}
            "additionalProperties" => {
                crate::frozen::materialize(d);
                if let Value::Object(sv) = v {
                    match d {
                        Value::Object(dv) => merge_into(dv, sv),
                        other => *other = Value::Object(sv),
                    }
                }
            }
            "x-kubernetes-preserve-unknown-fields" | "x-kubernetes-map-type" => *d = v,
            "x-kubernetes-validations" => {
                if let (Value::Array(da), Value::Array(mut sa)) = (d.take(), v) {
                    sa.extend(da);
                    *d = Value::Array(sa);
                }
            }
            _ => {
                dst_rem.insert(k.clone(), d.take());
                src_rem.insert(k.clone(), v);
                dst.remove(&k);
            }
        }
    }
    if !dst_rem.is_empty() {
        let entry = dst
            .entry("allOf")
            .or_insert_with(|| Value::Array(Vec::new()));
        if let Value::Array(a) = entry {
            a.push(Value::Object(dst_rem));
            a.push(Value::Object(src_rem));
        }
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

/// controller-gen's ApplyPriority: Type/ListType/XIntOrString/+default first, +kubebuilder:default late,
/// the OneOf rules after every XValidation.
fn priority(name: &str) -> i32 {
    let short = name.replacen("items:", "", 1);
    match short.as_str() {
        "kubebuilder:validation:Type"
        | "listType"
        | "kubebuilder:validation:XIntOrString"
        | "default" => 9,
        "kubebuilder:validation:AtMostOneOf" => 11,
        "kubebuilder:validation:ExactlyOneOf" => 12,
        "kubebuilder:validation:AtLeastOneOf" => 13,
        _ => 10,
    }
}

type ApplyErr = (String, Option<String>);

fn ty(s: &Schema) -> &str {
    s.get("type").and_then(Value::as_str).unwrap_or("")
}

fn need(cond: bool, msg: String, hint: &str) -> Result<(), ApplyErr> {
    if cond {
        Ok(())
    } else {
        Err((msg, Some(hint.to_string())))
    }
}

fn number_json(f: f64) -> Value {
    MValue::Number(f).to_json()
}

fn one_of_rule(fields: &[String], op: &str) -> String {
    let list: Vec<String> = fields.iter().map(|f| format!("has(self.{f})")).collect();
    format!("[{}].filter(x,x==true).size() {op}", list.join(","))
}

/// Applies one schema marker; `name` is the marker name without an `items:` part.
fn apply_one(
    s: &mut Schema,
    m: &Marker,
    name: &str,
    enum_values: Option<&[String]>,
) -> Result<(), ApplyErr> {
    let v = m.value.as_ref();
    let short = name.strip_prefix("kubebuilder:validation:").unwrap_or(name);
    let numeric = matches!(ty(s), "integer" | "number");
    let textual = ty(s) == "string" || s.get("x-kubernetes-int-or-string") == Some(&json!(true));
    let found = if ty(s).is_empty() {
        "no type (a struct or k8s type)".to_string()
    } else {
        format!("type {}", ty(s))
    };
    match (name, short) {
        (_, "Maximum" | "Minimum" | "MultipleOf")
            if name.starts_with("kubebuilder:validation:") =>
        {
            let key = match short {
                "Maximum" => "maximum",
                "Minimum" => "minimum",
                _ => "multipleOf",
            };
            need(
                numeric,
                format!("{short} applies to numbers, found {found}"),
                "use MinLength/MaxLength for strings, MinItems/MaxItems for lists",
            )?;
            let f = v.and_then(MValue::as_f64).unwrap_or(0.0);
            if ty(s) == "integer" && f.fract() != 0.0 {
                return Err((
                    format!(
                        "cannot apply non-integral {} ({f}) to an integer",
                        short.to_lowercase()
                    ),
                    None,
                ));
            }
            s.insert(key.into(), number_json(f));
        }
        (_, "ExclusiveMaximum" | "ExclusiveMinimum")
            if name.starts_with("kubebuilder:validation:") =>
        {
            need(
                numeric,
                format!("{short} applies to numbers, found {found}"),
                "only numbers have exclusive bounds",
            )?;
            let key = if short == "ExclusiveMaximum" {
                "exclusiveMaximum"
            } else {
                "exclusiveMinimum"
            };
            if v.and_then(MValue::as_bool).unwrap_or(false) {
                s.insert(key.into(), json!(true));
            } else {
                s.remove(key);
            }
        }
        (_, "MaxLength" | "MinLength" | "Pattern")
            if name.starts_with("kubebuilder:validation:") =>
        {
            need(
                textual,
                format!("{short} applies to strings, found {found}"),
                "use Minimum/Maximum for numbers, MinItems/MaxItems for lists",
            )?;
            match short {
                "Pattern" => {
                    s.insert(
                        "pattern".into(),
                        json!(v.and_then(MValue::as_str).unwrap_or("")),
                    );
                }
                _ => {
                    let key = if short == "MaxLength" {
                        "maxLength"
                    } else {
                        "minLength"
                    };
                    s.insert(key.into(), json!(v.and_then(MValue::as_i64).unwrap_or(0)));
                }
            }
        }
        (_, "MaxItems" | "MinItems" | "UniqueItems")
            if name.starts_with("kubebuilder:validation:") =>
        {
            need(
                ty(s) == "array",
                format!("{short} applies to lists, found {found}"),
                "use it on a Vec field",
            )?;
            match short {
                "UniqueItems" => {
                    if v.and_then(MValue::as_bool).unwrap_or(false) {
                        // controller-gen writes it, but the API server refuses the CRD ("uniqueItems cannot be
                        // set to true since the runtime complexity becomes quadratic").
                        return Err((
                            "UniqueItems=true makes the API server refuse the CRD (quadratic validation cost)".into(),
                            Some("use `+listType=set` for a list of unique items".into()),
                        ));
                    } else {
                        s.remove("uniqueItems");
                    }
                }
                _ => {
                    let key = if short == "MaxItems" {
                        "maxItems"
                    } else {
                        "minItems"
                    };
                    s.insert(key.into(), json!(v.and_then(MValue::as_i64).unwrap_or(0)));
                }
            }
        }
        (_, "MaxProperties" | "MinProperties") if name.starts_with("kubebuilder:validation:") => {
            need(
                ty(s) == "object",
                format!("{short} applies to objects, found {found}"),
                "use it on a map field or on the struct type itself",
            )?;
            let key = if short == "MaxProperties" {
                "maxProperties"
            } else {
                "minProperties"
            };
            s.insert(key.into(), json!(v.and_then(MValue::as_i64).unwrap_or(0)));
        }
        ("kubebuilder:validation:Enum", _) => {
            let vals = match v {
                Some(MValue::List(items)) => items.iter().map(MValue::to_json).collect(),
                Some(other) => vec![other.to_json()],
                None => Vec::new(),
            };
            s.insert("enum".into(), Value::Array(vals));
        }
        ("kubebuilder:validation:Format", _) => {
            s.insert(
                "format".into(),
                json!(v.and_then(MValue::as_str).unwrap_or("")),
            );
        }
        ("kubebuilder:validation:Type", _) => {
            // An empty Type means "no type" (used with XIntOrString); Go omits the empty string.
            match v.and_then(MValue::as_str).unwrap_or("") {
                "" => s.remove("type"),
                t => s.insert("type".into(), json!(t)),
            };
        }
        ("nullable", _) => {
            s.insert("nullable".into(), json!(true));
        }
        ("kubebuilder:default", _) => {
            let mut d = v.map(MValue::to_json).unwrap_or(Value::Null);
            if ty(s) == "array" && d == json!({}) {
                d = json!([]);
            }
            s.insert("default".into(), d);
        }
        ("default", _) => {
            if let Some(d) = v.map(MValue::to_json)
                && !d.is_null()
            {
                s.insert("default".into(), d);
            }
        }
        ("kubebuilder:example", _) => {
            s.insert(
                "example".into(),
                v.map(MValue::to_json).unwrap_or(Value::Null),
            );
        }
        ("kubebuilder:title", _) => match v {
            Some(MValue::String(t)) => {
                s.insert("title".into(), json!(t));
            }
            Some(other) => {
                return Err((
                    format!("title must be a string, found {}", other.type_name()),
                    Some("quote it: `+kubebuilder:title=\"...\"`".into()),
                ));
            }
            None => {}
        },
        (
            "kubebuilder:validation:XPreserveUnknownFields"
            | "kubebuilder:pruning:PreserveUnknownFields",
            _,
        ) => {
            s.insert("x-kubernetes-preserve-unknown-fields".into(), json!(true));
        }
        (
            "kubebuilder:validation:XEmbeddedResource" | "kubebuilder:validation:EmbeddedResource",
            _,
        ) => {
            s.insert("x-kubernetes-embedded-resource".into(), json!(true));
        }
        ("kubebuilder:validation:XIntOrString", _) => {
            s.insert("x-kubernetes-int-or-string".into(), json!(true));
        }
        ("kubebuilder:validation:XValidation", _) => {
            let text = m.str_arg("rule").unwrap_or("");
            if let Err(e) = crate::cel::check(text) {
                return Err((
                    format!(
                        "CEL rule does not parse: {} (column {} of the rule)",
                        e.message, e.col
                    ),
                    Some("see https://kubernetes.io/docs/reference/using-api/cel/".into()),
                ));
            }
            let mut rule = Schema::new();
            rule.insert("rule".into(), json!(text));
            for (arg, key) in [
                ("message", "message"),
                ("messageExpression", "messageExpression"),
                ("fieldPath", "fieldPath"),
            ] {
                if let Some(x) = m.str_arg(arg).filter(|x| !x.is_empty()) {
                    rule.insert(key.into(), json!(x));
                }
            }
            if let Some(reason) = m.str_arg("reason").filter(|r| !r.is_empty()) {
                const REASONS: [&str; 4] = [
                    "FieldValueRequired",
                    "FieldValueInvalid",
                    "FieldValueForbidden",
                    "FieldValueDuplicate",
                ];
                if !REASONS.contains(&reason) {
                    return Err((
                        format!("invalid reason `{reason}`"),
                        Some(format!("valid reasons: {}", REASONS.join(", "))),
                    ));
                }
                rule.insert("reason".into(), json!(reason));
            }
            if let Some(b) = m.arg("optionalOldSelf").and_then(MValue::as_bool) {
                if !uses_old_self(text) {
                    return Err((
                        "optionalOldSelf may not be set when the rule does not use oldSelf (the API server refuses it)".into(),
                        Some("drop optionalOldSelf, or write a transition rule, e.g. `!oldSelf.hasValue() || self >= oldSelf.value()`".into()),
                    ));
                }
                if b && let Some(col) = bare_old_self(text) {
                    return Err((
                        format!("with optionalOldSelf=true, `oldSelf` is an optional value (column {col} of the rule)"),
                        Some("use oldSelf.hasValue(), oldSelf.value() or oldSelf.orValue(...), e.g. `!oldSelf.hasValue() || self >= oldSelf.value()`".into()),
                    ));
                }
                rule.insert("optionalOldSelf".into(), json!(b));
            }
            push_rule(s, Value::Object(rule));
        }
        (
            "kubebuilder:validation:AtMostOneOf"
            | "kubebuilder:validation:ExactlyOneOf"
            | "kubebuilder:validation:AtLeastOneOf",
            _,
        ) => {
            let fields = v.map(MValue::as_str_list).unwrap_or_default();
            if let Some(bad) = fields.iter().find(|f| f.contains('.')) {
                return Err((
                    format!("{short}: cannot reference nested fields: {bad}"),
                    None,
                ));
            }
            if fields.is_empty() {
                return Ok(());
            }
            let list = format!("[{}]", fields.join(" "));
            let (op, msg) = match short {
                "AtMostOneOf" => (
                    "<= 1",
                    format!("at most one of the fields in {list} may be set"),
                ),
                "ExactlyOneOf" => (
                    "== 1",
                    format!("exactly one of the fields in {list} must be set"),
                ),
                _ => (
                    ">= 1",
                    format!("at least one of the fields in {list} must be set"),
                ),
            };
            push_rule(s, json!({"rule": one_of_rule(&fields, op), "message": msg}));
        }
        ("k8s:immutable", _) => push_rule(
            s,
            json!({"rule": "self == oldSelf", "message": "field is immutable"}),
        ),
        ("k8s:enum", _) => {
            let Some(values) = enum_values else {
                return Err(("k8s:enum needs a unit-variant enum type".into(), Some("write the allowed values as enum variants, or use +kubebuilder:validation:Enum".into())));
            };
            let mut vals: Vec<String> = values.iter().map(|v| json!(v).to_string()).collect();
            vals.sort();
            s.insert("type".into(), json!("string"));
            s.insert(
                "enum".into(),
                Value::Array(
                    vals.iter()
                        .filter_map(|v| serde_json::from_str(v).ok())
                        .collect(),
                ),
            );
        }
        ("listType", _) => {
            need(
                ty(s) == "array",
                format!("listType applies to lists, found {found}"),
                "use it on a Vec field",
            )?;
            let lt = v.and_then(MValue::as_str).unwrap_or("");
            if !matches!(lt, "map" | "set" | "atomic") {
                return Err((
                    format!("listType must be \"map\", \"set\" or \"atomic\", found `{lt}`"),
                    None,
                ));
            }
            s.insert("x-kubernetes-list-type".into(), json!(lt));
        }
        ("listMapKey", _) => {
            need(
                ty(s) == "array",
                format!("listMapKey applies to lists, found {found}"),
                "use it on a Vec field",
            )?;
            need(
                s.get("x-kubernetes-list-type") == Some(&json!("map")),
                "listMapKey needs +listType=map".into(),
                "add `/// +listType=map` to the field",
            )?;
            let key = v.and_then(MValue::as_str).unwrap_or("").to_string();
            let entry = s
                .entry("x-kubernetes-list-map-keys")
                .or_insert_with(|| json!([]));
            if let Value::Array(a) = entry {
                a.push(json!(key));
            }
        }
        ("mapType" | "structType", _) => {
            let obj = ty(s) == "object" || (name == "structType" && ty(s).is_empty());
            need(
                obj,
                format!("{name} applies to objects, found {found}"),
                "use it on a map or struct field",
            )?;
            let mt = v.and_then(MValue::as_str).unwrap_or("");
            if !matches!(mt, "atomic" | "granular") {
                return Err((
                    format!("{name} must be \"granular\" or \"atomic\", found `{mt}`"),
                    None,
                ));
            }
            s.insert("x-kubernetes-map-type".into(), json!(mt));
        }
        ("kubebuilder:externalDocs", _) => {
            let url = m.str_arg("url").unwrap_or("");
            if !(url.contains("://") || url.starts_with('/')) {
                return Err((
                    format!("invalid url `{url}` in kubebuilder:externalDocs marker"),
                    Some("give an absolute URL".into()),
                ));
            }
            let mut d = Schema::new();
            if let Some(desc) = m.str_arg("description").filter(|d| !d.is_empty()) {
                d.insert("description".into(), json!(desc));
            }
            d.insert("url".into(), json!(url));
            s.insert("externalDocs".into(), Value::Object(d));
        }
        _ => {}
    }
    Ok(())
}

/// Whether the rule mentions `oldSelf` (outside string literals).
fn uses_old_self(rule: &str) -> bool {
    old_self_uses(rule).next().is_some()
}

/// Character indexes of every `oldSelf` identifier outside string literals.
fn old_self_uses(rule: &str) -> impl Iterator<Item = usize> {
    let chars: Vec<char> = rule.chars().collect();
    let mut found = Vec::new();
    let mut quote: Option<char> = None;
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        if let Some(q) = quote {
            if c == '\\' {
                i += 2;
                continue;
            }
            if c == q {
                quote = None;
            }
            i += 1;
            continue;
        }
        if c == '"' || c == '\'' {
            quote = Some(c);
            i += 1;
            continue;
        }
        let word_start = i == 0
            || !(chars[i - 1].is_alphanumeric() || chars[i - 1] == '_' || chars[i - 1] == '.');
        let ends = chars
            .get(i + 7)
            .is_none_or(|c| !(c.is_alphanumeric() || *c == '_'));
        if word_start && chars[i..].starts_with(&['o', 'l', 'd', 'S', 'e', 'l', 'f']) && ends {
            found.push(i);
            i += 7;
            continue;
        }
        i += 1;
    }
    found.into_iter()
}

/// The 1-based column of the first `oldSelf` in `rule` not used as an optional (`.hasValue()`, `.value()`,
/// `.orValue(`, `.optMap(`, `.optFlatMap(`), outside string literals.
fn bare_old_self(rule: &str) -> Option<usize> {
    const OPTIONAL_USES: [&str; 5] = [
        ".hasValue()",
        ".value()",
        ".orValue(",
        ".optMap(",
        ".optFlatMap(",
    ];
    let chars: Vec<char> = rule.chars().collect();
    old_self_uses(rule)
        .find(|&i| {
            let after: String = chars[i + 7..].iter().collect();
            !OPTIONAL_USES
                .iter()
                .any(|u| after.trim_start().starts_with(u))
        })
        .map(|i| i + 1)
}

fn push_rule(s: &mut Schema, rule: Value) {
    let entry = s
        .entry("x-kubernetes-validations")
        .or_insert_with(|| json!([]));
    if let Value::Array(a) = entry {
        a.push(rule);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn obj(v: Value) -> Schema {
        v.as_object().cloned().unwrap()
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
        );
        assert_eq!(
            Value::Object(dst),
            json!({"type": "integer", "allOf": [{"minimum": 1}, {"minimum": 2}], "x-kubernetes-validations": [{"rule": "f"}, {"rule": "t"}]})
        );
    }

    #[test]
    fn optional_old_self_must_be_used_as_an_optional() {
        assert_eq!(
            bare_old_self("!oldSelf.hasValue() || self >= oldSelf.value()"),
            None
        );
        assert_eq!(bare_old_self("self >= oldSelf.orValue(0)"), None);
        assert_eq!(bare_old_self("self >= oldSelf"), Some(9));
        assert_eq!(bare_old_self("'oldSelf' == self || self.oldSelfish"), None);
        assert!(!uses_old_self(
            "'oldSelf' == self || self.oldSelfish || oldSelfish"
        ));
        assert!(uses_old_self("self == oldSelf"));
    }

    #[test]
    fn preserve_fields_prefers_field_doc() {
        let t = obj(json!({"type": "object", "description": "type doc"}));
        let mut out = preserve_fields(
            t.clone(),
            obj(json!({"$ref": "local:0", "description": "field doc"})),
        );
        flatten_all_of(&mut out);
        assert_eq!(
            Value::Object(out),
            json!({"type": "object", "description": "field doc"})
        );
        let mut out = preserve_fields(t, obj(json!({"$ref": "local:0"})));
        flatten_all_of(&mut out);
        assert_eq!(
            Value::Object(out),
            json!({"type": "object", "description": "type doc"})
        );
    }
}
