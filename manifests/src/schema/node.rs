//! The schema tree rkb builds, checks and prints: a [`Schema`] holds its keywords as JSON and its sub-schemas as
//! typed [`Node`]s, each either the run's own or a shared k8s sub-schema of the run's store (shared.rs).
//!
//! Why typed: a shared sub-schema (Container's few hundred nodes, used by many CRDs) is stored once per run, and
//! every use holds a [`SharedRef`] in its place. As a variant of its own, a reference cannot be mistaken for JSON,
//! cannot be changed in place by accident (`merge_into` must [`SharedSchemas::materialize`] it first), and cannot
//! leak into output: the printer and the JSON writer follow it through the store.
//!
//! Contract:
//! - Sub-schemas live only at their typed places: `properties`, `items`, `additionalProperties` (which may be
//!   shared), `allOf`, `anyOf`, `oneOf`, `not` (always the run's own). [`Schema::get`], [`Schema::insert`] and
//!   [`Schema::remove`] are for the other keywords; asking them for a sub-schema's key is a bug (a debug
//!   assertion). [`Schema::contains_key`] answers for both.
//! - [`Schema::from_json`] and [`Schema::to_json`] convert at the edges (the embedded k8s table, tests); a
//!   non-object where a sub-schema belongs (`additionalProperties: false`) stays a keyword.

use crate::model::item_markers::ItemMarkers;
use crate::model::{At, Model, Origin, TypeId};
use rkb_markers::Span;
use serde_json::{Map, Value};
use std::collections::BTreeMap;
use std::sync::Arc;

/// Properties by name, in key order (as serde_json's map keeps them).
pub type Properties = BTreeMap<String, Node>;

/// A reference to one shared sub-schema of the run that made it (an index into its `SharedSchemas`, shared.rs).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct SharedRef(pub(super) usize);

/// A sub-schema at a place where a shared one may stand.
#[derive(Clone, Debug, PartialEq)]
pub enum Node {
    /// The run's own: may be changed.
    Own(Schema),
    /// A shared k8s sub-schema of the run's store: read through the store, copied out before a change.
    Shared(SharedRef),
}

/// A type a schema refers to until references are flattened (schema/mod.rs): a field names a type, and the
/// type's schema is put in later, once per type. Typed, so a reference can never be taken for a keyword, nor
/// printed.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum TypeRef {
    /// One of the project's types.
    Local(TypeId),
    /// A k8s-openapi type.
    K8s(K8sPath),
    /// kube's / rkb-runtime's TypeMeta (apiVersion and kind).
    TypeMeta,
}

impl TypeRef {
    /// The project's type this refers to, if it is one.
    pub fn local(&self) -> Option<TypeId> {
        match self {
            TypeRef::Local(t) => Some(*t),
            TypeRef::K8s(_) | TypeRef::TypeMeta => None,
        }
    }
}

/// The full path of a k8s-openapi type, `k8s_openapi::api::core::v1::Container`: the key of the k8s tables.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct K8sPath(pub String);

/// Where a schema node comes from: the field or type it was made for, and, once a field's reference is flattened,
/// the type whose schema was merged into it. The markers of those items wrote its keywords, so a check rule finds
/// the marker behind a keyword with one call ([`Provenance::marker`]). Shared k8s sub-schemas have none.
#[derive(Clone, Copy, Debug, Default)]
pub struct Provenance {
    pub made_for: Option<Origin>,
    pub referenced: Option<Origin>,
}

impl Provenance {
    /// Where the marker `pick` finds is: among the markers of the item the node was made for, else of the type it
    /// refers to. `None` when neither has one (the node was made by rkb, or by a marker elsewhere).
    pub fn marker(&self, model: &Model, pick: impl Fn(&ItemMarkers) -> Option<Span>) -> Option<At> {
        [self.made_for, self.referenced]
            .into_iter()
            .flatten()
            .find_map(|origin| {
                let (file, markers) = model.markers_of(origin)?;
                pick(markers).map(|span| At { file, span })
            })
    }
}

impl Provenance {
    /// Where the field or type the node was made for (else the type it refers to) is written.
    pub fn origin_at(&self, model: &Model) -> Option<At> {
        [self.made_for, self.referenced]
            .into_iter()
            .flatten()
            .find_map(|origin| model.origin_at(origin))
    }
}

// Provenance is not content: two schemas that say the same are equal wherever they were written.
impl PartialEq for Provenance {
    fn eq(&self, _: &Self) -> bool {
        true
    }
}

