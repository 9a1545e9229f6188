//! Stage 3, plan: RBAC roles from `+kubebuilder:rbac` markers, merged and sorted as controller-gen does:
//! one rule per resource, merged by identical (groups, names, urls, verbs), then by identical
//! (resources, names, urls, verbs), then by identical (groups, resources, names, verbs); sorted by key.

use rkb_markers::RbacRule;
use serde_json::{Value, json};
use std::collections::BTreeMap;

#[derive(Clone, Debug, Default)]
struct Rule {
    groups: Vec<String>,
    resources: Vec<String>,
    names: Vec<String>,
    verbs: Vec<String>,
    urls: Vec<String>,
}

fn norm(v: &mut Vec<String>) {
    v.sort();
    v.dedup();
}

impl Rule {
    fn normalize(&mut self) {
        norm(&mut self.groups);
        norm(&mut self.resources);
        norm(&mut self.names);
        norm(&mut self.verbs);
        norm(&mut self.urls);
    }

    /// controller-gen's ruleKey string: "groups + resources + names + urls", each joined with '&'.
    fn key(&mut self) -> String {
        self.normalize();
        format!(
            "{} + {} + {} + {}",
            self.groups.join("&"),
            self.resources.join("&"),
            self.names.join("&"),
            self.urls.join("&")
        )
    }

    fn key_without(&mut self, part: &str) -> String {
        self.normalize();
        let v = self.verbs.join("&");
        match part {
            "resources" => format!(
                "{} + {} + {} + {}",
                self.groups.join("&"),
                self.names.join("&"),
                self.urls.join("&"),
                v
            ),
            "groups" => format!(
                "{} + {} + {} + {}",
                self.resources.join("&"),
                self.names.join("&"),
                self.urls.join("&"),
                v
            ),
            _ => format!(
                "{} + {} + {} + {}",
                self.groups.join("&"),
                self.resources.join("&"),
                self.names.join("&"),
                v
            ),
        }
    }

    fn to_json(&self) -> Value {
        let mut m = serde_json::Map::new();
        if !self.groups.is_empty() {
            m.insert("apiGroups".into(), json!(self.groups));
        }
        if !self.urls.is_empty() {
            m.insert("nonResourceURLs".into(), json!(self.urls));
        }
        if !self.names.is_empty() {
            m.insert("resourceNames".into(), json!(self.names));
        }
        if !self.resources.is_empty() {
            m.insert("resources".into(), json!(self.resources));
        }
        m.insert("verbs".into(), json!(self.verbs));
        Value::Object(m)
    }
}

/// Merges rules that differ only in `part`.
fn merge_by(rules: BTreeMap<String, Rule>, part: &str) -> BTreeMap<String, Rule> {
    let mut groups: BTreeMap<String, Vec<Rule>> = BTreeMap::new();
    for (_, mut r) in rules {
        groups.entry(r.key_without(part)).or_default().push(r);
    }
    let mut out = BTreeMap::new();
    for (_, rs) in groups {
        let mut it = rs.into_iter();
        let Some(mut first) = it.next() else { continue };
        for r in it {
            match part {
                "resources" => first.resources.extend(r.resources),
                "groups" => first.groups.extend(r.groups),
                _ => first.urls.extend(r.urls),
            }
        }
        out.insert(first.key(), first);
    }
    out
}

fn normalize_rules(rules: Vec<Rule>) -> Vec<Value> {
    let mut by_key: BTreeMap<String, Rule> = BTreeMap::new();
    for mut r in rules {
        for g in &mut r.groups {
            if g == "core" {
                g.clear();
            }
        }
        let k = r.key();
        match by_key.get_mut(&k) {
            Some(existing) => {
                existing.verbs.extend(r.verbs);
                norm(&mut existing.verbs);
            }
            None => {
                by_key.insert(k, r);
            }
        }
    }
    let by_key = merge_by(by_key, "resources");
    let by_key = merge_by(by_key, "groups");
    let by_key = merge_by(by_key, "urls");
    // BTreeMap order is the sorted key order controller-gen uses.
    by_key
        .into_values()
        .map(|mut r| {
            if r.verbs.iter().any(|v| v == "*") {
                r.verbs = vec!["*".into()];
            }
            r.to_json()
        })
        .collect()
}

