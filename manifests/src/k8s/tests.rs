use std::collections::BTreeSet;

use k8s_openapi::schemars::{self, JsonSchema};
use serde_json::{Value, json};

use super::*;

fn has_ref(v: &Value) -> bool {
    match v {
        Value::Object(m) => {
            m.contains_key("$ref") || m.contains_key("$noDescription") || m.values().any(has_ref)
        }
        Value::Array(a) => a.iter().any(has_ref),
        _ => false,
    }
}

#[test]
fn every_type_expands_fully() {
    let names: Vec<_> = known_openapi_names().collect();
    assert!(
        names.len() > 600,
        "only {} types in schemas.jsonl",
        names.len()
    );
    for name in names {
        let schema =
            schema_for_openapi_name(name).unwrap_or_else(|| panic!("{name} does not expand"));
        assert!(!has_ref(&schema), "{name} still holds a $ref");
    }
}

#[test]
fn every_version_expands_fully_and_differs_where_kubernetes_changed() {
    for (version, delta) in Version::TABLES {
        for name in index(version).keys() {
            let schema = schema_for_openapi_name_in(version, name)
                .unwrap_or_else(|| panic!("{name} does not expand in {version}"));
            assert!(!has_ref(&schema), "{name} still holds a $ref in {version}");
        }
        for line in delta.lines().filter(|l| l.contains(r#""absent":true"#)) {
            let name = line_name(line).unwrap();
            assert_eq!(
                schema_for_openapi_name_in(version, name),
                None,
                "{name} in {version}"
            );
        }
    }
    let v1_34 = Version::of_minor(34).unwrap();
    let container = "k8s_openapi::api::core::v1::Container";
    assert_ne!(schema_in(v1_34, container), schema_for(container));
    let condition = "k8s_openapi::apimachinery::pkg::apis::meta::v1::Condition";
    assert_eq!(
        schema_in(v1_34, condition),
        schema_for(condition),
        "unchanged types are shared"
    );
    assert_eq!(Version::of_minor(38), None);
}

#[test]
fn rust_paths_map_to_openapi_names() {
    let cases = [
        (
            "k8s_openapi::api::core::v1::Container",
            "io.k8s.api.core.v1.Container",
        ),
        (
            "::k8s_openapi::apimachinery::pkg::apis::meta::v1::Condition",
            "io.k8s.apimachinery.pkg.apis.meta.v1.Condition",
        ),
        (
            "k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceConversion",
            "io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1.CustomResourceConversion",
        ),
    ];
    for (path, name) in cases {
        assert_eq!(openapi_name(path).as_deref(), Some(name), "{path}");
        assert!(schema_for(path).is_some(), "{path}");
    }
    assert_eq!(
        schema_for("k8s_openapi::ByteString"),
        Some(json!({"type": "string", "format": "byte"}))
    );
    assert_eq!(openapi_name("kube::core::ObjectMeta"), None);
    assert_eq!(schema_for("k8s_openapi::api::core::v1::NoSuchType"), None);
    assert_eq!(schema_for("k8s_openapi::"), None);
}

#[test]
fn controller_gen_known_types() {
    let meta = "k8s_openapi::apimachinery::pkg::apis::meta::v1";
    assert_eq!(
        schema_for(&format!("{meta}::ObjectMeta")),
        Some(json!({"type": "object"}))
    );
    let date_time = json!({"type": "string", "format": "date-time"});
    assert_eq!(
        schema_for(&format!("{meta}::Time")),
        Some(date_time.clone())
    );
    assert_eq!(schema_for(&format!("{meta}::MicroTime")), Some(date_time));
    let int_or_string = json!({"anyOf": [{"type": "integer"}, {"type": "string"}], "x-kubernetes-int-or-string": true});
    assert_eq!(
        schema_for("k8s_openapi::apimachinery::pkg::util::intstr::IntOrString"),
        Some(int_or_string)
    );
    let quantity = schema_for("k8s_openapi::apimachinery::pkg::api::resource::Quantity").unwrap();
    assert_eq!(quantity["x-kubernetes-int-or-string"], json!(true));
    assert!(
        quantity["pattern"]
            .as_str()
            .unwrap()
            .starts_with("^(\\+|-)?")
    );
    assert_eq!(
        schema_for("k8s_openapi::apimachinery::pkg::runtime::RawExtension"),
        Some(json!({"type": "object", "x-kubernetes-preserve-unknown-fields": true}))
    );
}

#[test]
fn nested_types_keep_field_docs_and_markers() {
    let pts = schema_for("k8s_openapi::api::core::v1::PodTemplateSpec").unwrap();
    // Embedded ObjectMeta is `type: object` with the field's doc, like controller-gen writes it.
    assert_eq!(pts["properties"]["metadata"]["type"], json!("object"));
    assert!(pts["properties"]["metadata"].get("properties").is_none());
    assert!(
        pts["properties"]["metadata"]["description"]
            .as_str()
            .unwrap()
            .starts_with("Standard object's metadata.")
    );
    let spec = &pts["properties"]["spec"];
    assert!(
        spec["description"]
            .as_str()
            .unwrap()
            .starts_with("Specification of the desired behavior of the pod.")
    );
    let containers = &spec["properties"]["containers"];
    assert_eq!(containers["x-kubernetes-list-type"], json!("map"));
    assert_eq!(containers["x-kubernetes-list-map-keys"], json!(["name"]));
    let container = &containers["items"];
    assert_eq!(
        container["description"],
        json!("A single application container that you want to run within a pod.")
    );
    assert_eq!(container["required"], json!(["name"]));
    assert_eq!(
        container["properties"]["ports"]["x-kubernetes-list-map-keys"],
        json!(["containerPort", "protocol"])
    );
    // Descriptions keep the Go comment's line breaks, as controller-gen writes them.
    assert!(
        container["properties"]["args"]["description"]
            .as_str()
            .unwrap()
            .contains('\n')
    );

    let condition =
        schema_for("k8s_openapi::apimachinery::pkg::apis::meta::v1::Condition").unwrap();
    assert_eq!(
        condition["required"],
        json!(["lastTransitionTime", "message", "reason", "status", "type"])
    );
    assert_eq!(
        condition["properties"]["status"]["enum"],
        json!(["True", "False", "Unknown"])
    );
}

/// Property names must agree with k8s-openapi's own JsonSchema for every type reachable from these
/// roots: proves each Rust path is mapped to the Go type with the same JSON shape.
#[test]
fn property_names_agree_with_k8s_openapi() {
    use k8s_openapi::api::{apps, batch, core, networking, rbac};
    use k8s_openapi::apimachinery::pkg::apis::meta;
    let roots = [
        defs::<core::v1::Pod>(),
        defs::<core::v1::Service>(),
        defs::<core::v1::PersistentVolumeClaim>(),
        defs::<apps::v1::Deployment>(),
        defs::<apps::v1::StatefulSet>(),
        defs::<batch::v1::CronJob>(),
        defs::<networking::v1::Ingress>(),
        defs::<rbac::v1::ClusterRole>(),
        defs::<meta::v1::Condition>(),
    ];
    let mut checked = 0;
    let mut missing = BTreeSet::new();
    for defs in roots {
        for (name, theirs) in defs {
            let Some(ours) = schema_for_openapi_name(&name) else {
                missing.insert(name);
                continue;
            };
            let (Some(theirs), Some(ours)) = (prop_names(&theirs), prop_names(&ours)) else {
                continue;
            };
            assert_eq!(ours, theirs, "{name}");
            checked += 1;
        }
    }
    assert!(checked > 100, "only {checked} types compared");
    // Everything these common roots reach is generatable, so the data must have all of it.
    assert!(
        missing.is_empty(),
        "types missing from schemas.jsonl: {missing:?}"
    );
}

fn defs<T: JsonSchema>() -> Vec<(String, Value)> {
    let generator = schemars::generate::SchemaSettings::openapi3().into_generator();
    let root = generator.into_root_schema_for::<T>();
    let root = serde_json::to_value(root).unwrap();
    let mut out = vec![(T::schema_name().into_owned(), root.clone())];
    for key in ["$defs", "definitions"] {
        if let Some(Value::Object(m)) = root.get(key) {
            out.extend(m.iter().map(|(k, v)| (k.clone(), v.clone())));
        }
    }
    if let Some(Value::Object(m)) = root.pointer("/components/schemas") {
        out.extend(m.iter().map(|(k, v)| (k.clone(), v.clone())));
    }
    out
}

fn prop_names(schema: &Value) -> Option<BTreeSet<String>> {
    Some(
        schema
            .get("properties")?
            .as_object()?
            .keys()
            .cloned()
            .collect(),
    )
}
