//! Stage 2 checks on generated schemas: the structural-schema rules the API server enforces, and a
//! CEL parse (cel.rs), run when XValidation markers are applied. Problems are reported with the schema path, at the root type.

use crate::schema::{At, Schema, SchemaGen};
use serde_json::Value;

/// Checks the structural-schema rules of apiextensions.k8s.io/v1 on `schema` (the root of version
/// `version` of the kind defined by type `ty`).
pub fn check_structural(sg: &mut SchemaGen<'_>, ty: usize, version: &str, schema: &Schema) {
    // After an error the schema is incomplete (e.g. an unresolved type is `{}`): don't pile on.
    if sg.diags.iter().any(|d| d.is_error()) {
        return;
    }
    let mut problems = Vec::new();
    walk(schema, ".", false, &mut problems);
    let t = &sg.model.types[ty];
    let at = At {
        file: t.file,
        line: t.line,
        col: t.col,
        len: t.len,
    };
    let name = t.name.clone();
    for (path, msg) in problems {
        sg.error(
            at,
            format!("the {version} schema of `{name}` is not structural at `{path}`: {msg}"),
            Some("the API server rejects non-structural CRDs; add a type (e.g. +kubebuilder:validation:Type=object) or +kubebuilder:pruning:PreserveUnknownFields".into()),
        );
    }
}

fn child(path: &str, seg: &str) -> String {
    if path == "." {
        format!(".{seg}")
    } else {
        format!("{path}.{seg}")
    }
}

fn walk(s: &Schema, path: &str, in_junctor: bool, out: &mut Vec<(String, String)>) {
    let typ = s.get("type").and_then(Value::as_str).unwrap_or("");
    let int_or_string = s.get("x-kubernetes-int-or-string") == Some(&Value::Bool(true));
    let preserve = s.get("x-kubernetes-preserve-unknown-fields") == Some(&Value::Bool(true));
    if in_junctor {
        for k in [
            "type",
            "description",
            "default",
            "additionalProperties",
            "nullable",
            "x-kubernetes-preserve-unknown-fields",
            "x-kubernetes-embedded-resource",
        ] {
            if s.contains_key(k) {
                out.push((
                    path.to_string(),
                    format!("`{k}` is not allowed inside allOf/anyOf/oneOf/not"),
                ));
            }
        }
    } else if typ.is_empty() && !int_or_string && !preserve {
        out.push((path.to_string(), "type must not be empty".into()));
    }
    if s.contains_key("properties") && s.contains_key("additionalProperties") {
        out.push((
            path.to_string(),
            "properties and additionalProperties are mutually exclusive".into(),
        ));
    }
    if typ == "array" && !in_junctor && !s.contains_key("items") {
        out.push((path.to_string(), "an array needs items".into()));
    }
    if s.get("x-kubernetes-embedded-resource") == Some(&Value::Bool(true)) && typ != "object" {
        out.push((
            path.to_string(),
            "x-kubernetes-embedded-resource needs type: object".into(),
        ));
    }
    if let Some(Value::Object(props)) = s.get("properties") {
        for (k, v) in props {
            if let Value::Object(o) = v {
                walk(o, &child(path, k), in_junctor, out);
            }
        }
    }
    if let Some(Value::Object(o)) = s.get("items") {
        walk(o, &format!("{path}[*]"), in_junctor, out);
    }
    if let Some(Value::Object(o)) = s.get("additionalProperties") {
        walk(o, &format!("{path}[*]"), in_junctor, out);
    }
    // The int-or-string pattern (anyOf integer/string) is the one place a junctor may carry `type`.
    for k in ["allOf", "anyOf", "oneOf"] {
        if int_or_string {
            break;
        }
        if let Some(Value::Array(a)) = s.get(k) {
            for v in a {
                if let Value::Object(o) = v {
                    walk(o, path, true, out);
                }
            }
        }
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
        walk(s.as_object().unwrap(), ".", false, &mut out);
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
