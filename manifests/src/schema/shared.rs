//! Shared sub-schemas of k8s-openapi types, owned by one generation run. A `Vec<Container>` field puts
//! Container's whole schema (hundreds of nodes) into every CRD that uses it; copying, printing from and freeing
//! one tree per use was most of a run's time. Instead, the children of a k8s type's schema are stored once in the
//! run's [`SharedSchemas`], and each use holds a reference ([`Node::Shared`]) in their place. Schemas are only ever
//! merged at the top of a k8s type (field docs and markers), so the shared children are never changed;
//! [`SharedSchemas::materialize`] copies one back where a merge must reach into it.
//!
//! The store, and the work derived from it (the printed YAML of yaml.rs, the structural verdicts of
//! structural.rs), live as long as the run that made them: the derive runs inside rustc, many times per
//! process, and must not leave schemas behind. The threads of one run share it by reference.
//!
//! A reference is a variant of its own (node.rs), never JSON: the checks and the printer read what it stands for
//! with [`SharedSchemas::schema_of`], and a merge that must change it first makes a copy of its own with
//! [`SharedSchemas::materialize`].

use crate::k8s::Version;
use crate::schema::node::{Doc, Node, NodeSchema, Schema, SharedRef, Sub};
use serde_json::Value;
use std::collections::{HashMap, HashSet};
use std::sync::{Arc, Mutex, PoisonError, RwLock};

/// k8s types' schemas with their children shared, by (Kubernetes version, Rust path); `None`: no such type.
type K8sSchemas = HashMap<(Version, String), Option<Arc<Schema>>>;

/// Printed shared sub-schemas by (reference, indent, starting column): the text and the column after it
/// (yaml.rs).
pub type PrintedCache = HashMap<(SharedRef, usize, usize), (Arc<str>, usize)>;

/// The shared sub-schemas of one run, and what the run learned about them.
#[derive(Default)]
pub struct SharedSchemas {
    items: RwLock<Vec<Arc<Schema>>>,
    /// `<k8s type>[@<version>]/properties/<name>` (or `/items`, `/additionalProperties`) -> its reference.
    index: Mutex<HashMap<String, SharedRef>>,
    /// Expanded from the embedded table once per run, whichever thread asks first.
    k8s: Mutex<K8sSchemas>,
    /// yaml.rs: a `Vec<Container>` field prints the same few hundred lines in every CRD that has it.
    pub(crate) printed: Mutex<PrintedCache>,
    /// structural.rs: (reference, inside a junctor) found structural once, so structural wherever it is used.
    pub(crate) structural: Mutex<HashSet<(SharedRef, bool)>>,
}

/// A lock whose holder panicked still guards consistent data here: every update is one insert or push.
pub(crate) fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(PoisonError::into_inner)
}

impl SharedSchemas {
    pub fn new() -> Self {
        Self::default()
    }

    /// The schema of the k8s-openapi type at `path` in `version`, its children shared (see
    /// [`Self::share_children`]); `None` when the table has no such type.
    pub fn k8s_schema(&self, version: Version, path: &str) -> Option<Arc<Schema>> {
        let key = (version, path.to_owned());
        if let Some(hit) = lock(&self.k8s).get(&key) {
            return hit.clone();
        }
        let schema = match crate::k8s::schema_in(version, path) {
            Some(Value::Object(m)) => {
                // The same path names a different type in another version: key its children by both.
                let name = match version {
                    Version::BASE => path.to_string(),
                    other => format!("{path}@{other}"),
                };
                let mut s = Schema::from_json(m);
                self.share_children(&name, &mut s);
                Some(Arc::new(s))
            }
            _ => None,
        };
        lock(&self.k8s).entry(key).or_insert(schema).clone()
    }

    /// Replaces the children of a k8s type's schema (property schemas, items, additionalProperties) with
    /// references. `name` identifies the type: the same type always yields the same references.
    pub fn share_children(&self, name: &str, schema: &mut Schema) {
        for (k, n) in schema.properties.iter_mut().flatten() {
            self.share_node(format!("{name}/properties/{k}"), n);
        }
        if let Some(n) = &mut schema.items {
            self.share_node(format!("{name}/items"), n);
        }
        if let Some(n) = &mut schema.additional_properties {
            self.share_node(format!("{name}/additionalProperties"), n);
        }
    }

