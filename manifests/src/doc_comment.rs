//! Doc comments -> (markers, description), with controller-gen's description cleaning.

use crate::load::{DocLine, SourceFile};
use rkb_markers::{
    Diagnostic, Effect, ListMarker, Location, Marker, NumberMarker, ObjectMarker, SchemaMarker,
    StringMarker, Target, is_marker_text, marker_in, parse_marker,
};

/// The doc comment of one item: its markers (parsed and checked) and its description.
#[derive(Clone, Debug, Default)]
pub struct Doc {
    pub markers: Vec<Marker>,
    pub description: String,
}

impl Doc {
    /// Whether a marker with this effect is on the item.
    pub fn has(&self, effect: Effect) -> bool {
        self.get(effect).is_some()
    }

    /// The first marker with this effect.
    pub fn get(&self, effect: Effect) -> Option<&Marker> {
        self.markers.iter().find(|m| m.def.effect == effect)
    }
}

/// Splits doc lines into markers (parsed for `target`) and the cleaned description.
pub fn build_doc(
    lines: &[DocLine],
    file: &SourceFile,
    target: Target,
    diags: &mut Vec<Diagnostic>,
) -> Doc {
    let mut doc = Doc::default();
    let mut text_lines: Vec<&str> = Vec::with_capacity(lines.len());
    for l in lines {
        if is_marker_text(&l.text) {
            let lead = l.text.len() - l.text.trim_start().len();
            let Some(text) = marker_in(&l.text) else {
                continue;
            };
            let loc = Location {
                file: &file.rel,
                line: l.line,
                col: l.col + l.text[..lead].chars().count(),
                source_line: file.line(l.line),
            };
            match parse_marker(text, target, &loc) {
                Ok(m) => doc.markers.push(m),
                Err(d) => diags.push(d),
            }
        } else {
            text_lines.push(&l.text);
        }
    }
    doc.description = clean_description(&text_lines);
    check_conflicts(&doc, file, diags);
    doc
}

fn conflict(file: &SourceFile, a: &Marker, b: &Marker, msg: String, hint: &str) -> Diagnostic {
    Diagnostic::error(msg)
        .at(&file.rel, b.span.line, b.span.col, b.span.len)
        .with_source_line(file.line(b.span.line))
        .with_hint(format!("{hint} (the other one is at line {})", a.span.line))
}

/// Conflicting markers on one item: the same single-valued marker twice with different values, optional
/// and required together, and lower bounds above upper bounds.
fn check_conflicts(doc: &Doc, file: &SourceFile, diags: &mut Vec<Diagnostic>) {
    let ms = &doc.markers;
    for (i, b) in ms.iter().enumerate() {
        if b.def.repeatable {
            continue;
        }
        if let Some(a) = ms[..i].iter().find(|a| a.name() == b.name())
            && (a.value != b.value || a.args != b.args)
        {
            diags.push(conflict(
                file,
                a,
                b,
                format!("conflicting markers: `{}` and `{}`", a.text, b.text),
                "keep one of them",
            ));
        }
    }
    let presence = |required: bool| {
        ms.iter()
            .find(|m| matches!(m.def.effect, Effect::Presence(p) if p.required == required))
    };
    if let (Some(a), Some(b)) = (presence(false), presence(true)) {
        let (first, second) = if a.span.line <= b.span.line {
            (a, b)
        } else {
            (b, a)
        };
        diags.push(conflict(
            file,
            first,
            second,
            format!(
                "conflicting markers: `{}` and `{}`",
                first.text, second.text
            ),
            "a field is either optional or required",
        ));
    }
    const BOUNDS: [(SchemaMarker, SchemaMarker); 4] = [
        (
            SchemaMarker::Number(NumberMarker::Minimum),
            SchemaMarker::Number(NumberMarker::Maximum),
        ),
        (
            SchemaMarker::String(StringMarker::MinLength),
            SchemaMarker::String(StringMarker::MaxLength),
        ),
        (
            SchemaMarker::List(ListMarker::MinItems),
            SchemaMarker::List(ListMarker::MaxItems),
        ),
        (
            SchemaMarker::Object(ObjectMarker::MinProperties),
            SchemaMarker::Object(ObjectMarker::MaxProperties),
        ),
    ];
    for on in [Effect::Schema, Effect::ItemsSchema] {
        for (lower, upper) in BOUNDS {
            let get = |m: SchemaMarker| ms.iter().find(|x| x.def.effect == on(m));
            if let (Some(a), Some(b)) = (get(lower), get(upper))
                && let (Some(x), Some(y)) = (
                    a.value.as_ref().and_then(|v| v.as_f64()),
                    b.value.as_ref().and_then(|v| v.as_f64()),
                )
                && x > y
            {
                diags.push(conflict(
                    file,
                    a,
                    b,
                    format!(
                        "conflicting markers: {}={x} is greater than {}={y}",
                        short_name(a),
                        short_name(b)
                    ),
                    "no value can satisfy both",
                ));
            }
        }
    }
}

