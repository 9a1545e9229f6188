//! Defaults the API server refuses. It prunes each `default` with the schema it sits in (a field the schema does not
//! know is refused, not dropped), then validates it as written against that schema (the defaults of the fields
//! inside it are not applied first: an object default must hold its required fields itself).
//! This checks the same before anything is written: type (and int-or-string), enum, numeric bounds, string
//! lengths, `pattern`, every `format` the API server validates (formats.rs; int32 here), item and property
//! counts, unknown and missing required fields, recursively; then, on a default that passes those, the CEL rules
//! (`x-kubernetes-validations`) of its node and of the nodes inside it, with cel/eval.rs. A rule rkb cannot
//! evaluate is a warning at the default marker.
//! Reported at the default marker, found through the node's provenance (the field or type that made it, whatever
//! wraps it: `Option`, `Arc`, a list), with the schema path.
//!
//! Patterns are read with the `regex` crate, whose syntax is RE2's like Go's regexp, which the API server uses; a
//! pattern it cannot read is not checked here.

use rkb_markers::Diagnostic;
use serde_json::{Map, Value};

use crate::cel::eval::{Stop, Val};
use crate::check::{Checker, Version};
use crate::model::item_markers::ItemMarkers;
use crate::schema::node::{NodeSchema, Provenance, Schema};
use crate::schema::shared::SharedSchemas;

/// What is wrong with a default, or left unchecked.
enum Finding {
    /// The default breaks its node's type or validation markers.
    Refused(String),
    /// A CEL rule is false (or fails) for the default.
    RuleFails(String),
    /// A CEL rule rkb does not evaluate: the rule, and what in it (or its value) rkb does not evaluate.
    RuleUnchecked(String, String),
}

/// Check rule (check/mod.rs): every `default` in the version's schema is one the API server accepts.
pub fn defaults_are_accepted(cx: &mut Checker<'_>, v: &Version<'_>) {
    let mut findings = Vec::new();
    walk(cx.shared, v.schema, ".", &mut findings);
    let model = cx.model;
    let name = &model.types[v.ty].name;
    for (path, provenance, finding) in findings {
        // At the marker that wrote the default (on the field or its type); a default no marker of the project
        // wrote (there is none today) at the kind.
        let at = provenance
            .marker(model, ItemMarkers::default_at)
            .unwrap_or_else(|| model.type_at(v.ty));
        let refused = format!(
            "the {} schema of `{name}` has a default the API server refuses at `{path}`",
            v.name
        );
        match finding {
            Finding::Refused(problem) => cx.error(
                at,
                format!("{refused}: {problem}"),
                "make the `+kubebuilder:default` value fit the field's type and validation markers; an object \
                 default names only the object's fields and gives each required field a value itself",
            ),
            Finding::RuleFails(problem) => cx.error(
                at,
                format!("{refused}: {problem}"),
                "change the default or the rule: the API server evaluates the CEL rules of the default's field, \
                 and of the fields inside the default, on the default",
            ),
            // Once per default marker and rule, whatever the version or the use of the type.
            Finding::RuleUnchecked(rule, reason) => cx.report(
                model
                    .locate(
                        at,
                        Diagnostic::warning(format!(
                            "rkb did not check this default against the CEL rule `{rule}`: it does not evaluate \
                             {reason}; the API server does when the CRD is installed, and refuses the CRD if the \
                             rule is false for the default"
                        )),
                    )
                    .with_hint(
                        "make sure the default satisfies the rule, e.g. by installing the CRD in a test API server \
                         (envtest)",
                    ),
            ),
        }
    }
}

