//! CEL rules (`x-kubernetes-validations`): XValidation (checked by rkb's CEL parser and the API server's
//! rules for reasons and optionalOldSelf), the OneOf family, and `+k8s:immutable`.

use super::target::{ApplyErr, Applying};
use crate::schema::node::Schema;
use rkb_markers::{RuleMarker, XValidation};
use serde_json::{Value, json};

pub fn apply(m: &RuleMarker, s: &mut Schema, at: &Applying) -> Result<(), ApplyErr> {
    match m {
        RuleMarker::XValidation(x) => x_validation(s, x)?,
        RuleMarker::AtMostOneOf(f) => one_of(s, f, at, ("<= 1", "at most one", "may"))?,
        RuleMarker::ExactlyOneOf(f) => one_of(s, f, at, ("== 1", "exactly one", "must"))?,
        RuleMarker::AtLeastOneOf(f) => one_of(s, f, at, (">= 1", "at least one", "must"))?,
        RuleMarker::Immutable => push_rule(
            s,
            json!({"rule": "self == oldSelf", "message": "field is immutable"}),
        ),
    }
    Ok(())
}

/// The reasons the API server accepts on a rule.
const REASONS: [&str; 4] = [
    "FieldValueRequired",
    "FieldValueInvalid",
    "FieldValueForbidden",
    "FieldValueDuplicate",
];

fn x_validation(s: &mut Schema, x: &XValidation) -> Result<(), ApplyErr> {
    let text = x.rule.as_str();
    if let Err(e) = crate::cel::check(text) {
        return Err((
            format!(
                "CEL rule does not parse: {} (column {} of the rule)",
                e.message, e.col
            ),
            Some("see https://kubernetes.io/docs/reference/using-api/cel/".into()),
        ));
    }
    let mut rule = serde_json::Map::new();
    rule.insert("rule".into(), json!(text));
    let texts = [
        ("message", &x.message),
        ("messageExpression", &x.message_expression),
        ("fieldPath", &x.field_path),
    ];
    for (key, value) in texts {
        if let Some(v) = value.as_ref().filter(|v| !v.is_empty()) {
            rule.insert(key.into(), json!(v));
        }
    }
    if let Some(reason) = x.reason.as_deref().filter(|r| !r.is_empty()) {
        if !REASONS.contains(&reason) {
            return Err((
                format!("invalid reason `{reason}`"),
                Some(format!("valid reasons: {}", REASONS.join(", "))),
            ));
        }
        rule.insert("reason".into(), json!(reason));
    }
    if let Some(b) = x.optional_old_self {
        check_optional_old_self(text, b)?;
        rule.insert("optionalOldSelf".into(), json!(b));
    }
    push_rule(s, Value::Object(rule));
    Ok(())
}

/// The API server refuses optionalOldSelf on a rule without oldSelf; with it true, oldSelf is an optional.
fn check_optional_old_self(rule: &str, optional: bool) -> Result<(), ApplyErr> {
    if !uses_old_self(rule) {
        return Err((
            "optionalOldSelf may not be set when the rule does not use oldSelf (the API server refuses it)".into(),
            Some("drop optionalOldSelf, or write a transition rule, e.g. `!oldSelf.hasValue() || self >= oldSelf.value()`".into()),
        ));
    }
    if optional && let Some(col) = bare_old_self(rule) {
        return Err((
            format!("with optionalOldSelf=true, `oldSelf` is an optional value (column {col} of the rule)"),
            Some("use oldSelf.hasValue(), oldSelf.value() or oldSelf.orValue(...), e.g. `!oldSelf.hasValue() || self >= oldSelf.value()`".into()),
        ));
    }
    Ok(())
}

/// A rule on how many of the marker's fields are set: `op` compares their count (`<= 1`); `how_many` and `modal`
/// word its message ("at most one", "may").
fn one_of(
    s: &mut Schema,
    fields: &[String],
    at: &Applying,
    (op, how_many, modal): (&str, &str, &str),
) -> Result<(), ApplyErr> {
    let short = at.short;
    let nested: Vec<&str> = fields
        .iter()
        .map(String::as_str)
        .filter(|f| f.contains('.'))
        .collect();
    if !nested.is_empty() {
        return Err((
            format!(
                "{short}: cannot reference nested fields: {}",
                nested.join(", ")
            ),
            Some(nested_fields_hint(at.name, fields)),
        ));
    }
    if fields.is_empty() {
        return Ok(());
    }
    let list = format!("[{}]", fields.join(" "));
    let msg = format!("{how_many} of the fields in {list} {modal} be set");
    push_rule(s, json!({"rule": one_of_rule(fields, op), "message": msg}));
    Ok(())
}

