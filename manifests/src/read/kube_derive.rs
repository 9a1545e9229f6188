//! kube-rs types, adopted: a type with kube-derive's `#[derive(CustomResource)]` and its `#[kube(...)]` attributes
//! is read as the kind kube-derive generates from it, so a kube-rs project gets rkb's CRDs, RBAC, webhooks and
//! `--check` without rewriting its types. (Reading them was chosen over an `rkb migrate` that rewrites them: the
//! types keep compiling with kube-derive, and its `crd()` and rkb's CRD describe the same kind.)
//!
//! Contract:
//! - Each `#[kube(...)]` key means what kube-derive makes of it (its `custom_resource` module): `group`,
//!   `version`, `kind` (and `root`, the generated struct's name), `namespaced` (else the kind is cluster-scoped),
//!   `no_spec` (the spec's fields at the object's root), `plural` (else kube's own rule on `singular`, which
//!   defaults to the lowercased kind), `singular`, `shortname`, `category`, `printcolumn`, `selectable`, `scale`
//!   (written only with `status`, as kube-derive does), `status`, `annotation`, `label`, `served`, `storage`,
//!   `deprecated`, `doc` (the kind's description) and `validation` (a CEL rule on the kind, written as a string
//!   literal or `Rule::new("...")`, with an optional `.message("...")`).
//! - Keys with no CRD meaning are read and ignored: `derive`, `attr`, `crates(...)` and `cel` only shape the Rust
//!   code kube-derive writes. `schema = "manual"` or `"disabled"` (the user supplies the schema, or none) is a
//!   warning at the key: rkb writes the schema from the Rust types all the same.
//! - Any other key, a value of the wrong form, a missing `group`, `version` or `kind`, a `kind` equal to the
//!   type's name, or a `selectable` path the API server refuses (no leading `.`) is an error at the key (or at
//!   the derive): an attribute rkb does not understand is never skipped without a word.
//! - rkb reads a file's inline modules (`mod v1 { .. }`) as the file's module: a kind in one whose spec or status
//!   type has a namesake elsewhere in the file is an error, not a CRD built from the namesake.
//! - The kind becomes a struct of the outline, placed right after the annotated type and located at its `kind`
//!   key: `#[serde(flatten)] TypeMeta`, `metadata: ObjectMeta` (not required), `spec: <the type>` (required, as
//!   kube's; flattened with `no_spec`) and `status: Option<status>`. So the model, the schema and every check
//!   treat it as an rkb kind, and the `+kubebuilder:` markers on the fields of the spec and status types apply.
//!   The CRD-level settings reach the plan through [`kinds_in`], which the plan calls again for the files that
//!   hold such kinds (plan/adopted.rs applies them).

use crate::read::outline::{Field, Fields, Ident, Item, Outline, SerdeAttrs, SerdeKey};
use crate::read::source::{DocLine, SourceFile};
use crate::read::type_expr::TypeExpr;
use rkb_markers::{Diagnostic, PrintColumn, Scale};
use syn::meta::ParseNestedMeta;
use syn::spanned::Spanned;

/// The kind kube-derive generates from one annotated type.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct KubeKind {
    /// The annotated type (the spec) and where its name is.
    pub spec: String,
    pub spec_line: usize,
    /// The generated struct: `root`, else `kind`; placed at the `kind` key.
    pub ident: Ident,
    pub group: String,
    pub version: String,
    pub kind: String,
    /// The kind's description (`doc`), else kube-derive's.
    pub doc: Option<String>,
    pub plural: Option<String>,
    pub singular: Option<String>,
    pub namespaced: bool,
    /// `no_spec`: the spec's fields sit at the object's root (its `spec` field is flattened).
    pub no_spec: bool,
    /// The `status` type's path.
    pub status: Option<Vec<String>>,
    pub short_names: Vec<String>,
    pub categories: Vec<String>,
    pub columns: Vec<PrintColumn>,
    pub selectable: Vec<String>,
    pub scale: Option<Scale>,
    pub annotations: Vec<(String, String)>,
    pub labels: Vec<(String, String)>,
    /// CEL rules on the kind: the rule, its message, and the line and column of the key.
    pub rules: Vec<(String, Option<String>, usize, usize)>,
    pub served: bool,
    pub storage: bool,
    /// `deprecated`, with its warning when one is given.
    pub deprecated: Option<Option<String>>,
}