/// Collects the problem of each default in `s` and below (shared k8s sub-schemas have none of ours). The CEL
/// rules are evaluated only on a default that passes the rest, as the API server does.
fn walk(
    shared: &SharedSchemas,
    s: &Schema,
    path: &str,
    out: &mut Vec<(String, Provenance, Finding)>,
) {
    if let Some(d) = s.get("default") {
        match value_problem(shared, s, d) {
            Some(problem) => out.push((path.to_string(), s.provenance, Finding::Refused(problem))),
            None => out.extend(
                rule_findings(shared, s, d)
                    .into_iter()
                    .map(|f| (path.to_string(), s.provenance, f)),
            ),
        }
    }
    crate::check::for_each_own_child(s, path, &mut |c, p| walk(shared, c, &p, out));
}

/// Why `v` does not validate against `s` (whose references `shared` resolves), if it does not.
fn value_problem(shared: &SharedSchemas, s: &Schema, v: &Value) -> Option<String> {
    type_problem(s, v)
        .or_else(|| enum_problem(s, v))
        .or_else(|| bounds_problem(s, v))
        .or_else(|| pattern_problem(s, v))
        .or_else(|| format_problem(s, v))
        .or_else(|| match v {
            Value::Array(items) => items_problem(shared, s, items),
            Value::Object(fields) => fields_problem(shared, s, fields),
            _ => None,
        })
}

fn type_problem(s: &Schema, v: &Value) -> Option<String> {
    if s.get("x-kubernetes-int-or-string") == Some(&Value::Bool(true)) {
        let fits = v.is_i64() || v.is_u64() || v.is_string();
        return (!fits).then(|| format!("{} is neither an integer nor a string", short(v)));
    }
    let t = s.get("type").and_then(Value::as_str)?;
    let fits = match t {
        "string" => v.is_string(),
        "integer" => v.is_i64() || v.is_u64(),
        "number" => v.is_number(),
        "boolean" => v.is_boolean(),
        "array" => v.is_array(),
        "object" => v.is_object(),
        _ => true,
    };
    (!fits).then(|| format!("{} is not of type {t}", short(v)))
}

fn pattern_problem(s: &Schema, v: &Value) -> Option<String> {
    let (pattern, text) = (s.get("pattern")?.as_str()?, v.as_str()?);
    let matches = regex::Regex::new(pattern).ok()?.is_match(text);
    (!matches).then(|| format!("{} does not match the pattern `{pattern}`", short(v)))
}

/// A string default against its node's `format` (formats.rs: each format the API server validates), an integer
/// against int32.
fn format_problem(s: &Schema, v: &Value) -> Option<String> {
    let format = s.get("format")?.as_str()?;
    let fits = match (format, v) {
        ("int32", Value::Number(n)) => n.as_i64().is_some_and(|i| i32::try_from(i).is_ok()),
        (_, Value::String(text)) => crate::check::formats::string_has_format(format, text)?,
        _ => return None,
    };
    (!fits).then(|| format!("{} is not a valid {format}", short(v)))
}

fn enum_problem(s: &Schema, v: &Value) -> Option<String> {
    let Some(Value::Array(allowed)) = s.get("enum") else {
        return None;
    };
    (!allowed.contains(v)).then(|| {
        let list: Vec<String> = allowed.iter().map(short).collect();
        format!("{} is not one of {}", short(v), list.join(", "))
    })
}

/// minimum/maximum (and exclusive), minLength/maxLength, minItems/maxItems, minProperties/maxProperties.
fn bounds_problem(s: &Schema, v: &Value) -> Option<String> {
    let bound = |k: &str| s.get(k).and_then(Value::as_f64);
    if let Some(x) = v.as_f64() {
        let exclusive = |k: &str| s.get(k) == Some(&Value::Bool(true));
        if let Some(min) = bound("minimum")
            && (x < min || (exclusive("exclusiveMinimum") && x == min))
        {
            return Some(format!("{} is below the minimum {min}", short(v)));
        }
        if let Some(max) = bound("maximum")
            && (x > max || (exclusive("exclusiveMaximum") && x == max))
        {
            return Some(format!("{} is above the maximum {max}", short(v)));
        }
    }
    let count = match v {
        Value::String(t) => Some(("Length", t.chars().count())),
        Value::Array(a) => Some(("Items", a.len())),
        Value::Object(o) => Some(("Properties", o.len())),
        _ => None,
    };
    let (what, n) = count?;
    let n = n as f64;
    if let Some(min) = bound(&format!("min{what}"))
        && n < min
    {
        return Some(format!("{} is shorter than min{what} {min}", short(v)));
    }
    if let Some(max) = bound(&format!("max{what}"))
        && n > max
    {
        return Some(format!("{} is longer than max{what} {max}", short(v)));
    }
    None
}

