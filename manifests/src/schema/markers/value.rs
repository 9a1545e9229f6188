//! What a value is or may be, whatever its type: Enum, Format, Type, XIntOrString, nullable, defaults,
//! examples, title, external docs, and `+k8s:enum`.

use super::target::{ApplyErr, Applying, type_of};
use crate::schema::node::Schema;
use rkb_markers::{ExternalDocs, Value as MarkerValue, ValueMarker};
use serde_json::{Value, json};

pub fn apply(m: &ValueMarker, s: &mut Schema, at: &Applying) -> Result<(), ApplyErr> {
    match m {
        ValueMarker::Enum(values) => {
            let vals = values.iter().map(MarkerValue::to_json).collect();
            s.insert("enum".into(), Value::Array(vals));
        }
        ValueMarker::Format(f) => {
            s.insert("format".into(), json!(f));
        }
        // An empty Type means "no type" (used with XIntOrString); Go omits the empty string.
        ValueMarker::Type(t) if t.is_empty() => {
            s.remove("type");
        }
        ValueMarker::Type(t) => {
            s.insert("type".into(), json!(t));
        }
        ValueMarker::IntOrString => {
            s.insert("x-kubernetes-int-or-string".into(), json!(true));
        }
        ValueMarker::Nullable => {
            s.insert("nullable".into(), json!(true));
        }
        ValueMarker::Default(v) => {
            let mut d = v.to_json();
            if type_of(s) == "array" && d == json!({}) {
                d = json!([]);
            }
            s.insert("default".into(), d);
        }
        // `null` is `+default=ref(...)`, which controller-gen ignores.
        ValueMarker::DefaultJson(d) => {
            if !d.is_null() {
                s.insert("default".into(), d.clone());
            }
        }
        ValueMarker::Example(v) => {
            s.insert("example".into(), v.to_json());
        }
        ValueMarker::Title(v) => title(s, v)?,
        ValueMarker::ExternalDocs(docs) => external_docs(s, docs)?,
        ValueMarker::K8sEnum => k8s_enum(s, at.enum_values)?,
    }
    Ok(())
}

fn title(s: &mut Schema, v: &MarkerValue) -> Result<(), ApplyErr> {
    match v {
        MarkerValue::String(t) => {
            s.insert("title".into(), json!(t));
            Ok(())
        }
        other => Err((
            format!("title must be a string, found {}", other.type_name()),
            Some("quote it: `+kubebuilder:title=\"...\"`".into()),
        )),
    }
}

fn external_docs(s: &mut Schema, docs: &ExternalDocs) -> Result<(), ApplyErr> {
    let url = &docs.url;
    if !(url.contains("://") || url.starts_with('/')) {
        return Err((
            format!("invalid url `{url}` in kubebuilder:externalDocs marker"),
            Some("give an absolute URL".into()),
        ));
    }
    let mut d = serde_json::Map::new();
    if let Some(desc) = docs.description.as_ref().filter(|d| !d.is_empty()) {
        d.insert("description".into(), json!(desc));
    }
    d.insert("url".into(), json!(url));
    s.insert("externalDocs".into(), Value::Object(d));
    Ok(())
}

/// `+k8s:enum`: a string schema whose values are the enum's unit variants, sorted as Go sorts them.
fn k8s_enum(s: &mut Schema, values: Option<&[String]>) -> Result<(), ApplyErr> {
    let Some(values) = values else {
        return Err((
            "k8s:enum needs a unit-variant enum type".into(),
            Some(
                "write the allowed values as enum variants, or use +kubebuilder:validation:Enum"
                    .into(),
            ),
        ));
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
    Ok(())
}
