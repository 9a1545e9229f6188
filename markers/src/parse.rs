//! Parsing one marker line against the registry: name lookup, argument grammar, target and type checks.

use crate::args::ArgReader;
use crate::diag::{Diagnostic, Severity};
use crate::effect::{DeriveMarker, Effect, SchemaMarker, ValueMarker};
use crate::registry::{ArgDef, Args, MarkerDef, Registry, Target};
use crate::value::{ArgType, Cursor, Value, ValueError, parse_value};
use std::path::Path;

/// Where a marker's text sits in its file: `col` is the 1-based character column of the leading `+`.
#[derive(Clone, Copy, Debug)]
pub struct Location<'a> {
    pub file: &'a Path,
    pub line: usize,
    pub col: usize,
    pub source_line: &'a str,
}

/// A span inside a marker line: 1-based line and character column, and a length in characters.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub struct Span {
    pub line: usize,
    pub col: usize,
    pub len: usize,
}

/// One named argument with its value, as the parser read it (the marker's read function takes it from here).
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Arg {
    pub name: &'static str,
    pub value: Value,
}

/// A parsed, vocabulary-checked marker.
#[derive(Clone, Debug, PartialEq)]
pub struct Marker {
    pub def: &'static MarkerDef,
    /// What it does, with the values it was written with.
    pub effect: Effect,
    /// The whole marker text (from `+` to the end of the line, trimmed).
    pub text: String,
    pub span: Span,
}

impl Marker {
    pub fn name(&self) -> &'static str {
        self.def.name
    }

    /// The marker's last name segment, as messages name it (`Minimum` for `+kubebuilder:validation:items:Minimum`).
    pub fn short_name(&self) -> &'static str {
        let name = self.def.name;
        name.rsplit_once(':').map_or(name, |(_, short)| short)
    }

    /// A deep copy marker that turns generation off: `+kubebuilder:object:generate=false` or
    /// `+k8s:deepcopy-gen=false` (without a value, or with `true`/`package`, it stays on).
    pub fn disables_deep_copy(&self) -> bool {
        self.effect == Effect::Derive(DeriveMarker::DeepCopy(false))
    }
}

/// Does this comment text (after `///`, `//!` or `//`) look like a marker? controller-gen's rule: the trimmed
/// text starts with `+`.
pub fn is_marker_text(text: &str) -> bool {
    text.trim_start().starts_with('+')
}

/// The marker a comment text holds, trimmed: a marker text ([`is_marker_text`]) whose `+` is followed by a letter.
/// controller-gen drops every `+` line from descriptions, but only `+name...` can be a marker, so `+1 for this` is
/// dropped without a word. Everything that reads markers from doc lines asks this.
pub fn marker_in(text: &str) -> Option<&str> {
    let text = text.trim();
    text.strip_prefix('+')?
        .starts_with(|c: char| c.is_ascii_alphabetic())
        .then_some(text)
}

/// An Enum marker (on a value or on list items) without values: its list is the values a field may take.
fn lists_no_values(effect: &Effect) -> bool {
    matches!(effect, Effect::Schema(SchemaMarker::Value(ValueMarker::Enum(values)))
        | Effect::ItemsSchema(SchemaMarker::Value(ValueMarker::Enum(values))) if values.is_empty())
}

fn char_col(text: &str, byte_offset: usize, base_col: usize) -> usize {
    base_col + text[..byte_offset.min(text.len())].chars().count()
}

fn char_len(text: &str, offset: usize, len: usize) -> usize {
    let end = (offset + len).min(text.len());
    let start = offset.min(end);
    text.get(start..end)
        .map(|s| s.chars().count())
        .unwrap_or(len)
        .max(1)
}

