//! Schemas of the k8s-openapi types, exactly as controller-gen v0.21.0 emits them for a field of the
//! matching k8s.io/api (v0.35) Go type that has no doc comment of its own.
//!
//! The data is derived, not written by hand: `hack/gen-k8s-schemas.sh` runs controller-gen over a Go
//! CRD with one field per k8s-openapi type and packs the result into `schemas.jsonl` (one type per
//! line). Regenerate it after bumping k8s-openapi's Kubernetes feature or controller-gen:
//!
//! ```text
//! hack/gen-k8s-schemas.sh
//! ```
//!
//! To keep the file small, an object nested in a type that equals another type's whole schema is
//! stored as `{"$ref": "<OpenAPI name>"}` with the field's own `description` when it differs from the
//! type's, or `"$noDescription": true` when the field has none. [`schema_for`] expands these, so what it
//! returns never contains `$ref`.
//!
//! Special cases come from controller-gen's known types, so they are in the data as controller-gen
//! writes them: `ObjectMeta` is `type: object` (also nested, e.g. in `PodTemplateSpec.metadata`),
//! `Time`/`MicroTime` are `type: string, format: date-time`, `Quantity` and `IntOrString` are
//! `anyOf` integer/string with `x-kubernetes-int-or-string` (Quantity adds a `pattern`), `RawExtension`
//! preserves unknown fields. Types that controller-gen cannot generate (floats, JSON-less fields,
//! `+enum` types without values) are absent, as they cannot be used in a Go CRD either.
//!
//! Kubernetes versions: the base table is 1.35's; for another version a project targets (k8s-openapi's `v1_NN`
//! feature in its Cargo.toml, see settings.rs) `schemas-v1_NN.jsonl` holds only the lines that differ from the
//! base, and `{"name": .., "absent": true}` for types that version lacks (`hack/gen-k8s-schemas.sh 1.NN` writes
//! it). `Version::TABLES` lists the versions with a table.
//!
//! Field-level docs: controller-gen gives a field of a k8s type the field's doc comment, or the type's
//! description (the one returned here) when the field has none; field markers are merged on top
//! (controller-gen's allOf flattening).

use std::collections::HashMap;
use std::sync::OnceLock;

use serde_json::{Map, Value};

/// One line per type: `{"name":"io.k8s.api.core.v1.Container","schema":{...}}`, sorted by name.
const DATA: &str = include_str!("schemas.jsonl");

/// A Kubernetes minor version (1.NN) whose schemas rkb embeds.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Version(u8);

impl Version {
    /// The version of the base table.
    pub const BASE: Version = Version(35);
    /// Every version with a table, and its lines that differ from the base.
    const TABLES: [(Version, &'static str); 5] = [
        (Version(33), include_str!("schemas-v1_33.jsonl")),
        (Version(34), include_str!("schemas-v1_34.jsonl")),
        (Version::BASE, ""),
        (Version(36), include_str!("schemas-v1_36.jsonl")),
        (Version(37), include_str!("schemas-v1_37.jsonl")),
    ];

    /// The version of k8s-openapi's feature `v1_NN`, when rkb has its table.
    pub fn of_minor(minor: u8) -> Option<Version> {
        Self::TABLES.iter().map(|(v, _)| *v).find(|v| v.0 == minor)
    }

    /// The versions with a table, as `1.NN`.
    pub fn supported() -> String {
        let names: Vec<String> = Self::TABLES.iter().map(|(v, _)| v.to_string()).collect();
        names.join(", ")
    }
}

impl std::fmt::Display for Version {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "1.{}", self.0)
    }
}

const LINE_PREFIX: &str = "{\"name\":\"";

/// The schema controller-gen emits for the k8s-openapi type at `rust_path`, e.g.
/// `k8s_openapi::api::core::v1::Container` or `k8s_openapi::apimachinery::pkg::apis::meta::v1::Condition`
/// (a leading `::` is accepted). `None` when the path names no k8s-openapi type that controller-gen
/// can generate.
pub fn schema_for(rust_path: &str) -> Option<Value> {
    schema_in(Version::BASE, rust_path)
}

/// Like [`schema_for`], in Kubernetes `version`.
pub fn schema_in(version: Version, rust_path: &str) -> Option<Value> {
    schema_for_openapi_name_in(version, &openapi_name(rust_path)?)
}

/// Like [`schema_for`], keyed by the OpenAPI definition name (k8s-openapi's `JsonSchema::schema_name`),
/// e.g. `io.k8s.api.core.v1.Container`.
pub fn schema_for_openapi_name(name: &str) -> Option<Value> {
    schema_for_openapi_name_in(Version::BASE, name)
}

/// Not cached here: a run keeps what it expanded in its own store (shared.rs), which goes when the run ends.
fn schema_for_openapi_name_in(version: Version, name: &str) -> Option<Value> {
    expand_type(version, name)
}

