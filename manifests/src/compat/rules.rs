//! The rules of compat: one function each over one pair (baseline, new) at one level, listed in the tables
//! [`CRD_RULES`], [`VERSION_RULES`] and [`NODE_RULES`] in the order they run. A rule reports every break it
//! finds in its pair and says nothing of the levels below it (walk.rs walks them).
//!
//! Choices where Kubernetes leaves room: an absent `x-kubernetes-list-type` is `atomic` (what the API server
//! assumes for a list), an absent `x-kubernetes-map-type` is `granular`; a changed CEL rule is one whose text
//! changed at the same place of the list (`x-kubernetes-validations[i]`), any other new text is an added one.

use super::finding::{Finding, Rule, child_path};
use serde_json::{Map, Value};

/// Where the findings of one pair go, with the version and path they are at.
pub struct Report<'a> {
    pub version: &'a str,
    pub path: &'a str,
    pub findings: &'a mut Vec<Finding>,
}

impl Report<'_> {
    fn add(&mut self, rule: Rule, old: impl Into<String>, new: impl Into<String>) {
        self.add_at(rule, self.path.to_string(), old, new);
    }

    fn add_at(&mut self, rule: Rule, path: String, old: impl Into<String>, new: impl Into<String>) {
        self.findings.push(Finding {
            rule,
            version: self.version.to_string(),
            path,
            old: old.into(),
            new: new.into(),
        });
    }
}

/// A JSON value as a finding prints it: strings quoted, everything compact.
pub fn show(v: &Value) -> String {
    v.to_string()
}

/// `key: value`, how a finding names a keyword and its value.
fn keyword(key: &str, v: &Value) -> String {
    format!("{key}: {}", show(v))
}

// ---- CRD-wide ----

/// One rule over the two CRDs' `spec`.
pub type CrdRule = fn(&Map<String, Value>, &Map<String, Value>, &mut Report<'_>);

pub const CRD_RULES: &[CrdRule] = &[scope_unchanged, stored_versions_kept, served_versions_kept];

/// The scope decides every object's name (with or without a namespace): no stored object survives a change.
fn scope_unchanged(old: &Map<String, Value>, new: &Map<String, Value>, r: &mut Report<'_>) {
    let (o, n) = (str_of(old, "scope"), str_of(new, "scope"));
    if o != n {
        r.add(Rule::ScopeChanged, o, n);
    }
}

/// The versions of a CRD's `spec.versions` by name.
pub fn versions(spec: &Map<String, Value>) -> Vec<(&str, &Map<String, Value>)> {
    spec.get("versions")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(|v| {
            let v = v.as_object()?;
            Some((v.get("name")?.as_str()?, v))
        })
        .collect()
}

fn find<'a>(
    spec: &'a [(&str, &'a Map<String, Value>)],
    name: &str,
) -> Option<&'a Map<String, Value>> {
    spec.iter().find(|(n, _)| *n == name).map(|(_, v)| *v)
}

fn flag(v: &Map<String, Value>, key: &str) -> bool {
    v.get(key).and_then(Value::as_bool).unwrap_or(false)
}

/// What a `stored-version-removed` finding's `old` says of a removed version that was only deprecated in the
/// baseline (not its storage version): it may still be stored (below).
pub const DEPRECATED: &str = "deprecated";

/// Objects stored in a version stay stored in it until each is rewritten; the API server refuses a CRD whose
/// versions leave out one of `status.storedVersions`. The baseline's storage version surely is there. A
/// deprecated version may be too: deprecating a version usually follows moving the storage to another one, and
/// objects written before stay in the old one until a storage migration rewrites them. The status is not in the
/// YAML the gate reads, so a removed deprecated version is a finding as well: acknowledging it says the migration
/// ran (or that it never was stored). A removed version neither stored nor deprecated is `served-version-removed`.
fn stored_versions_kept(old: &Map<String, Value>, new: &Map<String, Value>, r: &mut Report<'_>) {
    let new_versions = versions(new);
    for (name, v) in versions(old) {
        if find(&new_versions, name).is_some() {
            continue;
        }
        if flag(v, "storage") {
            r.add_at_version(Rule::StoredVersionRemoved, name, "storage", "");
        } else if flag(v, "deprecated") {
            r.add_at_version(Rule::StoredVersionRemoved, name, DEPRECATED, "");
        }
    }
}

