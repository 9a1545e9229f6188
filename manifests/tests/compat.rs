//! compat::compare, rule by rule: each breaking change gives exactly its finding (rule, version, path, old and
//! new value), and the safe changes (descriptions, new optional fields, enum values added, limits relaxed) give
//! none. The CRDs are what rkb writes, cut down to what each case needs.

use rkb_manifests::compat::{Finding, Rule, compare};
use serde_json::{Value, json};

/// A CRD of `versions` (name, served, storage, openAPIV3Schema), namespaced unless `scope` says otherwise.
fn crd_with(scope: &str, versions: &[(&str, bool, bool, Value)]) -> Value {
    let versions: Vec<Value> = versions
        .iter()
        .map(|(name, served, storage, schema)| {
            json!({"name": name, "served": served, "storage": storage, "schema": {"openAPIV3Schema": schema}})
        })
        .collect();
    json!({
        "apiVersion": "apiextensions.k8s.io/v1",
        "kind": "CustomResourceDefinition",
        "metadata": {"name": "widgets.example.com"},
        "spec": {"group": "example.com", "names": {"kind": "Widget", "plural": "widgets"}, "scope": scope, "versions": versions}
    })
}

/// A one-version (v1) CRD whose `.spec` is `spec`.
fn crd(spec: Value) -> Value {
    crd_with(
        "Namespaced",
        &[(
            "v1",
            true,
            true,
            json!({"type": "object", "properties": {"spec": spec}}),
        )],
    )
}

/// `.spec` with one property `replicas` of schema `replicas`.
fn with_replicas(replicas: Value) -> Value {
    crd(json!({"type": "object", "properties": {"replicas": replicas}}))
}

fn finding(rule: Rule, path: &str, old: &str, new: &str) -> Finding {
    Finding {
        rule,
        version: "v1".into(),
        path: path.into(),
        old: old.into(),
        new: new.into(),
    }
}

fn one(old: Value, new: Value) -> Vec<Finding> {
    compare(&old, &new)
}

#[test]
fn rule_names_are_kebab_case_and_unique() {
    let names: Vec<&str> = Rule::all().iter().map(Rule::name).collect();
    assert_eq!(names.len(), 19);
    assert_eq!(Rule::FieldRemoved.name(), "field-removed");
    assert_eq!(
        Rule::PreserveUnknownFieldsNarrowed.name(),
        "preserve-unknown-fields-narrowed"
    );
    for (i, n) in names.iter().enumerate() {
        assert!(!names[..i].contains(n), "{n} twice");
        assert_eq!(Rule::from_name(n), Some(Rule::all()[i]));
    }
}

#[test]
fn scope_changed() {
    let schema = json!({"type": "object"});
    let f = compare(
        &crd_with("Namespaced", &[("v1", true, true, schema.clone())]),
        &crd_with("Cluster", &[("v1", true, true, schema)]),
    );
    assert_eq!(
        f,
        [Finding {
            rule: Rule::ScopeChanged,
            version: String::new(),
            path: String::new(),
            old: "Namespaced".into(),
            new: "Cluster".into()
        }]
    );
}

#[test]
fn stored_version_removed_and_served_version_removed() {
    let s = json!({"type": "object"});
    let old = crd_with(
        "Namespaced",
        &[
            ("v1", true, true, s.clone()),
            ("v1beta1", true, false, s.clone()),
        ],
    );
    let new = crd_with("Namespaced", &[("v2", true, true, s.clone())]);
    let at = |rule, version: &str, old: &str| Finding {
        rule,
        version: version.into(),
        path: String::new(),
        old: old.into(),
        new: String::new(),
    };
    assert_eq!(
        compare(&old, &new),
        [
            // One finding for v1: its removal as the storage version says its clients get 404 too.
            at(Rule::StoredVersionRemoved, "v1", "storage"),
            at(Rule::ServedVersionRemoved, "v1beta1", "served"),
        ]
    );
    // No longer served, still there: clients break, storage does not.
    let unserved = crd_with(
        "Namespaced",
        &[
            ("v1", false, true, s.clone()),
            ("v1beta1", true, false, s.clone()),
        ],
    );
    assert_eq!(
        compare(&old, &unserved),
        [Finding {
            new: "served: false".into(),
            ..at(Rule::ServedVersionRemoved, "v1", "served")
        }]
    );
}