/// The role documents (ClusterRole for cluster-wide rules, a Role per namespace), in controller-gen's order.
pub fn roles<'a>(markers: impl IntoIterator<Item = &'a RbacRule>, role_name: &str) -> Vec<Value> {
    let mut by_role: BTreeMap<(String, String), Vec<Rule>> = BTreeMap::new();
    for m in markers {
        // Without a namespace, the rule is the ClusterRole's (its key sorts first).
        let ns = m.namespace.clone().unwrap_or_default();
        let name = m
            .role_name
            .as_deref()
            .filter(|n| !n.is_empty())
            .unwrap_or(role_name)
            .to_string();
        let base = Rule {
            groups: m.groups.clone(),
            resources: Vec::new(),
            names: m.resource_names.clone(),
            verbs: m.verbs.clone(),
            urls: m.urls.clone(),
        };
        let entry = by_role.entry((ns, name)).or_default();
        if m.resources.is_empty() {
            entry.push(base);
        } else {
            for res in &m.resources {
                entry.push(Rule {
                    resources: vec![res.clone()],
                    ..base.clone()
                });
            }
        }
    }
    let mut docs = Vec::new();
    for ((ns, name), rules) in by_role {
        let rules = normalize_rules(rules);
        if rules.is_empty() {
            continue;
        }
        if ns.is_empty() {
            docs.push(json!({
                "apiVersion": "rbac.authorization.k8s.io/v1",
                "kind": "ClusterRole",
                "metadata": {"name": name},
                "rules": rules,
            }));
        } else {
            docs.push(json!({
                "apiVersion": "rbac.authorization.k8s.io/v1",
                "kind": "Role",
                "metadata": {"name": name, "namespace": ns},
                "rules": rules,
            }));
        }
    }
    docs
}

#[cfg(test)]
mod tests {
    use super::*;
    use rkb_markers::{Effect, Location, Target, parse_marker};
    use std::path::Path;

    fn m(text: &str) -> RbacRule {
        let loc = Location {
            file: Path::new("x.rs"),
            line: 1,
            col: 1,
            source_line: text,
        };
        match parse_marker(text, Target::Package, &loc).unwrap().effect {
            Effect::Rbac(rule) => rule,
            other => panic!("{text} is no RBAC rule: {other:?}"),
        }
    }

    #[test]
    fn merges_and_sorts_like_controller_gen() {
        let ms = vec![
            m("+kubebuilder:rbac:groups=apps,resources=deployments,verbs=get;list;watch"),
            m("+kubebuilder:rbac:groups=apps,resources=statefulsets,verbs=list;get;watch"),
            m("+kubebuilder:rbac:groups=core,resources=pods,verbs=get"),
            m("+kubebuilder:rbac:groups=\"\",resources=pods,verbs=list"),
            m("+kubebuilder:rbac:groups=my.domain,resources=things/status,verbs=get;update;patch"),
            m("+kubebuilder:rbac:urls=/metrics,verbs=get"),
            m("+kubebuilder:rbac:groups=apps,resources=deployments,verbs=get,namespace=ns1"),
        ];
        let docs = roles(&ms, "manager-role");
        assert_eq!(docs.len(), 2);
        assert_eq!(
            docs[0]["rules"],
            json!([
                {"nonResourceURLs": ["/metrics"], "verbs": ["get"]},
                {"apiGroups": [""], "resources": ["pods"], "verbs": ["get", "list"]},
                {"apiGroups": ["apps"], "resources": ["deployments", "statefulsets"], "verbs": ["get", "list", "watch"]},
                {"apiGroups": ["my.domain"], "resources": ["things/status"], "verbs": ["get", "patch", "update"]},
            ])
        );
        assert_eq!(docs[1]["kind"], "Role");
        assert_eq!(
            docs[1]["metadata"],
            json!({"name": "manager-role", "namespace": "ns1"})
        );
    }
}