/// Clients written against a served version get 404 once it is gone or no longer served; a version deprecated
/// in the baseline (`deprecated: true`) has warned them, and may go. The baseline's storage version, removed, is
/// `stored-version-removed` alone (one finding per version: its help says clients get 404 too).
fn served_versions_kept(old: &Map<String, Value>, new: &Map<String, Value>, r: &mut Report<'_>) {
    let new_versions = versions(new);
    for (name, v) in versions(old) {
        if !flag(v, "served") || flag(v, "deprecated") {
            continue;
        }
        match find(&new_versions, name) {
            None if flag(v, "storage") => {}
            None => r.add_at_version(Rule::ServedVersionRemoved, name, "served", ""),
            Some(n) if !flag(n, "served") => {
                r.add_at_version(Rule::ServedVersionRemoved, name, "served", "served: false")
            }
            Some(_) => {}
        }
    }
}

impl Report<'_> {
    fn add_at_version(&mut self, rule: Rule, version: &str, old: &str, new: &str) {
        self.findings.push(Finding {
            rule,
            version: version.to_string(),
            path: String::new(),
            old: old.to_string(),
            new: new.to_string(),
        });
    }
}

fn str_of(m: &Map<String, Value>, key: &str) -> String {
    m.get(key).and_then(Value::as_str).unwrap_or("").to_string()
}

// ---- schema nodes ----