/// A deprecated version may stop being served (its clients were warned) and a new storage version may come; a
/// deprecated version removed from the CRD may still be in `status.storedVersions`, which the YAML does not show:
/// it is `stored-version-removed`, acknowledged once the storage migration ran.
#[test]
fn a_deprecated_version_may_stop_being_served_and_its_removal_is_a_stored_version_finding() {
    let s = json!({"type": "object"});
    let mut old = crd_with(
        "Namespaced",
        &[
            ("v1", true, true, s.clone()),
            ("v1beta1", true, false, s.clone()),
        ],
    );
    old["spec"]["versions"][1]["deprecated"] = json!(true);
    let unserved = crd_with(
        "Namespaced",
        &[
            ("v1", true, false, s.clone()),
            ("v1beta1", false, false, s.clone()),
            ("v2", true, true, s.clone()),
        ],
    );
    assert_eq!(compare(&old, &unserved), []);
    let removed = crd_with(
        "Namespaced",
        &[
            ("v1", true, false, s.clone()),
            ("v2", true, true, s.clone()),
        ],
    );
    assert_eq!(
        compare(&old, &removed),
        [Finding {
            rule: Rule::StoredVersionRemoved,
            version: "v1beta1".into(),
            path: String::new(),
            old: "deprecated".into(),
            new: String::new(),
        }]
    );
}

#[test]
fn field_removed() {
    let old = crd(json!({"type": "object", "properties": {
        "replicas": {"type": "integer"}, "image": {"type": "string"}}}));
    let new = crd(json!({"type": "object", "properties": {"image": {"type": "string"}}}));
    assert_eq!(
        one(old, new),
        [finding(Rule::FieldRemoved, ".spec.replicas", "integer", "")]
    );
}

#[test]
fn type_changed_and_nothing_compared_below_it() {
    let old = with_replicas(json!({"type": "object", "properties": {"a": {"type": "string"}}}));
    let new = with_replicas(json!({"type": "string"}));
    assert_eq!(
        one(old, new),
        [finding(
            Rule::TypeChanged,
            ".spec.replicas",
            "object",
            "string"
        )]
    );
    let old = with_replicas(
        json!({"x-kubernetes-int-or-string": true, "anyOf": [{"type": "integer"}, {"type": "string"}]}),
    );
    let new = with_replicas(json!({"type": "integer"}));
    assert_eq!(
        one(old, new),
        [finding(
            Rule::TypeChanged,
            ".spec.replicas",
            "int-or-string",
            "integer"
        )]
    );
}

#[test]
fn required_added() {
    let old = crd(json!({"type": "object", "properties": {"replicas": {"type": "integer"}}}));
    let new = crd(
        json!({"type": "object", "required": ["replicas"], "properties": {"replicas": {"type": "integer"}}}),
    );
    assert_eq!(
        one(old, new),
        [finding(
            Rule::RequiredAdded,
            ".spec.replicas",
            "optional",
            "required"
        )]
    );
}

#[test]
fn defaults_added_changed_removed() {
    let int = |d: Option<i64>| match d {
        Some(d) => with_replicas(json!({"type": "integer", "default": d})),
        None => with_replicas(json!({"type": "integer"})),
    };
    assert_eq!(
        one(int(None), int(Some(1))),
        [finding(Rule::DefaultAdded, ".spec.replicas", "", "1")]
    );
    assert_eq!(
        one(int(Some(1)), int(Some(2))),
        [finding(Rule::DefaultChanged, ".spec.replicas", "1", "2")]
    );
    assert_eq!(
        one(int(Some(1)), int(None)),
        [finding(Rule::DefaultRemoved, ".spec.replicas", "1", "")]
    );
}