    /// Stores the run's own `node` under `key` (once per key for the run) and leaves its reference in its place.
    fn share_node(&self, key: String, node: &mut Node) {
        let Node::Own(s) = node else { return };
        let mut index = lock(&self.index);
        let r = *index.entry(key).or_insert_with(|| {
            let mut items = self.items.write().unwrap_or_else(PoisonError::into_inner);
            items.push(Arc::new(std::mem::take(s)));
            SharedRef(items.len() - 1)
        });
        *node = Node::Shared(r);
    }

    /// The sub-schema `r` stands for.
    pub(crate) fn get(&self, r: SharedRef) -> Arc<Schema> {
        let items = self.items.read().unwrap_or_else(PoisonError::into_inner);
        // A reference is only ever made by its run's store, and the store only grows.
        Arc::clone(&items[r.0])
    }

    /// What `node` stands for: its own schema, or the shared one it refers to.
    pub fn schema_of<'a>(&self, node: &'a Node) -> NodeSchema<'a> {
        match node {
            Node::Own(s) => NodeSchema::Own(s),
            Node::Shared(r) => NodeSchema::Shared(self.get(*r)),
        }
    }

    /// `node`'s schema as the run's own (a shared one copied).
    pub fn owned(&self, node: Node) -> Schema {
        match node {
            Node::Own(s) => s,
            Node::Shared(r) => (*self.get(r)).clone(),
        }
    }

    /// `node`'s schema, to change: a shared one is first replaced by a copy of its own.
    pub fn materialize<'a>(&self, node: &'a mut Node) -> &'a mut Schema {
        if let Node::Shared(r) = *node {
            *node = Node::Own((*self.get(r)).clone());
        }
        match node {
            Node::Own(s) => s,
            Node::Shared(_) => unreachable!("replaced by its copy above"),
        }
    }
}

// Writing a schema out as JSON follows its references through the store, so it is the store's to do.
impl Schema {
    /// This schema as JSON, every shared sub-schema written out in full from `store`.
    pub fn to_json(&self, store: &SharedSchemas) -> Value {
        debug_assert!(
            self.reference.is_none(),
            "an unflattened reference reached the JSON writer"
        );
        let mut m = self.keywords().clone();
        let node = |n: &Node| store.schema_of(n).to_json(store);
        for (k, sub) in self.sub_schemas() {
            let v = match sub {
                Sub::Properties(p) => {
                    Value::Object(p.iter().map(|(k, n)| (k.clone(), node(n))).collect())
                }
                Sub::Node(n) => node(n),
                Sub::Schemas(l) => Value::Array(l.iter().map(|s| s.to_json(store)).collect()),
                Sub::Schema(s) => s.to_json(store),
            };
            m.insert(k.into(), v);
        }
        Value::Object(m)
    }
}

impl Doc {
    /// The document as JSON, shared sub-schemas written out in full from `store`.
    pub fn to_json(&self, store: &SharedSchemas) -> Value {
        match self {
            Doc::Json(v) => v.clone(),
            Doc::Map(entries) => Value::Object(
                entries
                    .iter()
                    .map(|(k, d)| (k.clone(), d.to_json(store)))
                    .collect(),
            ),
            Doc::List(items) => Value::Array(items.iter().map(|d| d.to_json(store)).collect()),
            Doc::Schema(s) => s.to_json(store),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn references_resolve_and_materialize() {
        let store = SharedSchemas::new();
        let v = json!({"type": "object", "properties": {"a": {"type": "string"}}, "items": {"type": "integer"}});
        let mut s = Schema::from_value(v.clone());
        store.share_children("test.T", &mut s);
        let a = s.properties.as_ref().unwrap()["a"].clone();
        assert!(matches!(a, Node::Shared(_)), "shared in place");
        assert_eq!(
            store.schema_of(&a).to_json(&store),
            json!({"type": "string"})
        );
        // The same key gives the same reference.
        let mut again = Schema::from_value(json!({"properties": {"a": {"type": "string"}}}));
        store.share_children("test.T", &mut again);
        assert_eq!(again.properties.as_ref().unwrap()["a"], a);
        let mut items = (**s.items.as_ref().unwrap()).clone();
        assert_eq!(store.materialize(&mut items).str("type"), Some("integer"));
        assert!(matches!(items, Node::Own(_)));
        // Written out, the references are what they stand for.
        assert_eq!(s.to_json(&store), v);
    }
}