/// One schema node: keywords and typed sub-schemas.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Schema {
    /// Every keyword but the sub-schemas below: type, format, description, enum, default, required,
    /// x-kubernetes-*.
    keywords: Map<String, Value>,
    /// The type this schema stands for, beside the keywords of the field that names it (its docs and markers),
    /// until references are flattened: the type's schema and the field's keywords then become `allOf` branches.
    pub reference: Option<TypeRef>,
    pub provenance: Provenance,
    pub properties: Option<Properties>,
    pub items: Option<Box<Node>>,
    pub additional_properties: Option<Box<Node>>,
    pub all_of: Option<Vec<Schema>>,
    pub any_of: Option<Vec<Schema>>,
    pub one_of: Option<Vec<Schema>>,
    pub not: Option<Box<Schema>>,
}

/// What one sub-schema place of a [`Schema`] holds.
#[derive(Clone, Copy)]
pub enum Sub<'a> {
    Properties(&'a Properties),
    Node(&'a Node),
    Schemas(&'a [Schema]),
    Schema(&'a Schema),
}

/// The JSON keys of the typed sub-schemas, in the order [`Schema::from_json`] reads them.
const SUB_SCHEMA_KEYS: [&str; 7] = [
    "properties",
    "items",
    "additionalProperties",
    "allOf",
    "anyOf",
    "oneOf",
    "not",
];

fn is_sub_schema_key(k: &str) -> bool {
    SUB_SCHEMA_KEYS.contains(&k)
}

impl Schema {
    pub fn new() -> Self {
        Self::default()
    }

    /// The keyword `k` (never a sub-schema's key).
    pub fn get(&self, k: &str) -> Option<&Value> {
        debug_assert!(
            !is_sub_schema_key(k),
            "`{k}` is a sub-schema: use its field"
        );
        self.keywords.get(k)
    }

    pub fn get_mut(&mut self, k: &str) -> Option<&mut Value> {
        debug_assert!(
            !is_sub_schema_key(k),
            "`{k}` is a sub-schema: use its field"
        );
        self.keywords.get_mut(k)
    }

    pub fn insert(&mut self, k: String, v: Value) -> Option<Value> {
        debug_assert!(
            !is_sub_schema_key(&k),
            "`{k}` is a sub-schema: use its field"
        );
        self.keywords.insert(k, v)
    }

    pub fn remove(&mut self, k: &str) -> Option<Value> {
        debug_assert!(
            !is_sub_schema_key(k),
            "`{k}` is a sub-schema: use its field"
        );
        self.keywords.remove(k)
    }

    /// The keyword `k`'s entry (never a sub-schema's).
    pub fn entry(&mut self, k: &str) -> serde_json::map::Entry<'_> {
        debug_assert!(
            !is_sub_schema_key(k),
            "`{k}` is a sub-schema: use its field"
        );
        self.keywords.entry(k)
    }

    /// Whether the keyword or sub-schema `k` is present.
    pub fn contains_key(&self, k: &str) -> bool {
        // A sub-schema's key also holds a keyword when what is there is not a schema (see `from_json`).
        self.keywords.contains_key(k) || self.sub_schemas().any(|(key, _)| key == k)
    }

    /// The sub-schemas present, with their JSON keys: what the printer and the JSON writer write beside the
    /// keywords.
    pub fn sub_schemas(&self) -> impl Iterator<Item = (&'static str, Sub<'_>)> {
        [
            ("properties", self.properties.as_ref().map(Sub::Properties)),
            ("items", self.items.as_deref().map(Sub::Node)),
            (
                "additionalProperties",
                self.additional_properties.as_deref().map(Sub::Node),
            ),
            ("allOf", self.all_of.as_deref().map(Sub::Schemas)),
            ("anyOf", self.any_of.as_deref().map(Sub::Schemas)),
            ("oneOf", self.one_of.as_deref().map(Sub::Schemas)),
            ("not", self.not.as_deref().map(Sub::Schema)),
        ]
        .into_iter()
        .filter_map(|(k, sub)| Some((k, sub?)))
    }

    /// The keywords, without the sub-schemas.
    pub fn keywords(&self) -> &Map<String, Value> {
        &self.keywords
    }

    /// The keywords, to change them all alike (merging; a sub-schema's key there holds what is not a schema).
    pub fn keywords_mut(&mut self) -> &mut Map<String, Value> {
        &mut self.keywords
    }

    /// Takes the keywords out, leaving none.
    pub fn take_keywords(&mut self) -> Map<String, Value> {
        std::mem::take(&mut self.keywords)
    }

    /// Nothing at all: no keyword, no sub-schema.
    pub fn is_empty(&self) -> bool {
        self.keywords.is_empty() && self.reference.is_none() && self.sub_schemas().next().is_none()
    }

    /// The keyword `k` as a string.
    pub fn str(&self, k: &str) -> Option<&str> {
        self.get(k).and_then(Value::as_str)
    }

    /// The schema a JSON literal writes (anything but an object: the empty schema).
    pub fn from_value(v: Value) -> Schema {
        match v {
            Value::Object(m) => Schema::from_json(m),
            _ => Schema::new(),
        }
    }

    /// The schema a JSON object describes; sub-schemas become the run's own nodes.
    pub fn from_json(mut m: Map<String, Value>) -> Schema {
        let mut s = Schema::new();
        let object = |v: Value| match v {
            Value::Object(o) => Ok(Schema::from_json(o)),
            other => Err(other),
        };
        let list = |v: Value| match v {
            Value::Array(a) if a.iter().all(Value::is_object) => Ok(a
                .into_iter()
                .filter_map(|v| object(v).ok())
                .collect::<Vec<_>>()),
            other => Err(other),
        };
        for k in SUB_SCHEMA_KEYS {
            let Some(v) = m.remove(k) else { continue };
            let kept = match k {
                "properties" => match v {
                    Value::Object(props) if props.values().all(Value::is_object) => {
                        let own =
                            |(name, p): (String, Value)| Some((name, Node::Own(object(p).ok()?)));
                        s.properties = Some(props.into_iter().filter_map(own).collect());
                        None
                    }
                    other => Some(other),
                },
                "items" => object(v)
                    .map(|o| s.items = Some(Box::new(Node::Own(o))))
                    .err(),
                "additionalProperties" => object(v)
                    .map(|o| s.additional_properties = Some(Box::new(Node::Own(o))))
                    .err(),
                "allOf" => list(v).map(|l| s.all_of = Some(l)).err(),
                "anyOf" => list(v).map(|l| s.any_of = Some(l)).err(),
                "oneOf" => list(v).map(|l| s.one_of = Some(l)).err(),
                _ => object(v).map(|o| s.not = Some(Box::new(o))).err(),
            };
            // Not a schema where one belongs (`additionalProperties: false`): kept as written.
            if let Some(v) = kept {
                s.keywords.insert(k.to_string(), v);
            }
        }
        s.keywords.extend(m);
        s
    }

    /// Calls `f` with each own sub-schema, mutably (shared ones are left alone: they are never changed in place).
    pub fn for_each_own_mut(&mut self, f: &mut dyn FnMut(&mut Schema)) {
        for n in self.properties.iter_mut().flat_map(|p| p.values_mut()) {
            if let Node::Own(s) = n {
                f(s);
            }
        }
        for n in [&mut self.items, &mut self.additional_properties]
            .into_iter()
            .flatten()
        {
            if let Node::Own(s) = &mut **n {
                f(s);
            }
        }
        if let Some(s) = &mut self.not {
            f(s);
        }
        for list in [&mut self.all_of, &mut self.any_of, &mut self.one_of]
            .into_iter()
            .flatten()
        {
            list.iter_mut().for_each(&mut *f);
        }
    }
}

/// A generated document: JSON, with typed schemas where the CRD has them (yaml.rs prints it; `to_json` writes it
/// as JSON).
#[derive(Debug)]
pub enum Doc {
    Json(Value),
    Map(Vec<(String, Doc)>),
    List(Vec<Doc>),
    Schema(Schema),
}

impl Node {
    /// The node's schema if it is the run's own.
    pub fn own(&self) -> Option<&Schema> {
        match self {
            Node::Own(s) => Some(s),
            Node::Shared(_) => None,
        }
    }
}

/// What a [`Node`] stands for: the run's own schema, or a shared one held from the store.
#[derive(Clone)]
pub enum NodeSchema<'a> {
    Own(&'a Schema),
    Shared(Arc<Schema>),
}

impl std::ops::Deref for NodeSchema<'_> {
    type Target = Schema;
    fn deref(&self) -> &Schema {
        match self {
            NodeSchema::Own(s) => s,
            NodeSchema::Shared(s) => s,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn obj(v: Value) -> Map<String, Value> {
        v.as_object().cloned().unwrap()
    }

    #[test]
    fn json_round_trips_and_keeps_non_schemas_as_keywords() {
        let v = json!({"type": "object", "required": ["a"], "additionalProperties": false,
            "properties": {"a": {"type": "array", "items": {"type": "string"}}},
            "anyOf": [{"type": "integer"}, {"type": "string"}], "not": {"required": ["b"]}});
        let s = Schema::from_json(obj(v.clone()));
        assert!(s.properties.is_some() && s.any_of.is_some() && s.not.is_some());
        assert!(s.additional_properties.is_none());
        assert!(s.contains_key("additionalProperties"));
        assert_eq!(s.to_json(&crate::schema::shared::SharedSchemas::new()), v);
        assert!(!s.is_empty() && Schema::new().is_empty());
    }

    #[test]
    #[should_panic(expected = "is a sub-schema")]
    #[cfg(debug_assertions)]
    fn sub_schemas_are_not_keywords() {
        Schema::new().get("items");
    }
}
