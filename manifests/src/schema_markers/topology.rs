//! How lists and maps merge under server-side apply: listType, listMapKey, mapType, structType.

use super::{ApplyErr, Applying, found, need, type_of};
use crate::schema::Schema;
use rkb_markers::{TopologyMarker, Value as MarkerValue};
use serde_json::{Value, json};

pub fn apply(m: TopologyMarker, s: &mut Schema, at: &Applying) -> Result<(), ApplyErr> {
    let v = at.value().and_then(MarkerValue::as_str).unwrap_or("");
    match m {
        TopologyMarker::ListType => {
            need_list(s, at)?;
            if !matches!(v, "map" | "set" | "atomic") {
                return Err((
                    format!("listType must be \"map\", \"set\" or \"atomic\", found `{v}`"),
                    None,
                ));
            }
            s.insert("x-kubernetes-list-type".into(), json!(v));
        }
        TopologyMarker::ListMapKey => {
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
        TopologyMarker::MapType | TopologyMarker::StructType => {
            // A struct field's schema is still a reference (no type) when its markers are applied.
            let object = type_of(s) == "object"
                || (m == TopologyMarker::StructType && type_of(s).is_empty());
            need(
                object,
                format!("{} applies to objects, found {}", at.short, found(s)),
                "use it on a map or struct field",
            )?;
            if !matches!(v, "atomic" | "granular") {
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