#[test]
fn enum_added_or_narrowed_and_values_added_pass() {
    let e = |values: Option<Value>| match values {
        Some(v) => with_replicas(json!({"type": "string", "enum": v})),
        None => with_replicas(json!({"type": "string"})),
    };
    assert_eq!(
        one(e(None), e(Some(json!(["A", "B"])))),
        [finding(
            Rule::EnumAdded,
            ".spec.replicas",
            "",
            r#"["A","B"]"#
        )]
    );
    assert_eq!(
        one(e(Some(json!(["A", "B"]))), e(Some(json!(["A"])))),
        [finding(
            Rule::EnumValueRemoved,
            ".spec.replicas",
            r#"["A","B"]"#,
            r#"["A"]"#
        )]
    );
    assert_eq!(one(e(Some(json!(["A"]))), e(Some(json!(["A", "B"])))), []);
    assert_eq!(one(e(Some(json!(["A"]))), e(None)), []);
}

#[test]
fn limits_tightened_or_added_and_relaxed_ones_pass() {
    let cases: &[(&str, Value, Value, Value)] = &[
        ("maximum", json!(10), json!(5), json!(20)),
        ("minimum", json!(1), json!(2), json!(0)),
        ("maxLength", json!(10), json!(5), json!(20)),
        ("minLength", json!(1), json!(2), json!(0)),
        ("maxItems", json!(10), json!(5), json!(20)),
        ("minItems", json!(1), json!(2), json!(0)),
        ("maxProperties", json!(10), json!(5), json!(20)),
        ("minProperties", json!(1), json!(2), json!(0)),
    ];
    for (key, was, tighter, looser) in cases {
        let s = |v: Option<&Value>| {
            let mut schema = json!({"type": "integer"});
            if let Some(v) = v {
                schema[*key] = v.clone();
            }
            with_replicas(schema)
        };
        assert_eq!(
            one(s(Some(was)), s(Some(tighter))),
            [finding(
                Rule::LimitTightened,
                ".spec.replicas",
                &format!("{key}: {was}"),
                &format!("{key}: {tighter}")
            )],
            "{key}"
        );
        assert_eq!(
            one(s(None), s(Some(was))),
            [finding(
                Rule::LimitAdded,
                ".spec.replicas",
                "",
                &format!("{key}: {was}")
            )],
            "{key}"
        );
        assert_eq!(one(s(Some(was)), s(Some(looser))), [], "{key} relaxed");
        assert_eq!(one(s(Some(was)), s(None)), [], "{key} dropped");
    }
}

#[test]
fn exclusive_bounds_and_patterns() {
    let old = with_replicas(json!({"type": "integer", "maximum": 5}));
    let new = with_replicas(json!({"type": "integer", "maximum": 5, "exclusiveMaximum": true}));
    assert_eq!(
        one(old.clone(), new.clone()),
        [finding(
            Rule::LimitTightened,
            ".spec.replicas",
            "",
            "exclusiveMaximum: true"
        )]
    );
    assert_eq!(
        one(new, old),
        [],
        "an exclusive bound made inclusive is relaxed"
    );
    let p = |pattern: Option<&str>| match pattern {
        Some(p) => with_replicas(json!({"type": "string", "pattern": p})),
        None => with_replicas(json!({"type": "string"})),
    };
    assert_eq!(
        one(p(None), p(Some("^a"))),
        [finding(
            Rule::LimitAdded,
            ".spec.replicas",
            "",
            r#"pattern: "^a""#
        )]
    );
    assert_eq!(
        one(p(Some("^a")), p(Some("^b"))),
        [finding(
            Rule::LimitTightened,
            ".spec.replicas",
            r#"pattern: "^a""#,
            r#"pattern: "^b""#
        )]
    );
    assert_eq!(one(p(Some("^a")), p(None)), []);
}

