//! How each schema marker ([`SchemaMarker`]) changes a schema: its order of application, its check against
//! the schema it lands on, and its effect. One file per concern, as controller-tools groups its markers;
//! every match is exhaustive, so a marker added to the vocabulary without an effect does not compile.
//!
//! Contract: [`apply`] gets the schema of the field or type (or a list's items) as generated so far, with
//! the markers that come earlier in [`order`] already applied; it either changes the schema or returns the
//! reason the marker does not fit, leaving the schema as it was.

mod list;
mod number;
mod object;
mod rule;
mod string;
mod target;
mod topology;
mod value;

use crate::schema::node::Schema;
use rkb_markers::{RuleMarker, SchemaMarker, TopologyMarker, ValueMarker};

pub use target::{ApplyErr, Applying};

/// controller-gen's ApplyPriority: the type-shaping markers first, the OneOf rules after every XValidation.
pub fn order(marker: &SchemaMarker) -> i32 {
    match marker {
        SchemaMarker::Value(
            ValueMarker::Type(_) | ValueMarker::IntOrString | ValueMarker::DefaultJson(_),
        )
        | SchemaMarker::Topology(TopologyMarker::ListType(_)) => 9,
        SchemaMarker::Rule(RuleMarker::AtMostOneOf(_)) => 11,
        SchemaMarker::Rule(RuleMarker::ExactlyOneOf(_)) => 12,
        SchemaMarker::Rule(RuleMarker::AtLeastOneOf(_)) => 13,
        SchemaMarker::Number(_)
        | SchemaMarker::String(_)
        | SchemaMarker::List(_)
        | SchemaMarker::Object(_)
        | SchemaMarker::Value(_)
        | SchemaMarker::Rule(_)
        | SchemaMarker::Topology(_) => 10,
    }
}

/// Applies one schema marker to `s`.
pub fn apply(marker: &SchemaMarker, s: &mut Schema, at: &Applying) -> Result<(), ApplyErr> {
    match marker {
        SchemaMarker::Number(m) => number::apply(m, s, at),
        SchemaMarker::String(m) => string::apply(m, s, at),
        SchemaMarker::List(m) => list::apply(m, s, at),
        SchemaMarker::Object(m) => object::apply(m, s, at),
        SchemaMarker::Value(m) => value::apply(m, s, at),
        SchemaMarker::Rule(m) => rule::apply(m, s, at),
        SchemaMarker::Topology(m) => topology::apply(m, s, at),
    }
}