impl KubeKind {
    /// kube-derive's names: singular defaults to the lowercased kind, plural to kube's rule on the singular.
    pub fn names(&self) -> (String, String) {
        let singular = self
            .singular
            .clone()
            .unwrap_or_else(|| self.kind.to_ascii_lowercase());
        let plural = self
            .plural
            .clone()
            .unwrap_or_else(|| kube_plural(&singular));
        (plural, singular)
    }
}

/// kube-derive's pluralizer (no irregular words: those need `plural`): `-es` after s, x, z, ch and sh, `-ies`
/// for a `y` after a consonant, else `-s`.
fn kube_plural(word: &str) -> String {
    if ["s", "x", "z", "ch", "sh"]
        .iter()
        .any(|end| word.ends_with(end))
    {
        return format!("{word}es");
    }
    let mut rest = word.chars();
    if rest.next_back() == Some('y')
        && rest
            .clone()
            .next_back()
            .is_some_and(|c| !"aeiou".contains(c))
    {
        return format!("{}ies", rest.as_str());
    }
    format!("{word}s")
}

/// The kube-derive kinds of `file` (already parsed as `ast`), with the diagnostics for their attributes.
pub fn read(file: &SourceFile, ast: &syn::File) -> (Vec<KubeKind>, Vec<Diagnostic>) {
    let mut reader = Reader {
        file,
        kinds: Vec::new(),
        diags: Vec::new(),
        names: std::collections::HashMap::new(),
        inline: 0,
    };
    count_type_names(&ast.items, &mut reader.names);
    reader.items(&ast.items);
    (reader.kinds, reader.diags)
}

/// The kube-derive kinds of `file`, for the plan (their diagnostics were reported when the file was outlined).
/// Parses only files that mention `CustomResource`.
pub fn kinds_in(file: &SourceFile) -> Vec<KubeKind> {
    if !file.text.contains("CustomResource") {
        return Vec::new();
    }
    let mut ignored = Vec::new();
    crate::read::source::with_fallback_lexer(|| {
        crate::read::outline::with_syn(file, &mut ignored, |ast| read(file, ast).0)
    })
    .unwrap_or_default()
}

/// Adds to `outline` the kind of each kube-derive type of `file` (see the module docs); the attributes'
/// diagnostics go to `diags`. The caller has set up the lexer.
pub fn adopt(file: &SourceFile, outline: &mut Outline, diags: &mut Vec<Diagnostic>) {
    if !file.text.contains("CustomResource") {
        return;
    }
    let Some((kinds, found)) = crate::read::outline::with_syn(file, diags, |ast| read(file, ast))
    else {
        return;
    };
    diags.extend(found);
    for kind in &kinds {
        place(&mut outline.items, kind);
    }
}

/// Inserts `kind`'s struct after its spec type, in `items` or the inline module that holds it.
fn place(items: &mut Vec<Item>, kind: &KubeKind) -> bool {
    let at = items.iter().position(|item| match item {
        Item::Struct { ident, .. } | Item::Enum { ident, .. } => {
            ident.name == kind.spec && ident.line == kind.spec_line
        }
        _ => false,
    });
    if let Some(at) = at {
        items.insert(at + 1, kind_struct(kind));
        return true;
    }
    items.iter_mut().any(|item| match item {
        Item::Mod {
            body: Some(body), ..
        } => place(&mut body.items, kind),
        _ => false,
    })
}