fn diag_at(
    sev: Severity,
    msg: String,
    text: &str,
    offset: usize,
    len: usize,
    loc: &Location<'_>,
) -> Diagnostic {
    let d = match sev {
        Severity::Error => Diagnostic::error(msg),
        Severity::Warning => Diagnostic::warning(msg),
    };
    d.at(
        loc.file,
        loc.line,
        char_col(text, offset, loc.col),
        char_len(text, offset, len),
    )
    .with_source_line(loc.source_line)
}

/// Parses `text` (starting with `+`, already trimmed) as a marker on `target`.
///
/// Unknown names in the `kubebuilder:`/`k8s:` namespaces, or close to a known name, are errors with a
/// did-you-mean hint; other unknown `+words` are warnings (they may belong to other tools).
// The error is the whole point of most calls that fail and is moved once; boxing buys nothing here.
#[allow(clippy::result_large_err)]
pub fn parse_marker(text: &str, target: Target, loc: &Location<'_>) -> Result<Marker, Diagnostic> {
    let reg = Registry::get();
    let body = text.strip_prefix('+').unwrap_or(text);
    let Some((def, name_len)) = reg.lookup(body) else {
        return Err(unknown(reg, text, body, loc));
    };
    let line = MarkerLine {
        text,
        loc,
        def,
        name_end: 1 + name_len,
    };
    line.check_target(target)?;
    let mut reader = match def.args {
        Args::Flag => {
            line.parse_flag()?;
            ArgReader::reading(None, Vec::new())
        }
        Args::Anonymous { ty, optional } => {
            ArgReader::reading(line.parse_value(ty, optional)?, Vec::new())
        }
        Args::Named(arg_defs) => ArgReader::reading(None, line.parse_args(arg_defs)?),
    };
    let effect = def.effect(&mut reader);
    if lists_no_values(&effect) {
        return Err(line.no_values());
    }
    Ok(Marker {
        def,
        effect,
        text: text.to_string(),
        span: Span {
            line: loc.line,
            col: loc.col,
            len: text.chars().count(),
        },
    })
}

/// One marker's text being parsed against its definition. Offsets are relative to `text` (which has the `+`).
struct MarkerLine<'a> {
    text: &'a str,
    loc: &'a Location<'a>,
    def: &'static MarkerDef,
    /// Where the marker's name ends.
    name_end: usize,
}

