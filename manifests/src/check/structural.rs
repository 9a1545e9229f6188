//! Check rules (check/mod.rs) on resolved schemas: the structural-schema rules of apiextensions.k8s.io/v1, and its
//! rules for map lists. Problems are reported with the schema path, at the field (or type) that made the node, found
//! through its provenance (a map list's at its `+listType`/`+listMapKey` marker), else at the root type.

use crate::check::{Checker, Version, for_each_child, for_each_own_child};
use crate::model::item_markers::ItemMarkers;
use crate::schema::node::{Node, Provenance, Schema};
use crate::schema::shared::{SharedSchemas, lock};
use rkb_markers::{SchemaMarker, TopologyMarker};
use serde_json::Value;

/// A problem found at a node: its schema path, where the node comes from, and the message.
type Problem = (String, Provenance, String);

/// The structural-schema rules of apiextensions.k8s.io/v1.
pub fn schema_is_structural(cx: &mut Checker<'_>, v: &Version<'_>) {
    let mut problems = Vec::new();
    walk(cx.shared, v.schema, ".", false, &mut problems);
    let model = cx.model;
    let (at, name) = (model.type_at(v.ty), &model.types[v.ty].name);
    let hint = if cx.recursive.is_empty() {
        "the API server rejects non-structural CRDs; add a type (e.g. +kubebuilder:validation:Type=object) or +kubebuilder:pruning:PreserveUnknownFields".to_string()
    } else {
        format!(
            "{} refers to itself and CRD schemas cannot be recursive: mark the recursive field \
             +kubebuilder:validation:Schemaless and +kubebuilder:pruning:PreserveUnknownFields (or use serde_json::Value)",
            cx.recursive
                .iter()
                .map(|n| format!("`{n}`"))
                .collect::<Vec<_>>()
                .join(", ")
        )
    };
    for (path, provenance, msg) in problems {
        cx.error(
            provenance.origin_at(model).unwrap_or(at),
            format!(
                "the {} schema of `{name}` is not structural at `{path}`: {msg}",
                v.name
            ),
            hint.clone(),
        );
    }
}

/// The API server's rules for map lists (`x-kubernetes-list-type: map`): keys present, items objects, each key a
/// scalar property of the items that is required or defaulted. Shared k8s sub-schemas are the API server's own and
/// are not entered.
pub fn map_lists_have_scalar_keys(cx: &mut Checker<'_>, v: &Version<'_>) {
    let mut problems = Vec::new();
    walk_list_maps(cx.shared, v.schema, ".", &mut problems);
    let model = cx.model;
    let (at, name) = (model.type_at(v.ty), &model.types[v.ty].name);
    for (path, provenance, msg) in problems {
        let marker = provenance.marker(model, |m: &ItemMarkers| {
            m.schema_at(|s| {
                matches!(
                    s,
                    SchemaMarker::Topology(
                        TopologyMarker::ListType(_) | TopologyMarker::ListMapKey(_)
                    )
                )
            })
        });
        cx.error(
            marker.or_else(|| provenance.origin_at(model)).unwrap_or(at),
            format!("the {} schema of `{name}` has an invalid map list at `{path}`: {msg}", v.name),
            "a map list's keys identify its entries: name item fields with `+listMapKey`, each a required (or defaulted) string, integer or boolean; or use `+listType=atomic`",
        );
    }
}

fn walk_list_maps(shared: &SharedSchemas, s: &Schema, path: &str, out: &mut Vec<Problem>) {
    if let Some(problem) = list_map_problem(shared, s) {
        out.push((path.to_string(), s.provenance, problem));
    }
    for_each_own_child(s, path, &mut |c, p| walk_list_maps(shared, c, &p, out));
}