fn items_problem(shared: &SharedSchemas, s: &Schema, items: &[Value]) -> Option<String> {
    let schema = shared.schema_of(s.items.as_deref()?);
    items.iter().enumerate().find_map(|(i, item)| {
        value_problem(shared, &schema, item).map(|p| format!("item {i}: {p}"))
    })
}

/// Unknown fields (pruning would drop them, so the API server refuses), then required fields, then each field's
/// value. Required fields must be in the default as written: the API server validates it without applying the
/// defaults of the fields inside it (`default: {}` over a required field with a default of its own is refused).
fn fields_problem(
    shared: &SharedSchemas,
    s: &Schema,
    fields: &Map<String, Value>,
) -> Option<String> {
    let known = |k: &String| s.properties.as_ref().is_some_and(|p| p.contains_key(k));
    let additional = s.additional_properties.is_some();
    let preserves = s.get("x-kubernetes-preserve-unknown-fields") == Some(&Value::Bool(true));
    if !additional
        && !preserves
        && s.contains_key("properties")
        && let Some(unknown) = fields.keys().find(|k| !known(k))
    {
        return Some(format!("`{unknown}` is not a field of this object"));
    }
    let required = s
        .get("required")
        .and_then(Value::as_array)
        .into_iter()
        .flatten();
    if let Some(missing) = required
        .filter_map(Value::as_str)
        .find(|r| !fields.contains_key(*r))
    {
        return Some(format!("required field `{missing}` is missing"));
    }
    fields.iter().find_map(|(k, value)| {
        let schema = field_schema(shared, s, k)?;
        value_problem(shared, &schema, value).map(|p| format!("`{k}`: {p}"))
    })
}

/// The findings of the CEL rules of `s` and of the nodes inside `d` on default `d`. As the API server: `self`
/// is the default as written (the nested defaults inside it are not applied first), and so is `oldSelf` (it
/// passes the default as the old object too, so transition rules are evaluated with `oldSelf == self`).
fn rule_findings(shared: &SharedSchemas, s: &Schema, d: &Value) -> Vec<Finding> {
    let mut findings = Vec::new();
    rule_runs(shared, s, d, "", &mut findings);
    findings
}