/// `k8s_openapi::api::core::v1::Container` -> `io.k8s.api.core.v1.Container`. k8s-openapi's module
/// tree mirrors the Go package path, with `-` spelled `_`. `k8s_openapi::ByteString` (Go's `[]byte`)
/// is keyed `ByteString`.
pub fn openapi_name(rust_path: &str) -> Option<String> {
    let rest = rust_path
        .trim_start_matches("::")
        .strip_prefix("k8s_openapi::")?;
    if rest.trim() == "ByteString" {
        // k8s-openapi's own type (base64 on the wire), Go's []byte.
        return Some("ByteString".to_owned());
    }
    let segments: Vec<&str> = rest.split("::").map(str::trim).collect();
    if segments.len() < 2 || segments.iter().any(|s| s.is_empty()) {
        return None;
    }
    let go: Vec<&str> = segments
        .iter()
        .map(|s| match *s {
            "apiextensions_apiserver" => "apiextensions-apiserver",
            "kube_aggregator" => "kube-aggregator",
            other => other,
        })
        .collect();
    Some(format!("io.k8s.{}", go.join(".")))
}

/// Every OpenAPI name the data covers, sorted.
pub fn known_openapi_names() -> impl Iterator<Item = &'static str> {
    DATA.lines().filter_map(line_name)
}

fn line_name(line: &str) -> Option<&str> {
    let rest = line.strip_prefix(LINE_PREFIX)?;
    rest.get(..rest.find('"')?)
}

/// Name -> raw line of `version`, built once per version by scanning line prefixes (the base's lines, then the
/// version's own over them); lines are parsed only when asked for.
///
/// A process-wide static, unlike every other cache of a run (shared.rs): it borrows from the embedded tables
/// and is a pure function of them, so it can never go stale, and its size is fixed (one small map of slices per
/// version, whichever projects the process generates), where the expanded schemas a run caches grow with use.
fn index(version: Version) -> &'static HashMap<&'static str, &'static str> {
    static INDEXES: [OnceLock<HashMap<&'static str, &'static str>>; Version::TABLES.len()] =
        [const { OnceLock::new() }; Version::TABLES.len()];
    let slot = Version::TABLES
        .iter()
        .position(|(v, _)| *v == version)
        .unwrap_or_else(|| unreachable!("a Version is made only for a version with a table"));
    INDEXES[slot].get_or_init(|| {
        let mut index: HashMap<&str, &str> = DATA
            .lines()
            .filter_map(|line| Some((line_name(line)?, line)))
            .collect();
        for line in Version::TABLES[slot].1.lines() {
            let Some(name) = line_name(line) else {
                continue;
            };
            if line.contains(r#""absent":true"#) {
                index.remove(name);
            } else {
                index.insert(name, line);
            }
        }
        index
    })
}

fn packed_schema(version: Version, name: &str) -> Option<Value> {
    let line = index(version).get(name)?;
    let mut entry: Value = serde_json::from_str(line).ok()?;
    entry.get_mut("schema").map(Value::take)
}

fn expand_type(version: Version, name: &str) -> Option<Value> {
    let mut schema = packed_schema(version, name)?;
    expand(version, &mut schema, &mut vec![name.to_owned()])?;
    Some(schema)
}

/// Keys whose values are data (defaults, enum values, CEL rules, property names), not schemas.
const DATA_KEYS: &[&str] = &[
    "default",
    "example",
    "enum",
    "x-kubernetes-validations",
    "required",
];

/// Replaces every `$ref` node below `v` with the referenced type's expanded schema (the inverse of
/// the packing in hack/gen-k8s-schemas/main.go). `stack` guards against a malformed cyclic file.
fn expand(version: Version, v: &mut Value, stack: &mut Vec<String>) -> Option<()> {
    match v {
        Value::Object(map) => {
            if let Some(Value::String(target)) = map.get("$ref") {
                let target = target.clone();
                if stack.contains(&target) {
                    return None;
                }
                let mut resolved = packed_schema(version, &target)?;
                stack.push(target);
                expand(version, &mut resolved, stack)?;
                stack.pop();
                *v = with_field_docs(resolved, map);
                return Some(());
            }
            for (k, child) in map.iter_mut() {
                if !DATA_KEYS.contains(&k.as_str()) {
                    expand(version, child, stack)?;
                }
            }
        }
        Value::Array(items) => {
            for child in items {
                expand(version, child, stack)?;
            }
        }
        _ => {}
    }
    Some(())
}

fn with_field_docs(mut resolved: Value, reference: &Map<String, Value>) -> Value {
    if let Value::Object(schema) = &mut resolved {
        if let Some(desc) = reference.get("description") {
            schema.insert("description".into(), desc.clone());
        }
        if reference.get("$noDescription") == Some(&Value::Bool(true)) {
            schema.remove("description");
        }
    }
    resolved
}

#[cfg(test)]
mod tests;