/// What is wrong with `s` as a map list, if it is one (or claims keys without being one).
fn list_map_problem(shared: &SharedSchemas, s: &Schema) -> Option<String> {
    let keys = s
        .get("x-kubernetes-list-map-keys")
        .and_then(Value::as_array);
    if s.get("x-kubernetes-list-type").and_then(Value::as_str) != Some("map") {
        return keys.map(|_| "x-kubernetes-list-map-keys needs x-kubernetes-list-type: map".into());
    }
    let Some(keys) = keys.filter(|k| !k.is_empty()) else {
        return Some("x-kubernetes-list-type: map needs x-kubernetes-list-map-keys".into());
    };
    let items = s.items.as_deref().map(|n| shared.schema_of(n));
    let Some(items) = items.filter(|i| i.str("type") == Some("object")) else {
        return Some("the items of a map list must be objects".into());
    };
    let required: Vec<&str> = items
        .get("required")
        .and_then(Value::as_array)
        .map(|r| r.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    for key in keys.iter().filter_map(Value::as_str) {
        let prop = items.properties.as_ref().and_then(|p| p.get(key));
        let Some(prop) = prop.map(|n| shared.schema_of(n)) else {
            return Some(format!("map key `{key}` is not a field of the items"));
        };
        if matches!(prop.str("type"), Some("array" | "object")) {
            return Some(format!(
                "map key `{key}` must be a scalar, not a list or object"
            ));
        }
        if !required.contains(&key) && !prop.contains_key("default") {
            return Some(format!(
                "map key `{key}` must be required or have a default"
            ));
        }
    }
    None
}

/// Keys that make a schema inside allOf/anyOf/oneOf/not non-structural (apiextensions' ForbiddenGenerics
/// and ForbiddenExtensions).
const FORBIDDEN_IN_JUNCTORS: &[&str] = &[
    "type",
    "additionalProperties",
    "default",
    "title",
    "description",
    "nullable",
    "x-kubernetes-preserve-unknown-fields",
    "x-kubernetes-embedded-resource",
    "x-kubernetes-int-or-string",
    "x-kubernetes-list-map-keys",
    "x-kubernetes-list-type",
    "x-kubernetes-map-type",
    "x-kubernetes-validations",
];

fn walk(shared: &SharedSchemas, s: &Schema, path: &str, in_junctor: bool, out: &mut Vec<Problem>) {
    walk_at(shared, s, path, in_junctor, path == ".", s.provenance, out);
}

fn walk_at(
    shared: &SharedSchemas,
    s: &Schema,
    path: &str,
    in_junctor: bool,
    root: bool,
    inherited: Provenance,
    out: &mut Vec<Problem>,
) {
    // A node rkb made inside a field's schema (a list's items, a recursive type's `{}`) is the field's doing.
    let provenance = match s.provenance {
        Provenance {
            made_for: None,
            referenced: None,
        } => inherited,
        own => own,
    };
    let mut problem = |msg: String| out.push((path.to_string(), provenance, msg));
    if in_junctor {
        junctor_problems(s, &mut problem);
    } else {
        shape_problems(s, root, &mut problem);
    }
    if s.contains_key("properties") && s.contains_key("additionalProperties") {
        problem("properties and additionalProperties are mutually exclusive".into());
    }
    if s.get("type").and_then(Value::as_str) == Some("array") && !s.contains_key("items") {
        problem("an array needs items".into());
    }
    if root || is_true(s, "x-kubernetes-embedded-resource") {
        type_meta_problems(shared, s, &mut problem);
    }
    walk_children(shared, s, path, in_junctor, provenance, out);
}

/// Whether `s` sets the extension `key` to true.
fn is_true(s: &Schema, key: &str) -> bool {
    s.get(key) == Some(&Value::Bool(true))
}

/// A node inside allOf/anyOf/oneOf/not may only validate: it must not say what the data is.
fn junctor_problems(s: &Schema, problem: &mut dyn FnMut(String)) {
    for k in FORBIDDEN_IN_JUNCTORS {
        if s.contains_key(k) {
            problem(format!("`{k}` is not allowed inside allOf/anyOf/oneOf/not"));
        }
    }
}

/// A node outside the junctors says what the data is: a type (or int-or-string, or unknown fields kept), an
/// embedded resource an object with fields, the root an object.
fn shape_problems(s: &Schema, root: bool, problem: &mut dyn FnMut(String)) {
    let typ = s.get("type").and_then(Value::as_str).unwrap_or("");
    let preserve = is_true(s, "x-kubernetes-preserve-unknown-fields");
    let embedded = is_true(s, "x-kubernetes-embedded-resource");
    if embedded && typ != "object" {
        problem("x-kubernetes-embedded-resource needs type: object".into());
    } else if typ.is_empty() && !is_true(s, "x-kubernetes-int-or-string") && !preserve {
        problem("type must not be empty".into());
    }
    if embedded && s.contains_key("additionalProperties") {
        problem("additionalProperties must not be used with x-kubernetes-embedded-resource".into());
    }
    if embedded && !preserve && s.properties.as_ref().is_none_or(|p| p.is_empty()) {
        problem(
            "x-kubernetes-embedded-resource needs properties or x-kubernetes-preserve-unknown-fields".into(),
        );
    }
    if root && !typ.is_empty() && typ != "object" {
        problem("the root must be of type object".into());
    }
    if root && s.contains_key("additionalProperties") {
        problem("additionalProperties must not be used at the root".into());
    }
}

/// The root, and an embedded resource, may only declare `kind` and `apiVersion` as strings.
fn type_meta_problems(shared: &SharedSchemas, s: &Schema, problem: &mut dyn FnMut(String)) {
    let Some(props) = &s.properties else {
        return;
    };
    for k in ["kind", "apiVersion"] {
        if let Some(n) = props.get(k)
            && shared.schema_of(n).str("type") != Some("string")
        {
            problem(format!("`{k}` must be of type string"));
        }
    }
}

/// Walks the children of `s`: properties, items and additionalProperties, then the junctors' schemas, following
/// shared k8s sub-schemas (shared.rs).
fn walk_children(
    shared: &SharedSchemas,
    s: &Schema,
    path: &str,
    in_junctor: bool,
    provenance: Provenance,
    out: &mut Vec<Problem>,
) {
    // A shared sub-schema found structural once is structural wherever it is used in the run (the checks below
    // the root only look inside it): skip it then.
    let mut visit = |n: &Node, p: String| match n {
        Node::Shared(r) => {
            if lock(&shared.structural).contains(&(*r, in_junctor)) {
                return;
            }
            let before = out.len();
            walk_at(
                shared,
                &shared.schema_of(n),
                &p,
                in_junctor,
                false,
                provenance,
                out,
            );
            if out.len() == before {
                lock(&shared.structural).insert((*r, in_junctor));
            }
        }
        Node::Own(o) => walk_at(shared, o, &p, in_junctor, false, provenance, out),
    };
    for_each_child(s, path, &mut visit);
    // The int-or-string pattern (anyOf integer/string) is the one place a junctor may carry `type`.
    if is_true(s, "x-kubernetes-int-or-string") {
        return;
    }
    let junctors = [&s.all_of, &s.any_of, &s.one_of]
        .into_iter()
        .flatten()
        .flatten();
    for j in junctors.chain(s.not.as_deref()) {
        walk_at(shared, j, path, true, false, provenance, out);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn structural_rules() {
        let s = json!({"type": "object", "properties": {"a": {"description": "x"}, "b": {"type": "array"},
            "c": {"x-kubernetes-preserve-unknown-fields": true}, "d": {"type": "string", "allOf": [{"type": "string"}]}}});
        let mut out = Vec::new();
        walk(
            &SharedSchemas::new(),
            &Schema::from_value(s),
            ".",
            false,
            &mut out,
        );
        let out: Vec<(String, String)> = out.into_iter().map(|(p, _, m)| (p, m)).collect();
        assert_eq!(
            out,
            vec![
                (".a".to_string(), "type must not be empty".to_string()),
                (".b".to_string(), "an array needs items".to_string()),
                (
                    ".d".to_string(),
                    "`type` is not allowed inside allOf/anyOf/oneOf/not".to_string()
                ),
            ]
        );
    }
}