/// The struct kube-derive generates, as the outline holds a struct.
fn kind_struct(kind: &KubeKind) -> Item {
    let (line, col) = (kind.ident.line, kind.ident.col);
    let path = |segments: &[&str]| TypeExpr::Path {
        segments: segments.iter().map(|s| s.to_string()).collect(),
        args: Vec::new(),
    };
    // The API server gives every object its metadata: like an rkb kind's (`#[serde(default)]`), it is not required.
    let field = |name: &str, ty: TypeExpr, flatten: bool| {
        let mut serde = SerdeAttrs::default();
        if flatten {
            serde.set_flag(&SerdeKey::Flatten);
        }
        if name == "metadata" {
            serde.set_flag(&SerdeKey::Default);
        }
        Field {
            docs: Vec::new(),
            serde,
            ident: Ident {
                name: name.into(),
                line,
                col,
            },
            ty,
        }
    };
    let mut fields = vec![
        field("types", path(&["kube", "core", "TypeMeta"]), true),
        field("metadata", path(&["kube", "core", "ObjectMeta"]), false),
        field("spec", path(&[kind.spec.as_str()]), kind.no_spec),
    ];
    if let Some(status) = &kind.status {
        let status = TypeExpr::Path {
            segments: status.clone(),
            args: Vec::new(),
        };
        let option = TypeExpr::Path {
            segments: vec!["Option".into()],
            args: vec![status],
        };
        fields.push(field("status", option, false));
    }
    let description = kind.doc.clone().unwrap_or_else(|| {
        format!(
            " Auto-generated derived type for {} via `CustomResource`",
            kind.spec
        )
    });
    let mut docs = vec![DocLine {
        text: description,
        line,
        col,
    }];
    for (rule, message, line, col) in &kind.rules {
        let mut marker = format!("+kubebuilder:validation:XValidation:rule={}", quoted(rule));
        if let Some(message) = message {
            marker.push_str(&format!(",message={}", quoted(message)));
        }
        docs.push(DocLine {
            text: marker,
            line: *line,
            col: *col,
        });
    }
    Item::Struct {
        docs,
        serde: SerdeAttrs::default(),
        ident: kind.ident.clone(),
        fields: Fields::Named(fields),
    }
}

/// `text` as a marker's string value: a Go-quoted string.
fn quoted(text: &str) -> String {
    format!("{text:?}")
}

struct Reader<'a> {
    file: &'a SourceFile,
    kinds: Vec<KubeKind>,
    diags: Vec<Diagnostic>,
    /// How many structs and enums of each name the file defines, inline modules included.
    names: std::collections::HashMap<String, usize>,
    /// How deep in inline modules (`mod v1 { ... }`) the reader is.
    inline: usize,
}

/// Counts the structs and enums of `items` by name, into `names`.
fn count_type_names(items: &[syn::Item], names: &mut std::collections::HashMap<String, usize>) {
    for item in items {
        match item {
            syn::Item::Struct(s) => *names.entry(s.ident.to_string()).or_default() += 1,
            syn::Item::Enum(e) => *names.entry(e.ident.to_string()).or_default() += 1,
            syn::Item::Mod(syn::ItemMod {
                content: Some((_, inner)),
                ..
            }) => count_type_names(inner, names),
            _ => {}
        }
    }
}

const KNOWN_KEYS: &str = "group, version, kind, root, doc, namespaced, no_spec, plural, singular, shortname, category, printcolumn, selectable, scale, status, annotation, label, validation, served, storage, deprecated, schema, derive, attr, crates, cel";