/// One rule over one schema node present in both (the baseline's, the new one's).
pub type NodeRule = fn(&Map<String, Value>, &Map<String, Value>, &mut Report<'_>);

pub const NODE_RULES: &[NodeRule] = &[
    type_unchanged,
    fields_kept,
    no_new_required,
    defaults_unchanged,
    enums_not_narrowed,
    limits_not_narrowed,
    unknown_fields_kept,
    list_types_unchanged,
    cel_rules_unchanged,
    nullable_unchanged,
];

/// A property of the baseline that is gone: its value disappears from every read of the stored objects (pruned on
/// read, lost at their next write), a create that sets it drops it without an error, a server-side apply fails.
fn fields_kept(old: &Map<String, Value>, new: &Map<String, Value>, r: &mut Report<'_>) {
    let Some(old_props) = old.get("properties").and_then(Value::as_object) else {
        return;
    };
    let new_props = new.get("properties").and_then(Value::as_object);
    for (name, schema) in old_props {
        if new_props.is_none_or(|p| !p.contains_key(name)) {
            let path = child_path(r.path, name);
            r.add_at(Rule::FieldRemoved, path, type_name(schema), "");
        }
    }
}

/// The type a schema allows, as a finding prints it: `x-kubernetes-int-or-string` is a type of its own, no
/// `type` at all is `any`.
pub fn type_name(schema: &Value) -> String {
    if schema
        .get("x-kubernetes-int-or-string")
        .and_then(Value::as_bool)
        .unwrap_or(false)
    {
        return "int-or-string".into();
    }
    match schema.get("type").and_then(Value::as_str) {
        Some(t) => t.to_string(),
        None => "any".into(),
    }
}

/// A manifest with a value of the old type is refused as a new object, and its server-side apply fails even
/// unchanged (server-side apply types it before validation: no ratcheting); stored values keep the old type.
fn type_unchanged(old: &Map<String, Value>, new: &Map<String, Value>, r: &mut Report<'_>) {
    let (o, n) = (
        type_name(&Value::Object(old.clone())),
        type_name(&Value::Object(new.clone())),
    );
    if o != n {
        r.add(Rule::TypeChanged, o, n);
    }
}

fn string_set(m: &Map<String, Value>, key: &str) -> Vec<String> {
    m.get(key)
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(|v| v.as_str().map(str::to_string))
        .collect()
}

/// A field required now that was not: a manifest without it is refused as a new object (a stored object's own,
/// unchanged, is ratcheted).
fn no_new_required(old: &Map<String, Value>, new: &Map<String, Value>, r: &mut Report<'_>) {
    let was = string_set(old, "required");
    for name in string_set(new, "required") {
        if !was.contains(&name) {
            let path = child_path(r.path, &name);
            r.add_at(Rule::RequiredAdded, path, "optional", "required");
        }
    }
}

/// A default is applied when an object is read from storage and written in when it is created: a new one shows
/// in every read of a stored object without the field; a changed or removed one leaves stored objects as they are
/// and makes the same manifest create a different object.
fn defaults_unchanged(old: &Map<String, Value>, new: &Map<String, Value>, r: &mut Report<'_>) {
    match (old.get("default"), new.get("default")) {
        (None, Some(n)) => r.add(Rule::DefaultAdded, "", show(n)),
        (Some(o), None) => r.add(Rule::DefaultRemoved, show(o), ""),
        (Some(o), Some(n)) if o != n => r.add(Rule::DefaultChanged, show(o), show(n)),
        _ => {}
    }
}

/// An enum on a field that had none, or a value taken out of one: a manifest with another value is refused as a
/// new object, and so is an update to one (a stored object's own value, unchanged, is ratcheted).
fn enums_not_narrowed(old: &Map<String, Value>, new: &Map<String, Value>, r: &mut Report<'_>) {
    let Some(new_enum) = new.get("enum").and_then(Value::as_array) else {
        return;
    };
    match old.get("enum").and_then(Value::as_array) {
        None => r.add(Rule::EnumAdded, "", show(&Value::Array(new_enum.clone()))),
        Some(old_enum) => {
            let removed: Vec<Value> = old_enum
                .iter()
                .filter(|v| !new_enum.contains(v))
                .cloned()
                .collect();
            if !removed.is_empty() {
                r.add(
                    Rule::EnumValueRemoved,
                    show(&Value::Array(old_enum.clone())),
                    show(&Value::Array(new_enum.clone())),
                );
            }
        }
    }
}

/// Which way a limit narrows what is valid.
#[derive(Clone, Copy)]
enum Bound {
    /// A lower bound: narrower when it grows.
    Lower,
    /// An upper bound: narrower when it shrinks.
    Upper,
}

/// The numeric limits, each with the way it narrows.
const LIMITS: &[(&str, Bound)] = &[
    ("minimum", Bound::Lower),
    ("maximum", Bound::Upper),
    ("minLength", Bound::Lower),
    ("maxLength", Bound::Upper),
    ("minItems", Bound::Lower),
    ("maxItems", Bound::Upper),
    ("minProperties", Bound::Lower),
    ("maxProperties", Bound::Upper),
];

/// A limit added, or moved so fewer values pass: a manifest with a value outside it is refused as a new object,
/// and so is an update to one (a stored object's own value, unchanged, is ratcheted). `pattern` counts as tightened whenever its text changed (two regular
/// expressions cannot be compared in general); `exclusiveMinimum`/`exclusiveMaximum` tighten when they turn on.
fn limits_not_narrowed(old: &Map<String, Value>, new: &Map<String, Value>, r: &mut Report<'_>) {
    for &(key, bound) in LIMITS {
        let Some(n) = new.get(key) else { continue };
        match old.get(key) {
            None => r.add(Rule::LimitAdded, "", keyword(key, n)),
            Some(o) => {
                let (Some(of), Some(nf)) = (o.as_f64(), n.as_f64()) else {
                    continue;
                };
                let narrower = match bound {
                    Bound::Lower => nf > of,
                    Bound::Upper => nf < of,
                };
                if narrower {
                    r.add(Rule::LimitTightened, keyword(key, o), keyword(key, n));
                }
            }
        }
    }
    for key in ["exclusiveMinimum", "exclusiveMaximum"] {
        if flag(new, key) && !flag(old, key) {
            let old_text = old.get(key).map(|o| keyword(key, o)).unwrap_or_default();
            r.add(
                Rule::LimitTightened,
                old_text,
                keyword(key, &Value::Bool(true)),
            );
        }
    }
    match (old.get("pattern"), new.get("pattern")) {
        (None, Some(n)) => r.add(Rule::LimitAdded, "", keyword("pattern", n)),
        (Some(o), Some(n)) if o != n => r.add(
            Rule::LimitTightened,
            keyword("pattern", o),
            keyword("pattern", n),
        ),
        _ => {}
    }
}

/// Unknown fields kept by the baseline (`x-kubernetes-preserve-unknown-fields`, a map's `additionalProperties`)
/// and pruned now: they disappear from every read of the stored objects, clients that set them have them dropped.
fn unknown_fields_kept(old: &Map<String, Value>, new: &Map<String, Value>, r: &mut Report<'_>) {
    const PRESERVE: &str = "x-kubernetes-preserve-unknown-fields";
    if flag(old, PRESERVE) && !flag(new, PRESERVE) {
        r.add(
            Rule::PreserveUnknownFieldsNarrowed,
            keyword(PRESERVE, &Value::Bool(true)),
            "",
        );
    }
    let keeps_any = |m: &Map<String, Value>| match m.get("additionalProperties") {
        Some(Value::Bool(b)) => *b,
        Some(Value::Object(_)) => true,
        _ => false,
    };
    if keeps_any(old) && !keeps_any(new) {
        let shown = |m: &Map<String, Value>| {
            m.get("additionalProperties")
                .map(|v| match v {
                    Value::Object(_) => "additionalProperties: {...}".to_string(),
                    other => keyword("additionalProperties", other),
                })
                .unwrap_or_default()
        };
        r.add(Rule::PreserveUnknownFieldsNarrowed, shown(old), shown(new));
    }
}

/// How server-side apply merges a list or map: a changed list type, map keys or map type changes who owns
/// which entries of stored objects (field managers conflict), and a `set` or `map` list refuses duplicates, in a
/// new object and in the server-side apply of a stored one's unchanged manifest (no ratcheting there).
fn list_types_unchanged(old: &Map<String, Value>, new: &Map<String, Value>, r: &mut Report<'_>) {
    let is_array = |m: &Map<String, Value>| m.get("type").and_then(Value::as_str) == Some("array");
    let is_object =
        |m: &Map<String, Value>| m.get("type").and_then(Value::as_str) == Some("object");
    let with_default =
        |m: &Map<String, Value>, key: &str, default: Option<&str>| -> Option<Value> {
            m.get(key)
                .cloned()
                .or(default.map(|d| Value::String(d.into())))
        };
    let mut compare = |key: &str, default: Option<&str>| {
        let (o, n) = (
            with_default(old, key, default),
            with_default(new, key, default),
        );
        if o != n {
            let text = |v: Option<Value>| v.map(|v| keyword(key, &v)).unwrap_or_default();
            r.add(Rule::ListTypeChanged, text(o), text(n));
        }
    };
    if is_array(old) && is_array(new) {
        compare("x-kubernetes-list-type", Some("atomic"));
        compare("x-kubernetes-list-map-keys", None);
    }
    if is_object(old) && is_object(new) {
        compare("x-kubernetes-map-type", Some("granular"));
    }
}

/// A CEL rule added or changed: a manifest with a value it refuses is refused as a new object, and so is an
/// update that changes the field to another such value (the API server ratchets only unchanged values).
fn cel_rules_unchanged(old: &Map<String, Value>, new: &Map<String, Value>, r: &mut Report<'_>) {
    let rules = |m: &Map<String, Value>| -> Vec<String> {
        m.get("x-kubernetes-validations")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .map(|v| {
                v.get("rule")
                    .and_then(Value::as_str)
                    .unwrap_or("")
                    .to_string()
            })
            .collect()
    };
    let (was, now) = (rules(old), rules(new));
    for (i, rule) in now.iter().enumerate() {
        if was.contains(rule) {
            continue;
        }
        match was.get(i).filter(|o| !now.contains(o)) {
            Some(o) => r.add(
                Rule::CelRuleChanged,
                show(&o.clone().into()),
                show(&rule.clone().into()),
            ),
            None => r.add(Rule::CelRuleAdded, "", show(&rule.clone().into())),
        }
    }
}

/// `nullable` either way: taken away, stored nulls disappear from every read (pruned), a create drops a null
/// without an error and a server-side apply with one is refused; given, clients written against the baseline read
/// a null they never expected.
fn nullable_unchanged(old: &Map<String, Value>, new: &Map<String, Value>, r: &mut Report<'_>) {
    let (o, n) = (flag(old, "nullable"), flag(new, "nullable"));
    if o != n {
        let text = |b: bool| if b { "nullable: true" } else { "" };
        r.add(Rule::NullableChanged, text(o), text(n));
    }
}