// The error is the point of these functions when they fail; boxing buys nothing here.
#[allow(clippy::result_large_err)]
impl MarkerLine<'_> {
    /// A value's error, placed at `base` + its offset.
    fn value_error(&self, e: ValueError, base: usize) -> Diagnostic {
        let mut d = diag_at(
            Severity::Error,
            format!("{} in marker `{}`", e.message, self.def.name),
            self.text,
            base + e.offset,
            e.len,
            self.loc,
        );
        if let Some(h) = e.hint {
            d = d.with_hint(h);
        }
        d
    }

    /// controller-gen silently ignores package markers written on a type or field (the kubebuilder multiversion
    /// tutorial does it): a warning; any other marker on a target it does not describe is an error.
    fn check_target(&self, target: Target) -> Result<(), Diagnostic> {
        let def = self.def;
        if def.targets.contains(target) {
            return Ok(());
        }
        let (sev, msg) = if def.targets == crate::registry::Targets::PACKAGE {
            let msg = format!(
                "package marker `{}` on a {} is ignored",
                self.def.name,
                short_target(target)
            );
            (Severity::Warning, msg)
        } else {
            let msg = format!(
                "marker `{}` cannot be used on a {}",
                self.def.name,
                short_target(target)
            );
            (Severity::Error, msg)
        };
        Err(
            diag_at(sev, msg, self.text, 0, self.name_end, self.loc).with_hint(format!(
                "`+{}` applies to {}",
                self.def.name,
                def.targets.describe()
            )),
        )
    }

    /// A flag marker: nothing may follow its name.
    fn parse_flag(&self) -> Result<(), Diagnostic> {
        let name_end = self.name_end;
        if name_end < self.text.len() {
            let rest = &self.text[name_end..];
            let shown = rest.trim_start_matches('=');
            return Err(diag_at(
                Severity::Error,
                format!(
                    "marker `{}` takes no value, found `{}`",
                    self.def.name, shown
                ),
                self.text,
                name_end,
                rest.len(),
                self.loc,
            )
            .with_hint(format!("write it as `+{}`", self.def.name)));
        }
        Ok(())
    }

    /// Where the `=` before an unnamed value is: `name:ignored=value` (see Registry::lookup) has its value after the
    /// first `=`.
    fn value_sign(&self) -> usize {
        let name_end = self.name_end;
        if self.text[name_end..].starts_with(':') {
            self.text.find('=').unwrap_or(name_end)
        } else {
            name_end
        }
    }

    /// The unnamed value of `+name=value` (`None` when omitted and optional; a bare bool marker means true).
    fn parse_value(&self, ty: ArgType, optional: bool) -> Result<Option<Value>, Diagnostic> {
        let mut value = None;
        let name_end = self.value_sign();
        if name_end >= self.text.len() {
            if ty == ArgType::Bool {
                value = Some(Value::Bool(true));
            } else if !optional {
                return Err(diag_at(
                    Severity::Error,
                    format!("marker `{}` needs a value", self.def.name),
                    self.text,
                    0,
                    name_end,
                    self.loc,
                )
                .with_hint(format!(
                    "write `+{}={}` ({ty})",
                    self.def.name,
                    ty.example()
                )));
            }
        } else {
            let base = name_end + 1; // skip '='
            let src = &self.text[base..];
            let mut cur = Cursor::new(src);
            let mut v = parse_value(&mut cur, ty, false).map_err(|e| self.value_error(e, base))?;
            // client-gen writes unnamed lists with commas (`+genclient:onlyVerbs=create,get`): accept that too.
            if ty == ArgType::StringList
                && let Value::List(items) = &mut v
            {
                while cur.peek_ns() == Some(',') {
                    cur.pos += 1;
                    let more =
                        parse_value(&mut cur, ty, false).map_err(|e| self.value_error(e, base))?;
                    if let Value::List(m) = more {
                        items.extend(m);
                    }
                }
            }
            if !cur.at_end() {
                let at = cur.pos;
                return Err(self
                    .value_error(
                        ValueError::new(
                            at,
                            src.len() - at,
                            format!("unexpected `{}` after the value", &src[at..]),
                        ),
                        base,
                    )
                    .with_hint(format!("`+{}` takes one {}", self.def.name, ty)));
            }
            value = Some(v);
        }
        Ok(value)
    }

    /// An Enum marker whose list is empty: it would allow any value.
    fn no_values(&self) -> Diagnostic {
        let at = self.value_sign();
        diag_at(
            Severity::Error,
            format!("marker `{}` lists no values", self.def.name),
            self.text,
            at,
            self.text.len() - at,
            self.loc,
        )
        .with_hint(format!(
            "an empty enum allows any value (the API server drops `enum: []`): list the allowed values, \
             `+{}=a;b`, or remove the marker",
            self.def.name
        ))
    }

    /// The `name=value` arguments, checked against `arg_defs` (unknown, repeated and missing ones are errors).
    fn parse_args(&self, arg_defs: &'static [ArgDef]) -> Result<Vec<Arg>, Diagnostic> {
        let name_end = self.name_end;
        let mut args: Vec<Arg> = Vec::new();
        // `name:first=v,...`: the dropped last segment is the first argument's name.
        let base =
            if self.text[name_end..].starts_with(':') || self.text[name_end..].starts_with('=') {
                name_end + 1
            } else {
                name_end
            };
        let base = if self.text[name_end..].starts_with('=') && self.text[base..].trim().is_empty()
        {
            self.text.len()
        } else {
            base
        };
        let src = &self.text[base.min(self.text.len())..];
        let base = base.min(self.text.len());
        let mut cur = Cursor::new(src);
        while !cur.at_end() {
            let save = cur.pos;
            let Some((at, name)) = cur.ident() else {
                cur.pos = save;
                return Err(self.value_error(cur.unexpected("an argument name"), base));
            };
            let Some(ad) = arg_defs.iter().find(|a| a.name == name) else {
                return Err(self.unknown_argument(arg_defs, name, base + at));
            };
            if args.iter().any(|a| a.name == ad.name) {
                return Err(diag_at(
                    Severity::Error,
                    format!(
                        "argument `{name}` given twice in marker `{}`",
                        self.def.name
                    ),
                    self.text,
                    base + at,
                    name.len(),
                    self.loc,
                ));
            }
            cur.expect('=', &format!("`=` after argument `{name}`"))
                .map_err(|e| self.value_error(e, base))?;
            cur.skip_ws();
            let value =
                parse_value(&mut cur, ad.ty, false).map_err(|e| self.value_error(e, base))?;
            args.push(Arg {
                name: ad.name,
                value,
            });
            match cur.peek_ns() {
                None => break,
                Some(',') => cur.pos += 1,
                Some(_) => {
                    return Err(self.value_error(cur.unexpected("`,` between arguments"), base));
                }
            }
        }
        self.check_required(arg_defs, &args)?;
        Ok(args)
    }

    /// An argument name the marker does not take: the error says which it does, with a did-you-mean.
    fn unknown_argument(&self, arg_defs: &[ArgDef], name: &str, at: usize) -> Diagnostic {
        let names: Vec<&str> = arg_defs.iter().map(|a| a.name).collect();
        let close = names
            .iter()
            .map(|n| {
                (
                    crate::suggest::levenshtein(
                        &n.to_ascii_lowercase(),
                        &name.to_ascii_lowercase(),
                    ),
                    *n,
                )
            })
            .min()
            .filter(|(d, _)| *d <= 3)
            .map(|(_, n)| n);
        let hint = match close {
            Some(n) => format!(
                "did you mean `{n}`? `+{}` takes: {}",
                self.def.name,
                names.join(", ")
            ),
            None => format!("`+{}` takes: {}", self.def.name, names.join(", ")),
        };
        diag_at(
            Severity::Error,
            format!("unknown argument `{name}` for marker `{}`", self.def.name),
            self.text,
            at,
            name.len(),
            self.loc,
        )
        .with_hint(hint)
    }

    /// Every argument the marker requires was given.
    fn check_required(&self, arg_defs: &[ArgDef], args: &[Arg]) -> Result<(), Diagnostic> {
        let missing: Vec<&str> = arg_defs
            .iter()
            .filter(|a| !a.optional && !args.iter().any(|arg| arg.name == a.name))
            .map(|a| a.name)
            .collect();
        if !missing.is_empty() {
            let list = missing
                .iter()
                .map(|m| format!("`{m}`"))
                .collect::<Vec<_>>()
                .join(", ");
            return Err(diag_at(
                Severity::Error,
                format!(
                    "missing argument{} {list} in marker `{}`",
                    if missing.len() > 1 { "s" } else { "" },
                    self.def.name
                ),
                self.text,
                0,
                self.text.len(),
                self.loc,
            )
            .with_hint(format!(
                "e.g. `+{}:{}`",
                self.def.name,
                arg_defs
                    .iter()
                    .filter(|a| !a.optional)
                    .map(|a| format!("{}={}", a.name, a.ty.example()))
                    .collect::<Vec<_>>()
                    .join(",")
            )));
        }
        Ok(())
    }
}

