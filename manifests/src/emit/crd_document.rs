//! Stage 6, generate: the CRD document of a checked plan and its resolved schemas, in controller-gen's shape
//! (yaml.rs prints it). Nothing here can fail.

use crate::plan::{CrdPlan, VersionPlan};
use crate::schema::Schema;
use crate::schema::node::Doc;
use serde_json::{Value, json};

/// The controller-gen version whose output rkb reproduces (written in the CRD annotation, as it does).
pub const CONTROLLER_GEN_VERSION: &str = "v0.21.0";

/// Stage 6, generate: the CRD document of a checked `plan` with its resolved `schemas`, one per version.
pub fn crd_document(plan: &CrdPlan, schemas: Vec<Schema>) -> Doc {
    let versions = plan
        .versions
        .iter()
        .zip(schemas)
        .map(|(v, schema)| version_document(v, schema))
        .collect();
    let mut names = serde_json::Map::new();
    names.insert("kind".into(), json!(plan.kind));
    names.insert("listKind".into(), json!(format!("{}List", plan.kind)));
    names.insert("plural".into(), json!(plan.plural));
    names.insert("singular".into(), json!(plan.singular));
    if !plan.short_names.is_empty() {
        names.insert("shortNames".into(), json!(plan.short_names));
    }
    if !plan.categories.is_empty() {
        names.insert("categories".into(), json!(plan.categories));
    }
    let spec = Doc::Map(vec![
        ("group".into(), Doc::Json(json!(plan.group))),
        ("names".into(), Doc::Json(Value::Object(names))),
        ("scope".into(), Doc::Json(json!(plan.scope))),
        ("versions".into(), Doc::List(versions)),
    ]);
    Doc::Map(vec![
        (
            "apiVersion".into(),
            Doc::Json(json!("apiextensions.k8s.io/v1")),
        ),
        ("kind".into(), Doc::Json(json!("CustomResourceDefinition"))),
        ("metadata".into(), Doc::Json(crd_metadata(plan))),
        ("spec".into(), spec),
    ])
}

/// One entry of the CRD's `versions`.
fn version_document(v: &VersionPlan, schema: Schema) -> Doc {
    let mut ver = vec![
        ("name".to_string(), Doc::Json(json!(v.name))),
        (
            "schema".into(),
            Doc::Map(vec![("openAPIV3Schema".into(), Doc::Schema(schema))]),
        ),
        ("served".into(), Doc::Json(json!(v.served))),
        ("storage".into(), Doc::Json(json!(v.storage))),
    ];
    let mut add = |k: &str, v: Value| ver.push((k.to_string(), Doc::Json(v)));
    if v.deprecated {
        add("deprecated", json!(true));
    }
    if let Some(w) = &v.deprecation_warning {
        add("deprecationWarning", json!(w));
    }
    if v.subresources {
        let mut sub = serde_json::Map::new();
        if v.status {
            sub.insert("status".into(), json!({}));
        }
        if let Some(scale) = &v.scale {
            sub.insert("scale".into(), scale.clone());
        }
        add("subresources", Value::Object(sub));
    }
    if !v.columns.is_empty() {
        add("additionalPrinterColumns", Value::Array(v.columns.clone()));
    }
    if !v.selectable.is_empty() {
        add("selectableFields", Value::Array(v.selectable.clone()));
    }
    Doc::Map(ver)
}

/// The CRD's `metadata`: its name, labels, and annotations with controller-gen's version.
fn crd_metadata(plan: &CrdPlan) -> Value {
    let mut annotations = serde_json::Map::new();
    for (k, v) in &plan.annotations {
        annotations.insert(k.clone(), json!(v));
    }
    annotations.insert(
        "controller-gen.kubebuilder.io/version".into(),
        json!(CONTROLLER_GEN_VERSION),
    );
    let mut metadata = serde_json::Map::new();
    metadata.insert("annotations".into(), Value::Object(annotations));
    if !plan.labels.is_empty() {
        let labels: serde_json::Map<String, Value> = plan
            .labels
            .iter()
            .map(|(k, v)| (k.clone(), json!(v)))
            .collect();
        metadata.insert("labels".into(), Value::Object(labels));
    }
    metadata.insert(
        "name".into(),
        json!(format!("{}.{}", plan.plural, plan.group)),
    );
    Value::Object(metadata)
}
