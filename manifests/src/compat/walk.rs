//! Pairs what two CRDs hold: their `spec`s, their versions by name, and each pair of versions' schema nodes by
//! path (mod.rs says how paths are written), running each level's rules (rules.rs) on each pair. A node only one
//! side has is not walked: a new one breaks nothing, a removed one is the parent's `field-removed`; below a node
//! whose type changed nothing is compared (the change is the one finding).

use super::finding::{Finding, Rule, child_path, element_path};
use super::rules::{self, CRD_RULES, NODE_RULES, Report};
use serde_json::{Map, Value};

static EMPTY: std::sync::LazyLock<Map<String, Value>> = std::sync::LazyLock::new(Map::new);

fn spec(crd: &Value) -> &Map<String, Value> {
    crd.get("spec").and_then(Value::as_object).unwrap_or(&EMPTY)
}

/// Every finding from `old` to `new`, two CRD documents.
pub fn compare_crds(old: &Value, new: &Value) -> Vec<Finding> {
    let mut findings = Vec::new();
    let (old_spec, new_spec) = (spec(old), spec(new));
    let mut report = Report {
        version: "",
        path: "",
        findings: &mut findings,
    };
    for rule in CRD_RULES {
        rule(old_spec, new_spec, &mut report);
    }
    let new_versions = rules::versions(new_spec);
    for (name, old_version) in rules::versions(old_spec) {
        let Some((_, new_version)) = new_versions.iter().find(|(n, _)| *n == name) else {
            continue;
        };
        let (Some(o), Some(n)) = (root_schema(old_version), root_schema(new_version)) else {
            continue;
        };
        walk_node(name, ".", o, n, &mut findings);
    }
    findings
}

/// A version's `schema.openAPIV3Schema`.
pub fn root_schema(version: &Map<String, Value>) -> Option<&Map<String, Value>> {
    version.get("schema")?.get("openAPIV3Schema")?.as_object()
}

/// Runs every node rule on one pair of nodes, then walks the sub-schemas both have. A changed type is the
/// node's one finding: what else differs follows from it (`type_unchanged` runs first).
fn walk_node(
    version: &str,
    path: &str,
    old: &Map<String, Value>,
    new: &Map<String, Value>,
    out: &mut Vec<Finding>,
) {
    let before = out.len();
    let mut report = Report {
        version,
        path,
        findings: out,
    };
    for rule in NODE_RULES {
        rule(old, new, &mut report);
        if report.findings[before..]
            .iter()
            .any(|f| f.rule == Rule::TypeChanged)
        {
            return;
        }
    }
    for (child, o, n) in children(path, old, new) {
        walk_node(version, &child, o, n, out);
    }
}

/// A sub-schema both nodes have: its path, the baseline's and the new one.
type Pair<'a> = (String, &'a Map<String, Value>, &'a Map<String, Value>);

/// The sub-schemas both nodes have, with their paths: properties, items, additionalProperties.
fn children<'a>(
    path: &str,
    old: &'a Map<String, Value>,
    new: &'a Map<String, Value>,
) -> Vec<Pair<'a>> {
    let mut pairs = Vec::new();
    if let (Some(op), Some(np)) = (
        old.get("properties").and_then(Value::as_object),
        new.get("properties").and_then(Value::as_object),
    ) {
        for (name, o) in op {
            if let (Some(o), Some(n)) = (o.as_object(), np.get(name).and_then(Value::as_object)) {
                pairs.push((child_path(path, name), o, n));
            }
        }
    }
    for (key, mark) in [("items", "[*]"), ("additionalProperties", "{*}")] {
        if let (Some(o), Some(n)) = (
            old.get(key).and_then(Value::as_object),
            new.get(key).and_then(Value::as_object),
        ) {
            pairs.push((element_path(path, mark), o, n));
        }
    }
    pairs
}