impl Reader<'_> {
    fn items(&mut self, items: &[syn::Item]) {
        for item in items {
            match item {
                syn::Item::Struct(s) => self.item(&s.attrs, &s.ident),
                syn::Item::Enum(e) => self.item(&e.attrs, &e.ident),
                syn::Item::Mod(m) => {
                    if let Some((_, inner)) = &m.content {
                        self.inline += 1;
                        self.items(inner);
                        self.inline -= 1;
                    }
                }
                _ => {}
            }
        }
    }

    /// Reads the kind of one type when it derives `CustomResource`.
    fn item(&mut self, attrs: &[syn::Attribute], ident: &syn::Ident) {
        let Some(derive) = attrs.iter().find(|a| derives_custom_resource(a)) else {
            return;
        };
        let start = ident.span().start();
        let mut kind = KubeKind {
            spec: ident.to_string(),
            spec_line: start.line,
            served: true,
            storage: true,
            ..KubeKind::default()
        };
        let mut kind_at = None;
        let mut root = None;
        for attr in attrs.iter().filter(|a| a.path().is_ident("kube")) {
            let parsed = attr.parse_nested_meta(|m| {
                let key = m
                    .path
                    .get_ident()
                    .map(ToString::to_string)
                    .unwrap_or_default();
                self.key(&key, &m, &mut kind, &mut kind_at, &mut root)
            });
            if let Err(e) = parsed {
                self.at(
                    e.span(),
                    1,
                    Diagnostic::error(format!("cannot read this kube attribute: {e}")),
                    "write it as kube-derive documents it (cargo build shows the same error)",
                );
            }
        }
        let missing: Vec<&str> = [
            ("group", &kind.group),
            ("version", &kind.version),
            ("kind", &kind.kind),
        ]
        .into_iter()
        .filter(|(_, v)| v.is_empty())
        .map(|(k, _)| k)
        .collect();
        if !missing.is_empty() {
            self.at(
                derive.span(),
                "derive".len(),
                Diagnostic::error(format!(
                    "`#[derive(CustomResource)]` on `{}` has no {}",
                    kind.spec,
                    missing
                        .iter()
                        .map(|k| format!("`{k}`"))
                        .collect::<Vec<_>>()
                        .join(", ")
                )),
                "kube-derive needs `#[kube(group = \"...\", version = \"...\", kind = \"...\")]`",
            );
            return;
        }
        let (line, col) = kind_at.unwrap_or((start.line, start.column + 1));
        kind.ident = Ident {
            name: root.unwrap_or_else(|| kind.kind.clone()),
            line,
            col,
        };
        if kind.ident.name == kind.spec {
            let hint = format!(
                "kube-derive generates a struct `{0}`: name the spec type otherwise (e.g. `{0}Spec`), or name the generated struct with `root = \"...\"`",
                kind.spec
            );
            let d = Diagnostic::error(format!(
                "the kind `{}` has the name of the type it is derived from",
                kind.spec
            ));
            self.diags
                .push(self.located(line, col, "kind".len(), d, &hint));
            return;
        }
        if kind.status.is_none() {
            kind.scale = None;
        }
        if let Some(d) = self.shared_name(&kind) {
            self.diags.push(d);
            return;
        }
        self.kinds.push(kind);
    }

    /// The error for a kind in an inline module whose spec or status type has a namesake elsewhere in the file
    /// (kube's `mod v1 { .. } mod v2 { .. }` in one file): rkb reads a file's inline modules as the file's own
    /// module, so it would take one version's type for the other's.
    fn shared_name(&self, kind: &KubeKind) -> Option<Diagnostic> {
        if self.inline == 0 {
            return None;
        }
        let status = kind.status.as_ref().and_then(|s| s.last());
        let shared = [Some(&kind.spec), status]
            .into_iter()
            .flatten()
            .find(|name| self.names.get(*name).copied().unwrap_or(0) > 1)?;
        let d = Diagnostic::error(format!(
            "`{shared}` of kind {}/{} {} is defined more than once in this file's inline modules",
            kind.group, kind.version, kind.kind
        ));
        Some(self.located(
            kind.ident.line,
            kind.ident.col,
            "kind".len(),
            d,
            "rkb reads a file's inline modules as one module, so one version's type would be taken for the other's: give each version its own file (`mod v1;` in src/v1.rs or src/v1/mod.rs)",
        ))
    }

    /// Reads one `key` of a `#[kube(...)]` attribute into `kind`.
    fn key(
        &mut self,
        key: &str,
        m: &ParseNestedMeta<'_>,
        kind: &mut KubeKind,
        kind_at: &mut Option<(usize, usize)>,
        root: &mut Option<String>,
    ) -> syn::Result<()> {
        match key {
            "group" => kind.group = string(m)?,
            "version" => kind.version = string(m)?,
            "kind" => {
                let start = m.path.span().start();
                *kind_at = Some((start.line, start.column + 1));
                kind.kind = string(m)?;
            }
            "root" => *root = Some(string(m)?),
            "doc" => kind.doc = Some(string(m)?),
            "plural" => kind.plural = Some(string(m)?),
            "singular" => kind.singular = Some(string(m)?),
            "shortname" => kind.short_names.push(string(m)?),
            "category" => kind.categories.push(string(m)?),
            "selectable" => {
                let path = string(m)?;
                // kube-derive passes it through; the API server refuses a path without its leading `.`.
                if !path.starts_with('.') {
                    self.key_diag(
                        m,
                        Diagnostic::error(format!(
                            "selectable field `{path}` is not a JSON path the API server takes"
                        )),
                        &format!("start it with `.`: `selectable = \".{path}\"`"),
                    );
                }
                kind.selectable.push(path);
            }
            "status" => {
                let path = string(m)?;
                kind.status = Some(path.split("::").map(|s| s.trim().to_string()).collect());
            }
            "namespaced" => kind.namespaced = flag(m)?,
            "no_spec" => kind.no_spec = flag(m)?,
            "served" => kind.served = flag(m)?,
            "storage" => kind.storage = flag(m)?,
            "deprecated" => {
                kind.deprecated = Some(if m.input.peek(syn::Token![=]) {
                    Some(string(m)?)
                } else {
                    None
                });
            }
            "annotation" => kind.annotations.push(pair(m)?),
            "label" => kind.labels.push(pair(m)?),
            "printcolumn" => kind.columns.push(column(m)?),
            "scale" => kind.scale = Some(scale(m)?),
            "validation" => self.validation(m, kind)?,
            "schema" => {
                let mode = string(m)?;
                match mode.as_str() {
                    "derived" => {}
                    "manual" | "disabled" => self.key_diag(m, Diagnostic::warning(format!(
                        "`schema = \"{mode}\"`: rkb writes the schema from the Rust types all the same"
                    )), "kube-derive leaves the schema to you here; rkb's CRD has the schema of the spec and status types, with their `+kubebuilder:` markers"),
                    other => return Err(m.error(format!("unknown schema mode `{other}` (kube-derive has `derived`, `manual` and `disabled`)"))),
                }
            }
            // Rust-only: what kube-derive's generated code derives, its attributes, the crates it names and its
            // client-side CEL methods. Nothing of them reaches the CRD.
            "derive" | "attr" => {
                string(m)?;
            }
            "cel" => {
                flag(m)?;
            }
            "crates" => skip(m)?,
            other => {
                skip(m)?;
                self.key_diag(
                    m,
                    Diagnostic::error(format!("unknown kube attribute `{other}`")),
                    &format!("rkb reads kube-derive's keys: {KNOWN_KEYS}"),
                );
            }
        }
        Ok(())
    }

    /// `validation = "rule"` or `validation = Rule::new("rule")`, with an optional `.message("...")`.
    fn validation(&mut self, m: &ParseNestedMeta<'_>, kind: &mut KubeKind) -> syn::Result<()> {
        let expr: syn::Expr = m.value()?.parse()?;
        let start = m.path.span().start();
        match rule_of(&expr) {
            Some((rule, message)) => kind.rules.push((rule, message, start.line, start.column + 1)),
            None => self.key_diag(m, Diagnostic::error(format!(
                "rkb cannot read the validation rule `{}`",
                quote::ToTokens::to_token_stream(&expr)
            )), "write the rule as a string literal or `Rule::new(\"...\")`, optionally with `.message(\"...\")`, or as `+kubebuilder:validation:XValidation` on the spec's fields"),
        }
        Ok(())
    }

    fn key_diag(&mut self, m: &ParseNestedMeta<'_>, d: Diagnostic, hint: &str) {
        let len = m
            .path
            .get_ident()
            .map_or(1, |i| i.to_string().chars().count());
        self.at(m.path.span(), len, d, hint);
    }

    fn at(&mut self, span: proc_macro2::Span, len: usize, d: Diagnostic, hint: &str) {
        let start = span.start();
        let d = self.located(start.line, start.column + 1, len, d, hint);
        self.diags.push(d);
    }

    fn located(
        &self,
        line: usize,
        col: usize,
        len: usize,
        d: Diagnostic,
        hint: &str,
    ) -> Diagnostic {
        d.at(&self.file.rel, line, col, len)
            .with_source_line(self.file.line(line))
            .with_hint(hint)
    }
}