/// Where a OneOf marker (`name`) over nested `fields` goes instead: its rule counts the fields of the object it is
/// on. Fields of one nested object: on that object's type, with their own names. Fields of several objects (or of
/// this one and a nested one) are no OneOf of any one type: an XValidation rule of the type says it.
fn nested_fields_hint(name: &str, fields: &[String]) -> String {
    let split: Vec<Option<(&str, &str)>> = fields.iter().map(|f| f.rsplit_once('.')).collect();
    let parent = split[0].map(|(parent, _)| parent);
    if let Some(parent) = parent
        && split.iter().all(|s| s.map(|(p, _)| p) == Some(parent))
    {
        let own: Vec<&str> = split.iter().flatten().map(|(_, field)| *field).collect();
        return format!(
            "a OneOf marker counts the fields of the type it is on: put `+{name}={}` on the type of `{parent}` \
             instead, naming the fields as they are there",
            own.join(";")
        );
    }
    "a OneOf marker counts the fields of the type it is on, named as they are there: move it to the type that holds \
     them all, or write the rule with `+kubebuilder:validation:XValidation` on this type"
        .into()
}

/// The CEL rule counting how many of `fields` are set, compared with `op` (`<= 1`).
fn one_of_rule(fields: &[String], op: &str) -> String {
    let list: Vec<String> = fields.iter().map(|f| format!("has(self.{f})")).collect();
    format!("[{}].filter(x,x==true).size() {op}", list.join(","))
}

/// Whether the rule mentions `oldSelf` (outside string literals).
fn uses_old_self(rule: &str) -> bool {
    old_self_uses(rule).next().is_some()
}

/// Character indexes of every `oldSelf` identifier outside string literals.
fn old_self_uses(rule: &str) -> impl Iterator<Item = usize> {
    let chars: Vec<char> = rule.chars().collect();
    let mut found = Vec::new();
    let mut quote: Option<char> = None;
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        if let Some(q) = quote {
            if c == '\\' {
                i += 2;
                continue;
            }
            if c == q {
                quote = None;
            }
            i += 1;
            continue;
        }
        if c == '"' || c == '\'' {
            quote = Some(c);
            i += 1;
            continue;
        }
        let word_start = i == 0
            || !(chars[i - 1].is_alphanumeric() || chars[i - 1] == '_' || chars[i - 1] == '.');
        let ends = chars
            .get(i + 7)
            .is_none_or(|c| !(c.is_alphanumeric() || *c == '_'));
        if word_start && chars[i..].starts_with(&['o', 'l', 'd', 'S', 'e', 'l', 'f']) && ends {
            found.push(i);
            i += 7;
            continue;
        }
        i += 1;
    }
    found.into_iter()
}

/// The 1-based column of the first `oldSelf` in `rule` not used as an optional (`.hasValue()`, `.value()`,
/// `.orValue(`, `.optMap(`, `.optFlatMap(`), outside string literals.
fn bare_old_self(rule: &str) -> Option<usize> {
    const OPTIONAL_USES: [&str; 5] = [
        ".hasValue()",
        ".value()",
        ".orValue(",
        ".optMap(",
        ".optFlatMap(",
    ];
    let chars: Vec<char> = rule.chars().collect();
    old_self_uses(rule)
        .find(|&i| {
            let after: String = chars[i + 7..].iter().collect();
            !OPTIONAL_USES
                .iter()
                .any(|u| after.trim_start().starts_with(u))
        })
        .map(|i| i + 1)
}

/// Appends a CEL rule to `x-kubernetes-validations`.
fn push_rule(s: &mut Schema, rule: Value) {
    let entry = s
        .entry("x-kubernetes-validations")
        .or_insert_with(|| json!([]));
    if let Value::Array(a) = entry {
        a.push(rule);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn optional_old_self_must_be_used_as_an_optional() {
        assert_eq!(
            bare_old_self("!oldSelf.hasValue() || self >= oldSelf.value()"),
            None
        );
        assert_eq!(bare_old_self("self >= oldSelf.orValue(0)"), None);
        assert_eq!(bare_old_self("self >= oldSelf"), Some(9));
        assert_eq!(bare_old_self("'oldSelf' == self || self.oldSelfish"), None);
        assert!(!uses_old_self(
            "'oldSelf' == self || self.oldSelfish || oldSelfish"
        ));
        assert!(uses_old_self("self == oldSelf"));
    }
}