/// Evaluates the rules of `s` on `v`, then of the nodes inside `v` on their values; each problem text starts with
/// `at` (`\`port\`: `, `item 0: `), as value_problem's do.
fn rule_runs(shared: &SharedSchemas, s: &Schema, v: &Value, at: &str, out: &mut Vec<Finding>) {
    let rules = s.get("x-kubernetes-validations").and_then(Value::as_array);
    for r in rules.into_iter().flatten() {
        let Some(rule) = r.get("rule").and_then(Value::as_str) else {
            continue;
        };
        let answer = match (to_cel(shared, s, v), crate::cel::parse(rule)) {
            (_, Err(_)) => Err(Stop::Unknown("a rule that does not parse".into())),
            (Err(reason), _) => Err(Stop::Unknown(reason)),
            _ if r.get("optionalOldSelf") == Some(&Value::Bool(true)) => {
                Err(Stop::Unknown("rules with `optionalOldSelf`".into()))
            }
            (Ok(this), Ok(expr)) => {
                let mut vars = vec![
                    ("self".to_string(), this.clone()),
                    ("oldSelf".to_string(), this),
                ];
                crate::cel::eval::eval(&expr, &mut vars)
            }
        };
        let message = r
            .get("message")
            .and_then(Value::as_str)
            .map(|m| format!(" (its message: {m:?})"))
            .unwrap_or_default();
        let unchecked = |what: String| Finding::RuleUnchecked(rule.to_string(), what);
        out.push(match answer {
            Ok(Val::Bool(true)) => continue,
            Ok(Val::Bool(false)) => Finding::RuleFails(format!(
                "{at}the CEL rule `{rule}` is false for {}{message}",
                short(v)
            )),
            Err(Stop::Error(e)) => Finding::RuleFails(format!(
                "{at}the CEL rule `{rule}` fails for {}: {e}{message}",
                short(v)
            )),
            Err(Stop::Unknown(what)) => unchecked(what),
            Ok(_) => unchecked("a rule whose value is not a boolean".into()),
        });
    }
    match v {
        Value::Array(items) => {
            if let Some(schema) = s.items.as_deref().map(|n| shared.schema_of(n)) {
                for (i, item) in items.iter().enumerate() {
                    rule_runs(shared, &schema, item, &format!("{at}item {i}: "), out);
                }
            }
        }
        Value::Object(fields) => {
            for (k, value) in fields {
                if let Some(schema) = field_schema(shared, s, k) {
                    rule_runs(shared, &schema, value, &format!("{at}`{k}`: "), out);
                }
            }
        }
        _ => {}
    }
}

/// The schema of field `k` of object schema `s`: its property, or the additional properties.
fn field_schema<'s>(shared: &SharedSchemas, s: &'s Schema, k: &str) -> Option<NodeSchema<'s>> {
    let prop = s.properties.as_ref().and_then(|p| p.get(k));
    let node = prop.or(s.additional_properties.as_deref())?;
    Some(shared.schema_of(node))
}

/// `v` as the CEL value the API server makes of it with schema `s`; `Err` names what rkb does not evaluate.
fn to_cel(shared: &SharedSchemas, s: &Schema, v: &Value) -> Result<Val, String> {
    let flag = |k: &str| s.get(k) == Some(&Value::Bool(true));
    if flag("x-kubernetes-preserve-unknown-fields") || flag("x-kubernetes-embedded-resource") {
        return Err("objects with unknown fields or embedded resources".into());
    }
    let int_or_string = flag("x-kubernetes-int-or-string");
    let ty = s.get("type").and_then(Value::as_str);
    Ok(match (ty, v) {
        (_, Value::String(text)) if int_or_string => Val::Str(text.clone()),
        (_, Value::Number(n)) if int_or_string => Val::Int(n.as_i64().ok_or("this number")?),
        (Some("string"), Value::String(text)) => {
            // These formats are bytes, timestamps and durations in CEL.
            if let Some(f @ ("byte" | "date" | "date-time" | "duration")) =
                s.get("format").and_then(Value::as_str)
            {
                return Err(format!("strings of format {f}"));
            }
            Val::Str(text.clone())
        }
        (Some("integer"), Value::Number(n)) => Val::Int(n.as_i64().ok_or("this number")?),
        (Some("number"), Value::Number(n)) => Val::Double(n.as_f64().ok_or("this number")?),
        (Some("boolean"), Value::Bool(b)) => Val::Bool(*b),
        (Some("array"), Value::Array(items)) => {
            let schema = shared.schema_of(s.items.as_deref().ok_or("this list")?);
            let ordered = !matches!(
                s.get("x-kubernetes-list-type").and_then(Value::as_str),
                Some("set" | "map")
            );
            let items = items
                .iter()
                .map(|i| to_cel(shared, &schema, i))
                .collect::<Result<_, _>>()?;
            Val::List(items, ordered)
        }
        (Some("object"), Value::Object(fields)) => {
            let mut entries = Vec::new();
            for (k, value) in fields {
                let schema = field_schema(shared, s, k).ok_or("this object")?;
                entries.push((Val::Str(k.clone()), to_cel(shared, &schema, value)?));
            }
            Val::Map(entries)
        }
        _ => return Err("this value".into()),
    })
}

