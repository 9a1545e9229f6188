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
mod topology;
mod value;

use crate::schema::Schema;
use rkb_markers::{RuleMarker, SchemaMarker, TopologyMarker, ValueMarker};
use serde_json::{Value, json};

/// Why a marker does not apply: the message and an optional hint.
pub type ApplyErr = (String, Option<String>);

/// What a marker is applied with.
pub struct Applying<'a> {
    /// The marker's name (`kubebuilder:validation:items:Maximum`).
    pub name: &'static str,
    /// Its last name segment, as messages name it (`Maximum`, `listType`).
    pub short: &'static str,
    /// The unit variants of the enum the marker is on (for `+k8s:enum`).
    pub enum_values: Option<&'a [String]>,
}

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

/// The schema's `type`, or "" when it has none (a reference, or int-or-string).
fn type_of(s: &Schema) -> &str {
    s.get("type").and_then(Value::as_str).unwrap_or("")
}

/// The schema's type as messages say it.
fn found(s: &Schema) -> String {
    match type_of(s) {
        "" => "no type (a struct or k8s type)".to_string(),
        t => format!("type {t}"),
    }
}

/// Ok when `fits`, else the message and hint.
fn need(fits: bool, msg: String, hint: &str) -> Result<(), ApplyErr> {
    if fits {
        Ok(())
    } else {
        Err((msg, Some(hint.to_string())))
    }
}

/// Sets `key` to an integer.
fn set_int(s: &mut Schema, key: &str, value: i64) {
    s.insert(key.into(), json!(value));
}

/// Sets `key: true` when the marker's bool is true, else removes it (false is the default and Go omits it).
fn set_flag(s: &mut Schema, key: &str, on: bool) {
    if on {
        s.insert(key.into(), json!(true));
    } else {
        s.remove(key);
    }
}
