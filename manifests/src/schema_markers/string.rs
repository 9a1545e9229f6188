//! Strings (and int-or-strings): MaxLength, MinLength, Pattern.

use super::{ApplyErr, Applying, found, need, set_int, type_of};
use crate::schema::Schema;
use rkb_markers::{StringMarker, Value as MarkerValue};
use serde_json::json;

pub fn apply(m: StringMarker, s: &mut Schema, at: &Applying) -> Result<(), ApplyErr> {
    let textual =
        type_of(s) == "string" || s.get("x-kubernetes-int-or-string") == Some(&json!(true));
    need(
        textual,
        format!("{} applies to strings, found {}", at.short, found(s)),
        "use Minimum/Maximum for numbers, MinItems/MaxItems for lists",
    )?;
    match m {
        StringMarker::MaxLength => set_int(s, "maxLength", at),
        StringMarker::MinLength => set_int(s, "minLength", at),
        StringMarker::Pattern => {
            s.insert(
                "pattern".into(),
                json!(at.value().and_then(MarkerValue::as_str).unwrap_or("")),
            );
        }
    }
    Ok(())
}
