//! Bounds of numbers: Maximum, Minimum, MultipleOf, ExclusiveMaximum, ExclusiveMinimum.

use super::{ApplyErr, Applying, found, need, set_flag, type_of};
use crate::schema::Schema;
use rkb_markers::{NumberMarker, Value as MarkerValue};

pub fn apply(m: NumberMarker, s: &mut Schema, at: &Applying) -> Result<(), ApplyErr> {
    let numeric = matches!(type_of(s), "integer" | "number");
    let short = at.short;
    let msg = format!("{short} applies to numbers, found {}", found(s));
    match m {
        NumberMarker::Maximum | NumberMarker::Minimum | NumberMarker::MultipleOf => {
            need(
                numeric,
                msg,
                "use MinLength/MaxLength for strings, MinItems/MaxItems for lists",
            )?;
            let f = at.value().and_then(MarkerValue::as_f64).unwrap_or(0.0);
            if type_of(s) == "integer" && f.fract() != 0.0 {
                return Err((
                    format!(
                        "cannot apply non-integral {} ({f}) to an integer",
                        short.to_lowercase()
                    ),
                    None,
                ));
            }
            let key = match m {
                NumberMarker::Maximum => "maximum",
                NumberMarker::Minimum => "minimum",
                _ => "multipleOf",
            };
            s.insert(key.into(), MarkerValue::Number(f).to_json());
        }
        NumberMarker::ExclusiveMaximum | NumberMarker::ExclusiveMinimum => {
            need(numeric, msg, "only numbers have exclusive bounds")?;
            let key = if m == NumberMarker::ExclusiveMaximum {
                "exclusiveMaximum"
            } else {
                "exclusiveMinimum"
            };
            set_flag(
                s,
                key,
                at.value().and_then(MarkerValue::as_bool).unwrap_or(false),
            );
        }
    }
    Ok(())
}
