//! Objects: MaxProperties, MinProperties, and the extensions that keep or embed what the schema does not
//! declare (XPreserveUnknownFields, XEmbeddedResource and their aliases).

use super::target::{ApplyErr, Applying, found, need, set_int, type_of};
use crate::schema::node::Schema;
use rkb_markers::ObjectMarker;
use serde_json::json;

pub fn apply(m: &ObjectMarker, s: &mut Schema, at: &Applying) -> Result<(), ApplyErr> {
    match *m {
        ObjectMarker::MaxProperties(n) => set_property_count(s, "maxProperties", n, at)?,
        ObjectMarker::MinProperties(n) => set_property_count(s, "minProperties", n, at)?,
        ObjectMarker::PreserveUnknownFields => {
            s.insert("x-kubernetes-preserve-unknown-fields".into(), json!(true));
        }
        ObjectMarker::EmbeddedResource => {
            s.insert("x-kubernetes-embedded-resource".into(), json!(true));
        }
    }
    Ok(())
}

/// A bound on an object's number of properties.
fn set_property_count(s: &mut Schema, key: &str, n: i64, at: &Applying) -> Result<(), ApplyErr> {
    need(
        type_of(s) == "object",
        format!("{} applies to objects, found {}", at.short, found(s)),
        "use it on a map field or on the struct type itself",
    )?;
    set_int(s, key, n);
    Ok(())
}