/// Whether `attr` is a `#[derive(...)]` naming `CustomResource` (by any path: `kube::CustomResource`).
fn derives_custom_resource(attr: &syn::Attribute) -> bool {
    if !attr.path().is_ident("derive") {
        return false;
    }
    let parser = syn::punctuated::Punctuated::<syn::Path, syn::Token![,]>::parse_terminated;
    attr.parse_args_with(parser).is_ok_and(|paths| {
        paths.iter().any(|p| {
            p.segments
                .last()
                .is_some_and(|s| s.ident == "CustomResource")
        })
    })
}

fn string(m: &ParseNestedMeta<'_>) -> syn::Result<String> {
    let s: syn::LitStr = m.value()?.parse()?;
    Ok(s.value())
}

/// A darling bool: the bare key is `true`, else `key = true|false`.
fn flag(m: &ParseNestedMeta<'_>) -> syn::Result<bool> {
    if !m.input.peek(syn::Token![=]) {
        return Ok(true);
    }
    let b: syn::LitBool = m.value()?.parse()?;
    Ok(b.value)
}

/// `("key", "value")`.
fn pair(m: &ParseNestedMeta<'_>) -> syn::Result<(String, String)> {
    let content;
    syn::parenthesized!(content in m.input);
    let key: syn::LitStr = content.parse()?;
    content.parse::<syn::Token![,]>()?;
    let value: syn::LitStr = content.parse()?;
    let _ = content.parse::<Option<syn::Token![,]>>()?;
    Ok((key.value(), value.value()))
}

