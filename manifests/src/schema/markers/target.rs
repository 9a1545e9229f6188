//! What every schema marker's file (markers/mod.rs dispatches to one per concern) works with: what the marker is
//! applied with, why it does not fit, and the schema it lands on (its type, as messages say it; the keywords it
//! sets).

use crate::schema::node::Schema;
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

/// The schema's `type`, or "" when it has none (a reference, or int-or-string).
pub(super) fn type_of(s: &Schema) -> &str {
    s.get("type").and_then(Value::as_str).unwrap_or("")
}

/// The schema's type as messages say it.
pub(super) fn found(s: &Schema) -> String {
    match type_of(s) {
        "" => "no type (a struct or k8s type)".to_string(),
        t => format!("type {t}"),
    }
}

/// Ok when `fits`, else the message and hint.
pub(super) fn need(fits: bool, msg: String, hint: &str) -> Result<(), ApplyErr> {
    if fits {
        Ok(())
    } else {
        Err((msg, Some(hint.to_string())))
    }
}

/// Sets `key` to an integer.
pub(super) fn set_int(s: &mut Schema, key: &str, value: i64) {
    s.insert(key.into(), json!(value));
}

/// Sets `key: true` when the marker's bool is true, else removes it (false is the default and Go omits it).
pub(super) fn set_flag(s: &mut Schema, key: &str, on: bool) {
    if on {
        s.insert(key.into(), json!(true));
    } else {
        s.remove(key);
    }
}
