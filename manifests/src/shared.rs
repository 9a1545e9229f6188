//! Shared sub-schemas of k8s-openapi types, owned by one generation run. A `Vec<Container>` field puts
//! Container's whole schema (hundreds of nodes) into every CRD that uses it; copying, printing from and freeing
//! one tree per use was most of a run's time. Instead, the children of a k8s type's schema are stored once in the
//! run's [`SharedSchemas`], and each use holds a small reference node in their place. Schemas are only ever
//! merged at the top of a k8s type (field docs and markers), so the shared children are never changed;
//! [`SharedSchemas::materialize`] copies one back where a merge must reach into it.
//!
//! The store, and the work derived from it (the printed YAML of yaml.rs, the structural verdicts of
//! structural.rs), live as long as the run that made them: the derive runs inside rustc, many times per
//! process, and must not leave schemas behind. The threads of one run share it by reference.
//!
//! Only this module knows how a reference is spelled inside a `serde_json::Value`; the others ask the run's
//! store: [`SharedSchemas::resolve`] (what does this node stand for, if it is a reference?),
//! [`SharedSchemas::lookup`] (the same with its [`SharedRef`], to key work derived from it),
//! [`SharedSchemas::materialize`] and [`SharedSchemas::to_json`]. A node that only looks like a reference
//! (no sub-schema of this run under its number) is what it looks like: plain JSON.

use crate::k8s::Version;
use crate::schema::Schema;
use serde_json::{Map, Value};
use std::collections::{HashMap, HashSet};
use std::sync::{Arc, Mutex, PoisonError, RwLock};

/// The key of a reference node, `{"$rkb-frozen": id}`: a name no schema, default or example of a CRD uses.
const KEY: &str = "$rkb-frozen";

/// A reference to one shared sub-schema of the run that made it (an index into its [`SharedSchemas`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct SharedRef(usize);

impl SharedRef {
    /// The reference `v` is spelled as, if any (whether the run has it is the store's to say).
    fn of(v: &Value) -> Option<SharedRef> {
        let Value::Object(m) = v else { return None };
        if m.len() != 1 {
            return None;
        }
        Some(SharedRef(usize::try_from(m.get(KEY)?.as_u64()?).ok()?))
    }

    fn node(self) -> Value {
        let mut m = Map::new();
        m.insert(KEY.into(), Value::from(self.0));
        Value::Object(m)
    }
}

/// k8s types' schemas with their children shared, by (Kubernetes version, Rust path); `None`: no such type.
type K8sSchemas = HashMap<(Version, String), Option<Arc<Schema>>>;

/// Printed shared sub-schemas by (reference, indent, starting column): the text and the column after it
/// (yaml.rs).
pub type PrintedCache = HashMap<(SharedRef, usize, usize), (Arc<str>, usize)>;

