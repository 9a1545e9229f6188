//! Objects: MaxProperties, MinProperties, and the extensions that keep or embed what the schema does not
//! declare (XPreserveUnknownFields, XEmbeddedResource and their aliases).

use super::{ApplyErr, Applying, found, need, set_int, type_of};
use crate::schema::Schema;
use rkb_markers::ObjectMarker;
use serde_json::json;

pub fn apply(m: ObjectMarker, s: &mut Schema, at: &Applying) -> Result<(), ApplyErr> {
    match m {
        ObjectMarker::MaxProperties | ObjectMarker::MinProperties => {
            need(
                type_of(s) == "object",
                format!("{} applies to objects, found {}", at.short, found(s)),
                "use it on a map field or on the struct type itself",
            )?;
            let key = if m == ObjectMarker::MaxProperties {
                "maxProperties"
            } else {
                "minProperties"
            };
            set_int(s, key, at);
        }
        ObjectMarker::PreserveUnknownFields => {
            s.insert("x-kubernetes-preserve-unknown-fields".into(), json!(true));
        }
        ObjectMarker::EmbeddedResource => {
            s.insert("x-kubernetes-embedded-resource".into(), json!(true));
        }
    }
    Ok(())
}
