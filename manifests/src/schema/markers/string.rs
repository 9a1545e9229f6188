//! Strings (and int-or-strings): MaxLength, MinLength, Pattern.

use super::target::{ApplyErr, Applying, found, need, set_int, type_of};
use crate::schema::node::Schema;
use rkb_markers::StringMarker;
use serde_json::json;

pub fn apply(m: &StringMarker, s: &mut Schema, at: &Applying) -> Result<(), ApplyErr> {
    let textual =
        type_of(s) == "string" || s.get("x-kubernetes-int-or-string") == Some(&json!(true));
    need(
        textual,
        format!("{} applies to strings, found {}", at.short, found(s)),
        "use Minimum/Maximum for numbers, MinItems/MaxItems for lists",
    )?;
    match m {
        StringMarker::MaxLength(n) => set_int(s, "maxLength", *n),
        StringMarker::MinLength(n) => set_int(s, "minLength", *n),
        StringMarker::Pattern(p) => {
            s.insert("pattern".into(), json!(p));
        }
    }
    Ok(())
}
