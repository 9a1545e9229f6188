//! Lengths of lists: MaxItems, MinItems, UniqueItems.

use super::target::{ApplyErr, Applying, found, need, set_int, type_of};
use crate::schema::node::Schema;
use rkb_markers::ListMarker;

pub fn apply(m: &ListMarker, s: &mut Schema, at: &Applying) -> Result<(), ApplyErr> {
    need(
        type_of(s) == "array",
        format!("{} applies to lists, found {}", at.short, found(s)),
        "use it on a Vec field",
    )?;
    match m {
        ListMarker::MaxItems(n) => set_int(s, "maxItems", *n),
        ListMarker::MinItems(n) => set_int(s, "minItems", *n),
        ListMarker::UniqueItems(unique) => {
            if *unique {
                // controller-gen writes it, but the API server refuses the CRD ("uniqueItems cannot be set to
                // true since the runtime complexity becomes quadratic").
                return Err((
                    "UniqueItems=true makes the API server refuse the CRD (quadratic validation cost)".into(),
                    Some("use `+listType=set` for a list of unique items".into()),
                ));
            }
            s.remove("uniqueItems");
        }
    }
    Ok(())
}