#[test]
fn unknown_fields_narrowed() {
    let old =
        with_replicas(json!({"type": "object", "x-kubernetes-preserve-unknown-fields": true}));
    let new = with_replicas(json!({"type": "object"}));
    assert_eq!(
        one(old, new),
        [finding(
            Rule::PreserveUnknownFieldsNarrowed,
            ".spec.replicas",
            "x-kubernetes-preserve-unknown-fields: true",
            ""
        )]
    );
    let old = with_replicas(json!({"type": "object", "additionalProperties": {"type": "string"}}));
    let new = with_replicas(json!({"type": "object", "properties": {"a": {"type": "string"}}}));
    assert_eq!(
        one(old, new),
        [finding(
            Rule::PreserveUnknownFieldsNarrowed,
            ".spec.replicas",
            "additionalProperties: {...}",
            ""
        )]
    );
}

#[test]
fn list_and_map_types_changed() {
    let list = |extra: Value| {
        let mut s = json!({"type": "array", "items": {"type": "object", "properties": {"name": {"type": "string"}}}});
        s.as_object_mut()
            .unwrap()
            .extend(extra.as_object().unwrap().clone());
        with_replicas(s)
    };
    assert_eq!(
        one(
            list(json!({})),
            list(json!({"x-kubernetes-list-type": "map", "x-kubernetes-list-map-keys": ["name"]}))
        ),
        [
            finding(
                Rule::ListTypeChanged,
                ".spec.replicas",
                r#"x-kubernetes-list-type: "atomic""#,
                r#"x-kubernetes-list-type: "map""#
            ),
            finding(
                Rule::ListTypeChanged,
                ".spec.replicas",
                "",
                r#"x-kubernetes-list-map-keys: ["name"]"#
            ),
        ]
    );
    // `atomic` written out is what an absent list type means.
    assert_eq!(
        one(
            list(json!({})),
            list(json!({"x-kubernetes-list-type": "atomic"}))
        ),
        []
    );
    let map = |t: &str| with_replicas(json!({"type": "object", "x-kubernetes-map-type": t}));
    assert_eq!(
        one(map("granular"), map("atomic")),
        [finding(
            Rule::ListTypeChanged,
            ".spec.replicas",
            r#"x-kubernetes-map-type: "granular""#,
            r#"x-kubernetes-map-type: "atomic""#
        )]
    );
}

#[test]
fn cel_rules_added_or_changed() {
    let cel = |rules: &[&str]| {
        let v: Vec<Value> = rules.iter().map(|r| json!({"rule": r})).collect();
        with_replicas(json!({"type": "integer", "x-kubernetes-validations": v}))
    };
    assert_eq!(
        one(cel(&[]), cel(&["self > 0"])),
        [finding(
            Rule::CelRuleAdded,
            ".spec.replicas",
            "",
            r#""self > 0""#
        )]
    );
    assert_eq!(
        one(cel(&["self > 0"]), cel(&["self > 1"])),
        [finding(
            Rule::CelRuleChanged,
            ".spec.replicas",
            r#""self > 0""#,
            r#""self > 1""#
        )]
    );
    assert_eq!(one(cel(&["self > 0", "self < 9"]), cel(&["self < 9"])), []);
    // A new message for the same rule is no new rule.
    let mut with_message = cel(&["self > 0"]);
    with_message["spec"]["versions"][0]["schema"]["openAPIV3Schema"]["properties"]["spec"]["properties"]
        ["replicas"]["x-kubernetes-validations"][0]["message"] = json!("positive");
    assert_eq!(one(cel(&["self > 0"]), with_message), []);
}

#[test]
fn nullable_changed_either_way() {
    let n = |nullable: bool| {
        let mut s = json!({"type": "string"});
        if nullable {
            s["nullable"] = json!(true);
        }
        with_replicas(s)
    };
    assert_eq!(
        one(n(true), n(false)),
        [finding(
            Rule::NullableChanged,
            ".spec.replicas",
            "nullable: true",
            ""
        )]
    );
    assert_eq!(
        one(n(false), n(true)),
        [finding(
            Rule::NullableChanged,
            ".spec.replicas",
            "",
            "nullable: true"
        )]
    );
}