fn short_target(t: Target) -> &'static str {
    match t {
        Target::Package => "package",
        Target::Type => "type",
        Target::Field => "field",
    }
}

fn unknown(reg: &Registry, text: &str, body: &str, loc: &Location<'_>) -> Diagnostic {
    let head = body.split('=').next().unwrap_or(body);
    // Report the name the user most likely meant: the whole head, or (for name:arg=... forms) without the
    // last segment when that is closer to something known.
    let mut suggestion = reg.suggest(head);
    let mut shown = head;
    if suggestion.is_none()
        && let Some(i) = head.rfind(':')
        && let Some(s) = reg.suggest(&head[..i])
    {
        suggestion = Some(s);
        shown = &head[..i];
    }
    // Unknown `kubebuilder:` names are always errors; unknown `k8s:` tags (Kubernetes' other generators,
    // declarative validation) are warnings unless they look like a typo of a known one.
    let ours = head.starts_with("kubebuilder:");
    let sev = if ours || suggestion.is_some() {
        Severity::Error
    } else {
        Severity::Warning
    };
    let mut d = diag_at(
        sev,
        if sev == Severity::Error {
            format!("unknown marker `{shown}`")
        } else {
            format!("unknown marker `{shown}` ignored")
        },
        text,
        1,
        shown.len(),
        loc,
    );
    d.code = Some(crate::diag::UNKNOWN_MARKER);
    if let Some(s) = suggestion {
        d = d.with_hint(format!("did you mean `+{s}`?"));
    } else if sev == Severity::Error {
        d = d.with_hint("see docs/markers.md for the markers rkb understands");
    } else {
        d = d.with_hint(
            "not a controller-gen marker; doc lines starting with `+` are read as markers",
        );
    }
    d
}