/// The `key = value` pairs of `key(...)`, or of `key = "{json}"`, as strings (a number as its digits).
fn fields(m: &ParseNestedMeta<'_>) -> syn::Result<Vec<(String, String)>> {
    let mut out = Vec::new();
    if m.input.peek(syn::Token![=]) {
        let s: syn::LitStr = m.value()?.parse()?;
        let json: serde_json::Value = serde_json::from_str(&s.value())
            .map_err(|e| syn::Error::new(s.span(), format!("not JSON: {e}")))?;
        let Some(object) = json.as_object() else {
            return Err(syn::Error::new(s.span(), "not a JSON object"));
        };
        for (k, v) in object {
            // kube reads the JSON in camelCase; the list form in snake_case.
            let k = snake(k);
            let v = v.as_str().map_or_else(|| v.to_string(), str::to_string);
            out.push((k, v));
        }
        return Ok(out);
    }
    m.parse_nested_meta(|inner| {
        let key = inner
            .path
            .get_ident()
            .map(ToString::to_string)
            .unwrap_or_default();
        let lit: syn::Lit = inner.value()?.parse()?;
        let value = match lit {
            syn::Lit::Str(s) => s.value(),
            syn::Lit::Int(i) => i.base10_digits().to_string(),
            other => {
                return Err(syn::Error::new(
                    other.span(),
                    "expected a string or a number",
                ));
            }
        };
        out.push((key, value));
        Ok(())
    })?;
    Ok(out)
}

/// `jsonPath` -> `json_path`; `type` (JSON) -> `type_`.
fn snake(key: &str) -> String {
    if key == "type" {
        return "type_".into();
    }
    key.chars().fold(String::new(), |mut s, c| {
        if c.is_ascii_uppercase() {
            s.push('_');
        }
        s.push(c.to_ascii_lowercase());
        s
    })
}

