//! Shared sub-schemas of k8s-openapi types. A `Vec<Container>` field puts Container's whole schema
//! (hundreds of nodes) into every CRD that uses it; copying, printing from and freeing one tree per use was
//! most of a run's time. Instead, the children of a k8s type's schema are stored once, process-wide, and
//! the per-use copy holds small placeholders (`{"$rkb-frozen": id}`) that the printer and the checks
//! follow. Schemas are only ever merged at the top of a k8s type (field docs and markers), so the shared
//! children are never changed; `materialize` copies one back where a merge must reach into it.

use serde_json::{Map, Value};
use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock, RwLock};

const KEY: &str = "$rkb-frozen";

struct Store {
    items: RwLock<Vec<Arc<Value>>>,
    index: Mutex<HashMap<String, usize>>,
}

fn store() -> &'static Store {
    static S: OnceLock<Store> = OnceLock::new();
    S.get_or_init(|| Store {
        items: RwLock::new(Vec::new()),
        index: Mutex::new(HashMap::new()),
    })
}

/// Stores `v` under `key` (once per key for the life of the process) and returns its placeholder.
fn freeze(key: String, v: Value) -> Value {
    let s = store();
    let id = {
        let mut index = s.index.lock().unwrap_or_else(|e| e.into_inner());
        match index.get(&key) {
            Some(&id) => id,
            None => {
                let mut items = s.items.write().unwrap_or_else(|e| e.into_inner());
                items.push(Arc::new(v));
                let id = items.len() - 1;
                index.insert(key, id);
                id
            }
        }
    };
    let mut m = Map::new();
    m.insert(KEY.into(), Value::from(id));
    Value::Object(m)
}

/// Replaces the children of a k8s type's schema (property schemas, items, additionalProperties) with
/// placeholders. `name` identifies the type (the same type always yields the same placeholders).
pub fn freeze_children(name: &str, schema: &mut Map<String, Value>) {
    if let Some(Value::Object(props)) = schema.get_mut("properties") {
        for (k, v) in props.iter_mut() {
            if v.is_object() {
                *v = freeze(format!("{name}/properties/{k}"), v.take());
            }
        }
    }
    for k in ["items", "additionalProperties"] {
        if let Some(v) = schema.get_mut(k)
            && v.is_object()
        {
            *v = freeze(format!("{name}/{k}"), v.take());
        }
    }
}

/// The shared value behind a placeholder, if `v` is one.
pub fn resolve(v: &Value) -> Option<Arc<Value>> {
    resolve_with_id(v).map(|(_, shared)| shared)
}

/// Like [`resolve`], with the placeholder's id: the same id always stands for the same value, so
/// work derived from it (printed YAML, structural checks) can be reused for the life of the process.
pub fn resolve_with_id(v: &Value) -> Option<(usize, Arc<Value>)> {
    let Value::Object(m) = v else { return None };
    if m.len() != 1 {
        return None;
    }
    let id = m.get(KEY)?.as_u64()? as usize;
    let shared = store()
        .items
        .read()
        .unwrap_or_else(|e| e.into_inner())
        .get(id)
        .cloned()?;
    Some((id, shared))
}

/// Replaces a placeholder by a private copy of what it stands for (before changing it).
pub fn materialize(v: &mut Value) {
    if let Some(shared) = resolve(v) {
        *v = (*shared).clone();
    }
}

/// `v` as compact JSON, every placeholder replaced by the value it stands for.
pub fn to_json(v: &Value) -> String {
    serde_json::to_string(&Thawed(v)).expect("JSON values always serialize")
}

/// Serializes a value as if every placeholder in it had been materialized, without copying anything.
struct Thawed<'a>(&'a Value);

impl serde::Serialize for Thawed<'_> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::{SerializeMap as _, SerializeSeq as _};
        if let Some(shared) = resolve(self.0) {
            return Thawed(&shared).serialize(s);
        }
        match self.0 {
            Value::Object(m) => {
                let mut map = s.serialize_map(Some(m.len()))?;
                for (k, v) in m {
                    map.serialize_entry(k, &Thawed(v))?;
                }
                map.end()
            }
            Value::Array(items) => {
                let mut seq = s.serialize_seq(Some(items.len()))?;
                for v in items {
                    seq.serialize_element(&Thawed(v))?;
                }
                seq.end()
            }
            scalar => scalar.serialize(s),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn placeholders_resolve_and_materialize() {
        let mut s = json!({"type": "object", "properties": {"a": {"type": "string"}}, "items": {"type": "integer"}});
        let m = s.as_object_mut().unwrap();
        freeze_children("test.T", m);
        let a = m["properties"]["a"].clone();
        assert_eq!(resolve(&a).as_deref(), Some(&json!({"type": "string"})));
        // The same key gives the same placeholder.
        let mut again = json!({"properties": {"a": {"type": "string"}}});
        freeze_children("test.T", again.as_object_mut().unwrap());
        assert_eq!(again["properties"]["a"], a);
        let mut items = m["items"].clone();
        materialize(&mut items);
        assert_eq!(items, json!({"type": "integer"}));
        assert!(resolve(&json!({"type": "string"})).is_none());
        assert_ne!(
            s["properties"]["a"],
            json!({"type": "string"}),
            "frozen in place"
        );
        assert_eq!(
            to_json(&s),
            r#"{"items":{"type":"integer"},"properties":{"a":{"type":"string"}},"type":"object"}"#
        );
    }
}