#[cfg(test)]
mod tests {
    use super::*;

    use crate::effect::{CrdMarker, GenclientTag, NumberMarker, PrintColumn, RuleMarker};

    #[test]
    fn only_a_plus_and_a_letter_start_a_marker() {
        assert_eq!(
            marker_in("  +kubebuilder:object:root=true "),
            Some("+kubebuilder:object:root=true")
        );
        assert_eq!(marker_in("+genclient"), Some("+genclient"));
        // Marker texts, so left out of descriptions, but no markers.
        for text in ["+1 for this", "+", " +-x"] {
            assert!(is_marker_text(text), "{text}");
            assert_eq!(marker_in(text), None, "{text}");
        }
        assert_eq!(marker_in("a + b"), None);
    }

    fn loc(line: &str) -> Location<'_> {
        let col = line.find('+').unwrap() + 1;
        Location {
            file: Path::new("src/api/v1/x_types.rs"),
            line: 7,
            col,
            source_line: line,
        }
    }

    #[allow(clippy::result_large_err)]
    fn parse(line: &str, t: Target) -> Result<Marker, Diagnostic> {
        let l = loc(line);
        let text = line[l.col - 1..].trim_end();
        parse_marker(text, t, &l)
    }

    #[test]
    fn anonymous_number() {
        let m = parse("    /// +kubebuilder:validation:Minimum=1", Target::Field).unwrap();
        assert_eq!(m.name(), "kubebuilder:validation:Minimum");
        assert_eq!(
            m.effect,
            Effect::Schema(SchemaMarker::Number(NumberMarker::Minimum(1.0)))
        );
    }

    #[test]
    fn printcolumn_named_args() {
        let m = parse(
            r#"/// +kubebuilder:printcolumn:name="Image",type=string,JSONPath=".spec.image",priority=1"#,
            Target::Type,
        )
        .unwrap();
        let column = PrintColumn {
            name: "Image".into(),
            type_: "string".into(),
            json_path: ".spec.image".into(),
            description: None,
            format: None,
            priority: Some(1),
        };
        assert_eq!(m.effect, Effect::Crd(CrdMarker::PrintColumn(column)));
    }

    #[test]
    fn rbac_lists() {
        let m = parse(
            "/// +kubebuilder:rbac:groups=apps,resources=deployments,verbs=get;list;watch",
            Target::Type,
        )
        .unwrap();
        let Effect::Rbac(rule) = m.effect else {
            panic!("{:?}", m.effect)
        };
        assert_eq!(rule.verbs, ["get", "list", "watch"]);
        assert_eq!(rule.groups, ["apps"]);
        assert!(rule.urls.is_empty() && rule.namespace.is_none());
    }

    #[test]
    fn xvalidation_with_commas_in_quotes() {
        let m = parse(
            r#"/// +kubebuilder:validation:XValidation:rule="self.a, self.b",message="a, b""#,
            Target::Field,
        )
        .unwrap();
        let Effect::Schema(SchemaMarker::Rule(RuleMarker::XValidation(x))) = m.effect else {
            panic!("{:?}", m.effect)
        };
        assert_eq!(x.rule, "self.a, self.b");
        assert_eq!(x.message.as_deref(), Some("a, b"));
    }

    #[test]
    fn flag_and_bool() {
        assert!(parse("/// +kubebuilder:subresource:status", Target::Type).is_ok());
        let m = parse("/// +kubebuilder:object:root=true", Target::Type).unwrap();
        assert_eq!(m.effect, Effect::Root(true));
        let m = parse("/// +kubebuilder:object:root", Target::Type).unwrap();
        assert_eq!(m.effect, Effect::Root(true));
        let m = parse("/// +kubebuilder:object:root=false", Target::Type).unwrap();
        assert_eq!(m.effect, Effect::Root(false));
    }

    #[test]
    fn unknown_marker_did_you_mean() {
        let e = parse("    /// +kubebuilder:validation:Minimun=1", Target::Field).unwrap_err();
        assert_eq!(e.message, "unknown marker `kubebuilder:validation:Minimun`");
        assert_eq!(
            e.hint.as_deref(),
            Some("did you mean `+kubebuilder:validation:Minimum`?")
        );
        assert_eq!((e.line, e.col, e.len), (7, 10, 30));
    }

    #[test]
    fn unknown_foreign_marker_is_warning() {
        let e = parse(
            "/// +operator-sdk:csv:customresourcedefinitions:displayName=\"X\"",
            Target::Type,
        )
        .unwrap_err();
        assert_eq!(e.severity, Severity::Warning);
    }

    #[test]
    fn wrong_value_type() {
        let e = parse("/// +kubebuilder:validation:MaxLength=abc", Target::Field).unwrap_err();
        assert_eq!(
            e.message,
            "expected an integer, found `abc` in marker `kubebuilder:validation:MaxLength`"
        );
        assert_eq!(e.col, 39);
    }

    #[test]
    fn unknown_and_missing_args() {
        let e = parse(
            "/// +kubebuilder:printcolumn:name=x,typ=string,JSONPath=.a",
            Target::Type,
        )
        .unwrap_err();
        assert_eq!(
            e.message,
            "unknown argument `typ` for marker `kubebuilder:printcolumn`"
        );
        assert!(e.hint.unwrap().starts_with("did you mean `type`?"));
        let e = parse(
            "/// +kubebuilder:rbac:groups=apps,resources=deployments",
            Target::Type,
        )
        .unwrap_err();
        assert_eq!(
            e.message,
            "missing argument `verbs` in marker `kubebuilder:rbac`"
        );
    }

    #[test]
    fn wrong_target() {
        let e = parse("/// +kubebuilder:subresource:status", Target::Field).unwrap_err();
        assert_eq!(
            e.message,
            "marker `kubebuilder:subresource:status` cannot be used on a field"
        );
        assert_eq!(
            e.hint.as_deref(),
            Some("`+kubebuilder:subresource:status` applies to a type")
        );
    }

    #[test]
    fn anonymous_marker_with_trailing_colon() {
        let m = parse("/// +kubebuilder:default:=Allow", Target::Field).unwrap();
        assert_eq!(m.name(), "kubebuilder:default");
        assert_eq!(
            m.effect,
            Effect::Schema(SchemaMarker::Value(ValueMarker::Default(Value::String(
                "Allow".into()
            ))))
        );
    }

    #[test]
    fn genclient_comma_list() {
        let m = parse("/// +genclient:onlyVerbs=create,get", Target::Type).unwrap();
        let verbs = vec!["create".to_string(), "get".to_string()];
        assert_eq!(
            m.effect,
            Effect::Derive(DeriveMarker::GenclientTag(GenclientTag::OnlyVerbs(verbs)))
        );
        let m = parse("/// +genclient", Target::Type).unwrap();
        assert_eq!(m.name(), "genclient");
    }

    #[test]
    fn package_marker_on_a_type_is_a_warning() {
        let e = parse("/// +versionName=v1", Target::Type).unwrap_err();
        assert_eq!(e.severity, Severity::Warning);
        assert_eq!(
            e.message,
            "package marker `versionName` on a type is ignored"
        );
    }

    #[test]
    fn an_enum_must_list_values() {
        for (line, caret) in [
            ("/// +kubebuilder:validation:Enum=", (33, 1)),
            ("/// +kubebuilder:validation:Enum={}", (33, 3)),
            ("/// +kubebuilder:validation:items:Enum={ }", (39, 4)),
        ] {
            let e = parse(line, Target::Field).unwrap_err();
            let name = &line[5..line.find('=').unwrap()];
            assert_eq!(
                e.message,
                format!("marker `{name}` lists no values"),
                "{line}"
            );
            assert_eq!((e.col, e.len), caret, "{line}");
        }
        // One value, even the empty string, is a list.
        for line in [
            "/// +kubebuilder:validation:Enum=\"\"",
            "/// +kubebuilder:validation:Enum=;",
            "/// +kubebuilder:validation:Enum=a",
        ] {
            assert!(parse(line, Target::Field).is_ok(), "{line}");
        }
    }

    #[test]
    fn flag_with_value() {
        let e = parse("/// +kubebuilder:subresource:status=true", Target::Type).unwrap_err();
        assert!(e.message.contains("takes no value"), "{}", e.message);
    }
}

