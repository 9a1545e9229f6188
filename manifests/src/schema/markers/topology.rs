//! How lists and maps merge under server-side apply: listType, listMapKey, mapType, structType.

use super::target::{ApplyErr, Applying, found, need, type_of};
use crate::schema::node::Schema;
use rkb_markers::TopologyMarker;
use serde_json::{Value, json};

pub fn apply(m: &TopologyMarker, s: &mut Schema, at: &Applying) -> Result<(), ApplyErr> {
    match m {
        TopologyMarker::ListType(v) => {
            need_list(s, at)?;
            if !matches!(v.as_str(), "map" | "set" | "atomic") {
                return Err((
                    format!("listType must be \"map\", \"set\" or \"atomic\", found `{v}`"),
                    None,
                ));
            }
            s.insert("x-kubernetes-list-type".into(), json!(v));
        }
        TopologyMarker::ListMapKey(v) => {
            need_list(s, at)?;
            need(
                s.get("x-kubernetes-list-type") == Some(&json!("map")),
                "listMapKey needs +listType=map".into(),
                "add `/// +listType=map` to the field",
            )?;
            let entry = s
                .entry("x-kubernetes-list-map-keys")
                .or_insert_with(|| json!([]));
            if let Value::Array(keys) = entry {
                keys.push(json!(v));
            }
        }
        TopologyMarker::MapType(v) | TopologyMarker::StructType(v) => {
            // A struct field's schema is still a reference (no type) when its markers are applied.
            let object = type_of(s) == "object"
                || (matches!(m, TopologyMarker::StructType(_)) && type_of(s).is_empty());
            need(
                object,
                format!("{} applies to objects, found {}", at.short, found(s)),
                "use it on a map or struct field",
            )?;
            if !matches!(v.as_str(), "atomic" | "granular") {
                return Err((
                    format!(
                        "{} must be \"granular\" or \"atomic\", found `{v}`",
                        at.short
                    ),
                    None,
                ));
            }
            s.insert("x-kubernetes-map-type".into(), json!(v));
        }
    }
    Ok(())
}

fn need_list(s: &Schema, at: &Applying) -> Result<(), ApplyErr> {
    need(
        type_of(s) == "array",
        format!("{} applies to lists, found {}", at.short, found(s)),
        "use it on a Vec field",
    )
}