/// The shared sub-schemas of one run, and what the run learned about them.
#[derive(Default)]
pub struct SharedSchemas {
    items: RwLock<Vec<Arc<Value>>>,
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
            Some(Value::Object(mut m)) => {
                // The same path names a different type in another version: key its children by both.
                let name = match version {
                    Version::BASE => path.to_string(),
                    other => format!("{path}@{other}"),
                };
                self.share_children(&name, &mut m);
                Some(Arc::new(m))
            }
            _ => None,
        };
        lock(&self.k8s).entry(key).or_insert(schema).clone()
    }

    /// Replaces the children of a k8s type's schema (property schemas, items, additionalProperties) with
    /// references. `name` identifies the type: the same type always yields the same references.
    pub fn share_children(&self, name: &str, schema: &mut Schema) {
        if let Some(Value::Object(props)) = schema.get_mut("properties") {
            for (k, v) in props.iter_mut() {
                if v.is_object() {
                    *v = self.share(format!("{name}/properties/{k}"), v.take());
                }
            }
        }
        for k in ["items", "additionalProperties"] {
            if let Some(v) = schema.get_mut(k)
                && v.is_object()
            {
                *v = self.share(format!("{name}/{k}"), v.take());
            }
        }
    }

    /// Stores `v` under `key` (once per key for the run) and returns the reference node to put in its place.
    fn share(&self, key: String, v: Value) -> Value {
        let mut index = lock(&self.index);
        let r = *index.entry(key).or_insert_with(|| {
            let mut items = self.items.write().unwrap_or_else(PoisonError::into_inner);
            items.push(Arc::new(v));
            SharedRef(items.len() - 1)
        });
        r.node()
    }

    /// The reference `v` is and the sub-schema it stands for, if `v` is one of this run's references.
    pub fn lookup(&self, v: &Value) -> Option<(SharedRef, Arc<Value>)> {
        let r = SharedRef::of(v)?;
        let items = self.items.read().unwrap_or_else(PoisonError::into_inner);
        Some((r, Arc::clone(items.get(r.0)?)))
    }

    /// What `v` stands for, if it is one of this run's references.
    pub fn resolve(&self, v: &Value) -> Option<Arc<Value>> {
        self.lookup(v).map(|(_, shared)| shared)
    }

    /// Replaces a reference by a private copy of what it stands for (before changing it).
    pub fn materialize(&self, v: &mut Value) {
        if let Some(shared) = self.resolve(v) {
            *v = (*shared).clone();
        }
    }

    /// `v` as compact JSON, every reference replaced by what it stands for.
    pub fn to_json(&self, v: &Value) -> String {
        serde_json::to_string(&Resolved(self, v)).expect("JSON values always serialize")
    }
}

/// Serializes a value as if every reference in it had been materialized, without copying anything.
struct Resolved<'a>(&'a SharedSchemas, &'a Value);

impl serde::Serialize for Resolved<'_> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::{SerializeMap as _, SerializeSeq as _};
        let Resolved(store, v) = *self;
        if let Some(shared) = store.resolve(v) {
            return Resolved(store, &shared).serialize(s);
        }
        match v {
            Value::Object(m) => {
                let mut map = s.serialize_map(Some(m.len()))?;
                for (k, v) in m {
                    map.serialize_entry(k, &Resolved(store, v))?;
                }
                map.end()
            }
            Value::Array(items) => {
                let mut seq = s.serialize_seq(Some(items.len()))?;
                for v in items {
                    seq.serialize_element(&Resolved(store, v))?;
                }
                seq.end()
            }
            scalar => scalar.serialize(s),
        }
    }
}

/// Test helper: whether `json` (text) still holds a reference node, i.e. one leaked past [`SharedSchemas::to_json`].
#[cfg(test)]
pub fn leaks_reference(json: &str) -> bool {
    json.contains(KEY)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn references_resolve_and_materialize() {
        let store = SharedSchemas::new();
        let mut s = json!({"type": "object", "properties": {"a": {"type": "string"}}, "items": {"type": "integer"}});
        let m = s.as_object_mut().unwrap();
        store.share_children("test.T", m);
        let a = m["properties"]["a"].clone();
        assert_eq!(
            store.resolve(&a).as_deref(),
            Some(&json!({"type": "string"}))
        );
        // The same key gives the same reference.
        let mut again = json!({"properties": {"a": {"type": "string"}}});
        store.share_children("test.T", again.as_object_mut().unwrap());
        assert_eq!(again["properties"]["a"], a);
        let mut items = m["items"].clone();
        store.materialize(&mut items);
        assert_eq!(items, json!({"type": "integer"}));
        assert!(store.resolve(&json!({"type": "string"})).is_none());
        // Only this run's references are followed: another run's (or data spelled alike) is plain JSON.
        let other = SharedSchemas::new();
        assert!(other.resolve(&a).is_none());
        assert_eq!(other.to_json(&a), serde_json::to_string(&a).unwrap());
        assert_ne!(
            s["properties"]["a"],
            json!({"type": "string"}),
            "shared in place"
        );
        let json = store.to_json(&s);
        assert_eq!(
            json,
            r#"{"items":{"type":"integer"},"properties":{"a":{"type":"string"}},"type":"object"}"#
        );
        assert!(!leaks_reference(&json));
    }
}