#[cfg(test)]
mod random_input {
    //! A stable-toolchain stand-in for the cargo-fuzz target (fuzz/): marker-ish random text must never
    //! panic the parser or the renderer, and every diagnostic must point inside the line.
    use super::*;

    struct XorShift(u64);
    impl XorShift {
        fn next(&mut self) -> u64 {
            self.0 ^= self.0 << 13;
            self.0 ^= self.0 >> 7;
            self.0 ^= self.0 << 17;
            self.0
        }
    }

    #[test]
    fn random_markers_never_panic() {
        const PIECES: &[&str] = &[
            "kubebuilder:",
            "validation:",
            "Minimum",
            "printcolumn",
            "rbac",
            "default",
            "items:",
            "XValidation",
            "=",
            ":",
            ",",
            ";",
            "{",
            "}",
            "\"",
            "`",
            "\\",
            "'",
            " ",
            "-",
            "1",
            "1.5",
            "e9",
            "true",
            "name",
            "rule",
            "verbs",
            "a",
            "é",
            "=\"x,y\"",
            "{a:1}",
            "+",
            "groupName",
            "listMapKey",
            "resource",
            "shortName",
        ];
        let mut rng = XorShift(0x9e37_79b9_7f4a_7c15);
        for _ in 0..5_000 {
            let n = (rng.next() % 12) as usize;
            let mut text = String::from("+");
            for _ in 0..n {
                text.push_str(PIECES[(rng.next() % PIECES.len() as u64) as usize]);
            }
            let text = text.trim().to_string();
            let line = format!("    /// {text}");
            let loc = Location {
                file: Path::new("r.rs"),
                line: 1,
                col: 9,
                source_line: &line,
            };
            for t in [Target::Package, Target::Type, Target::Field] {
                if let Err(d) = parse_marker(&text, t, &loc) {
                    let width = line.chars().count();
                    assert!(
                        d.col >= 9 && d.col <= width + 1,
                        "{text:?}: col {} outside the line",
                        d.col
                    );
                    let _ = d.render();
                }
            }
        }
    }
}