fn column(m: &ParseNestedMeta<'_>) -> syn::Result<PrintColumn> {
    let mut c = PrintColumn {
        name: String::new(),
        type_: String::new(),
        json_path: String::new(),
        description: None,
        format: None,
        priority: None,
    };
    for (k, v) in fields(m)? {
        match k.as_str() {
            "name" => c.name = v,
            "type_" => c.type_ = v,
            "json_path" => c.json_path = v,
            "description" => c.description = Some(v),
            "format" => c.format = Some(v),
            "priority" => {
                c.priority = Some(
                    v.parse()
                        .map_err(|_| m.error(format!("priority `{v}` is not a number")))?,
                );
            }
            other => return Err(m.error(format!("unknown printcolumn field `{other}`"))),
        }
    }
    for (field, value) in [
        ("name", &c.name),
        ("type_", &c.type_),
        ("json_path", &c.json_path),
    ] {
        if value.is_empty() {
            return Err(m.error(format!("printcolumn has no `{field}`")));
        }
    }
    Ok(c)
}

fn scale(m: &ParseNestedMeta<'_>) -> syn::Result<Scale> {
    let mut s = Scale {
        spec_path: String::new(),
        status_path: String::new(),
        selector_path: None,
    };
    for (k, v) in fields(m)? {
        match k.as_str() {
            "spec_replicas_path" => s.spec_path = v,
            "status_replicas_path" => s.status_path = v,
            "label_selector_path" => s.selector_path = Some(v),
            other => return Err(m.error(format!("unknown scale field `{other}`"))),
        }
    }
    if s.spec_path.is_empty() || s.status_path.is_empty() {
        return Err(m.error("scale needs `spec_replicas_path` and `status_replicas_path`"));
    }
    Ok(s)
}

/// Consumes what follows a key rkb does not read.
fn skip(m: &ParseNestedMeta<'_>) -> syn::Result<()> {
    if m.input.peek(syn::Token![=]) {
        let _: syn::Expr = m.value()?.parse()?;
    } else if m.input.peek(syn::token::Paren) {
        let content;
        syn::parenthesized!(content in m.input);
        let _: proc_macro2::TokenStream = content.parse()?;
    }
    Ok(())
}

/// The rule (and message) of a `validation` expression: `"rule"`, `Rule::new("rule")`, `.message("...")`.
fn rule_of(expr: &syn::Expr) -> Option<(String, Option<String>)> {
    let lit = |e: &syn::Expr| match e {
        syn::Expr::Lit(syn::ExprLit {
            lit: syn::Lit::Str(s),
            ..
        }) => Some(s.value()),
        _ => None,
    };
    match expr {
        syn::Expr::Lit(_) => lit(expr).map(|rule| (rule, None)),
        syn::Expr::Call(call) => {
            let syn::Expr::Path(f) = &*call.func else {
                return None;
            };
            let named = f
                .path
                .segments
                .iter()
                .map(|s| s.ident.to_string())
                .collect::<Vec<_>>();
            let is_new = named.ends_with(&["Rule".to_string(), "new".to_string()]);
            match (is_new, call.args.first()) {
                (true, Some(arg)) if call.args.len() == 1 => lit(arg).map(|rule| (rule, None)),
                _ => None,
            }
        }
        syn::Expr::MethodCall(mc) if mc.method == "message" && mc.args.len() == 1 => {
            let (rule, None) = rule_of(&mc.receiver)? else {
                return None;
            };
            Some((rule, Some(lit(&mc.args[0])?)))
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plurals_follow_kube_derive() {
        let cases = [
            ("foo", "foos"),
            ("box", "boxes"),
            ("policy", "policies"),
            ("day", "days"),
            ("mesh", "meshes"),
            ("bus", "buses"),
        ];
        for (word, plural) in cases {
            assert_eq!(kube_plural(word), plural, "{word}");
        }
    }
}