/// A marker's last name segment (`Minimum` for `+kubebuilder:validation:items:Minimum`).
fn short_name(m: &Marker) -> &str {
    m.name().rsplit(':').next().unwrap_or(m.name())
}

/// go/ast `CommentGroup.Text()` followed by controller-gen's `extractDoc`: drop one leading space per line,
/// trailing blanks, leading/trailing empty lines, collapse empty-line runs, drop `TODO` lines, stop at `---`
/// (outside fenced code blocks).
pub fn clean_description(lines: &[&str]) -> String {
    let mut text: Vec<String> = Vec::with_capacity(lines.len());
    for raw in lines {
        for l in raw.split('\n') {
            let l = match l.strip_prefix(' ') {
                Some(rest) => rest,
                None => {
                    if is_directive(l) {
                        continue;
                    }
                    l
                }
            };
            text.push(l.trim_end().to_string());
        }
    }
    // Collapse runs of empty lines and trim empty lines at both ends.
    let mut collapsed: Vec<String> = Vec::with_capacity(text.len());
    for l in text {
        if l.is_empty() && collapsed.last().is_none_or(|p: &String| p.is_empty()) {
            continue;
        }
        collapsed.push(l);
    }
    while collapsed.last().is_some_and(|l| l.is_empty()) {
        collapsed.pop();
    }
    let mut out: Vec<&str> = Vec::with_capacity(collapsed.len());
    let mut in_code = false;
    for l in &collapsed {
        if l.starts_with("```") || l.starts_with("~~~") {
            in_code = !in_code;
        }
        if !in_code {
            if l.starts_with("TODO") {
                continue;
            }
            if l.starts_with("---") {
                break;
            }
        }
        out.push(l);
    }
    out.join("\n")
}

/// `//go:generate`-style directives (no space after the comment marker, `word:word`) are not doc text.
fn is_directive(l: &str) -> bool {
    if l.starts_with("line ") || l.starts_with("extern ") || l.starts_with("export ") {
        return true;
    }
    let Some(colon) = l.find(':') else {
        return false;
    };
    let (head, tail) = (&l[..colon], &l[colon + 1..]);
    !head.is_empty()
        && head
            .chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit())
        && tail.starts_with(|c: char| c.is_ascii_lowercase() || c.is_ascii_digit())
}

#[cfg(test)]
mod tests {
    use super::clean_description;

    #[test]
    fn cleans_like_controller_gen() {
        let lines = [
            " ",
            " First line.",
            " second line  ",
            "",
            "",
            " Third.",
            " TODO: drop me",
            " ",
        ];
        assert_eq!(
            clean_description(&lines),
            "First line.\nsecond line\n\nThird."
        );
        let lines = [" Keep.", " ---", " hidden"];
        assert_eq!(clean_description(&lines), "Keep.");
        let lines = [" ```", " TODO inside code", " ```"];
        assert_eq!(clean_description(&lines), "```\nTODO inside code\n```");
        let lines = ["  indented", "no space"];
        assert_eq!(clean_description(&lines), " indented\nno space");
    }
}