/// `v` as JSON, cut short.
fn short(v: &Value) -> String {
    let text = v.to_string();
    if text.chars().count() <= 40 {
        return text;
    }
    let cut: String = text.chars().take(37).collect();
    format!("{cut}...")
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn problem(schema: Value, v: Value) -> Option<String> {
        value_problem(&SharedSchemas::new(), &Schema::from_value(schema), &v)
    }

    #[test]
    fn defaults_are_held_to_their_schema() {
        assert_eq!(
            problem(json!({"type": "integer"}), json!("three")),
            Some("\"three\" is not of type integer".into())
        );
        assert_eq!(problem(json!({"type": "integer"}), json!(3)), None);
        assert_eq!(
            problem(json!({"x-kubernetes-int-or-string": true}), json!("50%")),
            None
        );
        assert_eq!(
            problem(
                json!({"type": "string", "enum": ["Allow", "Forbid"]}),
                json!("Sometimes")
            ),
            Some("\"Sometimes\" is not one of \"Allow\", \"Forbid\"".into())
        );
        assert_eq!(
            problem(json!({"type": "integer", "maximum": 10}), json!(11)),
            Some("11 is above the maximum 10".into())
        );
        assert_eq!(
            problem(
                json!({"type": "integer", "minimum": 0, "exclusiveMinimum": true}),
                json!(0)
            ),
            Some("0 is below the minimum 0".into())
        );
        assert_eq!(
            problem(json!({"type": "string", "maxLength": 2}), json!("abc")),
            Some("\"abc\" is longer than maxLength 2".into())
        );
        assert_eq!(
            problem(
                json!({"type": "array", "items": {"type": "string"}}),
                json!(["a", 1])
            ),
            Some("item 1: 1 is not of type string".into())
        );
    }

    #[test]
    fn object_defaults_name_known_fields_and_fill_the_required_ones() {
        let object = json!({
            "type": "object",
            "properties": {
                "name": {"type": "string"},
                "port": {"type": "integer", "default": 80},
                "tls": {"type": "boolean"}
            },
            "required": ["name", "port"]
        });
        assert_eq!(
            problem(object.clone(), json!({"name": "web", "port": 80})),
            None
        );
        // `port`'s own default does not count: the API server validates the default as written.
        assert_eq!(
            problem(object.clone(), json!({"name": "web"})),
            Some("required field `port` is missing".into())
        );
        assert_eq!(
            problem(object.clone(), json!({"name": "web", "colour": "red"})),
            Some("`colour` is not a field of this object".into())
        );
        assert_eq!(
            problem(object.clone(), json!({})),
            Some("required field `name` is missing".into())
        );
        assert_eq!(
            problem(object, json!({"name": "web", "port": 80, "tls": "yes"})),
            Some("`tls`: \"yes\" is not of type boolean".into())
        );
        let map = json!({"type": "object", "additionalProperties": {"type": "integer"}});
        assert_eq!(problem(map.clone(), json!({"a": 1})), None);
        assert_eq!(
            problem(map, json!({"a": "x"})),
            Some("`a`: \"x\" is not of type integer".into())
        );
        let open = json!({"type": "object", "x-kubernetes-preserve-unknown-fields": true, "properties": {}});
        assert_eq!(problem(open, json!({"anything": 1})), None);
    }

    fn rules(schema: Value, v: Value) -> Vec<String> {
        rule_findings(&SharedSchemas::new(), &Schema::from_value(schema), &v)
            .into_iter()
            .map(|f| match f {
                Finding::RuleFails(p) => p,
                Finding::RuleUnchecked(rule, why) => format!("unchecked `{rule}`: {why}"),
                Finding::Refused(p) => p,
            })
            .collect()
    }

    #[test]
    fn defaults_are_held_to_the_cel_rules_inside_them() {
        let range = json!({
            "type": "object",
            "properties": {
                "min": {"type": "integer", "default": 0, "x-kubernetes-validations": [{"rule": "self >= 0"}]},
                "max": {"type": "integer"}
            },
            "x-kubernetes-validations": [{"rule": "self.min <= self.max", "message": "min is at most max"}]
        });
        assert_eq!(
            rules(range.clone(), json!({"min": 1, "max": 2})),
            Vec::<String>::new()
        );
        assert_eq!(
            rules(range.clone(), json!({"min": -3, "max": -2})),
            ["`min`: the CEL rule `self >= 0` is false for -3"]
        );
        // The nested defaults are not applied first (the API server's way): `min` is missing.
        assert_eq!(
            rules(range, json!({"max": 2})),
            [
                "the CEL rule `self.min <= self.max` fails for {\"max\":2}: no such key: min (its message: \"min is at most max\")"
            ]
        );
        // Transition rules run with oldSelf = the default, as the API server runs them.
        let counter =
            |rule: &str| json!({"type": "integer", "x-kubernetes-validations": [{"rule": rule}]});
        assert_eq!(
            rules(counter("self == oldSelf"), json!(1)),
            Vec::<String>::new()
        );
        assert_eq!(
            rules(counter("self > oldSelf"), json!(1)),
            ["the CEL rule `self > oldSelf` is false for 1"]
        );
        assert_eq!(
            rules(counter("self.isInteger()"), json!(1)),
            ["unchecked `self.isInteger()`: the function `isInteger`"]
        );
        let when = json!({"type": "string", "format": "date-time", "x-kubernetes-validations": [{"rule": "self != ''"}]});
        assert_eq!(
            rules(when, json!("2026-11-25T07:30:00Z")),
            ["unchecked `self != ''`: strings of format date-time"]
        );
    }

    #[test]
    fn string_defaults_match_their_pattern_and_format() {
        let lower = json!({"type": "string", "pattern": "^[a-z]+$"});
        assert_eq!(problem(lower.clone(), json!("web")), None);
        assert_eq!(
            problem(lower, json!("Web_1")),
            Some("\"Web_1\" does not match the pattern `^[a-z]+$`".into())
        );
        let unreadable = json!({"type": "string", "pattern": "(?<=a)b"});
        assert_eq!(problem(unreadable, json!("b")), None, "not checked");
        for (format, good, bad) in [
            ("date-time", "2026-11-25T07:30:00Z", "yesterday"),
            ("date-time", "2026-11-25T07:30:00.5+01:00", "2026-11-25"),
            ("date", "2026-02-28", "2026-13-01"),
            ("byte", "aGVsbG8=", "not base64!"),
            ("uuid", "123e4567-e89b-12d3-a456-426614174000", "123e4567"),
            ("ipv4", "10.0.0.1", "10.0.0.256"),
            ("ipv6", "::1", "10.0.0.1"),
        ] {
            let schema = json!({"type": "string", "format": format});
            assert_eq!(
                problem(schema.clone(), json!(good)),
                None,
                "{format} {good}"
            );
            assert_eq!(
                problem(schema, json!(bad)),
                Some(format!("\"{bad}\" is not a valid {format}")),
                "{format}"
            );
        }
        let int32 = json!({"type": "integer", "format": "int32"});
        assert_eq!(problem(int32.clone(), json!(7)), None);
        assert_eq!(
            problem(int32, json!(4_294_967_296_u64)),
            Some("4294967296 is not a valid int32".into())
        );
        let hostname = json!({"type": "string", "format": "hostname"});
        assert_eq!(
            problem(hostname, json!("not a host!")),
            Some("\"not a host!\" is not a valid hostname".into())
        );
        // A format the API server does not validate is not checked.
        let unknown = json!({"type": "string", "format": "colour"});
        assert_eq!(
            problem(unknown, json!("not a colour!")),
            None,
            "not checked"
        );
    }
}