#[test]
fn safe_changes_pass() {
    let old = crd(
        json!({"type": "object", "description": "old", "properties": {
        "replicas": {"type": "integer", "maximum": 5, "description": "how many"},
        "mode": {"type": "string", "enum": ["A"]},
        "tags": {"type": "array", "items": {"type": "string", "maxLength": 3}}}}),
    );
    let new = crd(
        json!({"type": "object", "description": "new", "properties": {
        "replicas": {"type": "integer", "maximum": 50, "description": "how many replicas"},
        "mode": {"type": "string", "enum": ["A", "B"]},
        "tags": {"type": "array", "items": {"type": "string", "maxLength": 30}},
        "image": {"type": "string", "minLength": 1}}}),
    );
    assert_eq!(one(old.clone(), new), []);
    assert_eq!(one(old.clone(), old), [], "a CRD compared with itself");
}

#[test]
fn items_and_map_values_are_walked_with_their_paths() {
    let old = with_replicas(json!({"type": "array", "items": {"type": "object",
        "additionalProperties": {"type": "string", "maxLength": 10}}}));
    let new = with_replicas(json!({"type": "array", "items": {"type": "object",
        "additionalProperties": {"type": "string", "maxLength": 5}}}));
    assert_eq!(
        one(old, new),
        [finding(
            Rule::LimitTightened,
            ".spec.replicas[*]{*}",
            "maxLength: 10",
            "maxLength: 5"
        )]
    );
}

#[test]
fn a_new_version_is_not_compared_and_a_shared_version_is() {
    let s1 = json!({"type": "object", "properties": {"a": {"type": "string"}}});
    let s2 = json!({"type": "object", "properties": {"b": {"type": "string"}}});
    let old = crd_with("Namespaced", &[("v1", true, true, s1.clone())]);
    let new = crd_with(
        "Namespaced",
        &[("v1", true, true, s1), ("v2", true, false, s2.clone())],
    );
    assert_eq!(compare(&old, &new), []);
    let new = crd_with("Namespaced", &[("v1", true, true, s2)]);
    assert_eq!(
        compare(&old, &new),
        [finding(Rule::FieldRemoved, ".a", "string", "")]
    );
}

/// docs/markers.md's rules table names every rule, and exactly the API-server tests that exist.
#[test]
fn the_docs_table_names_every_rule_and_the_tests_that_exist() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let doc = std::fs::read_to_string(root.join("../docs/markers.md")).unwrap();
    let table: Vec<&str> = doc
        .lines()
        .skip_while(|l| !l.starts_with("| rule | what it catches |"))
        .take_while(|l| l.starts_with('|'))
        .collect();
    for rule in Rule::all() {
        assert!(
            table
                .iter()
                .any(|row| row.starts_with(&format!("| `{}` |", rule.name()))),
            "no row for {}",
            rule.name()
        );
    }
    let tests =
        std::fs::read_to_string(root.join("tests/upgrade_apiserver.rs")).unwrap_or_default();
    let defined: Vec<&str> = tests
        .lines()
        .filter_map(|l| l.strip_prefix("fn rule_"))
        .filter_map(|rest| rest.split_once("()").map(|(name, _)| name))
        .collect();
    let listed: Vec<&str> = table
        .iter()
        .flat_map(|row| row.split("upgrade_apiserver.rs::rule_").skip(1))
        .filter_map(|rest| rest.split_once('`').map(|(name, _)| name))
        .collect();
    for name in &defined {
        assert!(listed.contains(name), "rule_{name} is not in the table");
    }
    for name in &listed {
        assert!(
            defined.contains(name),
            "the table lists rule_{name}, which does not exist"
        );
    }
}
