//! Bounds of numbers: Maximum, Minimum, MultipleOf, ExclusiveMaximum, ExclusiveMinimum.

use super::target::{ApplyErr, Applying, found, need, set_flag, type_of};
use crate::schema::node::Schema;
use rkb_markers::{NumberMarker, Value as MarkerValue};

pub fn apply(m: &NumberMarker, s: &mut Schema, at: &Applying) -> Result<(), ApplyErr> {
    match *m {
        NumberMarker::Maximum(f) => set_bound(s, "maximum", f, at),
        NumberMarker::Minimum(f) => set_bound(s, "minimum", f, at),
        NumberMarker::MultipleOf(f) => set_bound(s, "multipleOf", f, at),
        NumberMarker::ExclusiveMaximum(on) => set_exclusive(s, "exclusiveMaximum", on, at),
        NumberMarker::ExclusiveMinimum(on) => set_exclusive(s, "exclusiveMinimum", on, at),
    }
}

/// Every number marker lands on an integer or a number; `hint` says where the marker's kin for other types is.
fn need_number(s: &Schema, at: &Applying, hint: &str) -> Result<(), ApplyErr> {
    need(
        matches!(type_of(s), "integer" | "number"),
        format!("{} applies to numbers, found {}", at.short, found(s)),
        hint,
    )
}

/// A numeric bound; an integer's must be integral.
fn set_bound(s: &mut Schema, key: &str, f: f64, at: &Applying) -> Result<(), ApplyErr> {
    need_number(
        s,
        at,
        "use MinLength/MaxLength for strings, MinItems/MaxItems for lists",
    )?;
    if type_of(s) == "integer" && f.fract() != 0.0 {
        return Err((
            format!(
                "cannot apply non-integral {} ({f}) to an integer",
                at.short.to_lowercase()
            ),
            None,
        ));
    }
    s.insert(key.into(), MarkerValue::Number(f).to_json());
    Ok(())
}

/// Whether Maximum or Minimum excludes its own value.
fn set_exclusive(s: &mut Schema, key: &str, on: bool, at: &Applying) -> Result<(), ApplyErr> {
    need_number(s, at, "only numbers have exclusive bounds")?;
    set_flag(s, key, on);
    Ok(())
}
