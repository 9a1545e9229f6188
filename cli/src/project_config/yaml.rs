//! PROJECT's YAML, written byte for byte as rkb wrote it with serde_yaml 0.9 (libyaml's emitter), so that a
//! command which rewrites PROJECT leaves the lines it does not change as they were. serde-saphyr, which reads
//! PROJECT, writes another style (double quotes, YAML 1.1 words such as `on` quoted, long strings folded).
//!
//! Block style, two-space indentation, sequences at their key's column, keys in sorted order (kubebuilder's).
//! A string is plain unless a YAML 1.2 reader would take it for something else (null, a boolean, a number, digits
//! after a leading zero) or plain style cannot hold it (a leading indicator, `: ` or ` #` inside, edge spaces):
//! then it is single-quoted, or double-quoted with escapes when it holds a character only an escape can write.
//! The one departure, for text no PROJECT field holds: a string with a line break is double-quoted, where serde_yaml
//! wrote a literal block.

use serde_json::Value;

/// `value` (PROJECT's fields) as a YAML document.
pub(super) fn document(value: &Value) -> String {
    let mut out = String::new();
    match value {
        Value::Object(map) if !map.is_empty() => mapping(&mut out, map, 0, false),
        Value::Array(items) if !items.is_empty() => sequence(&mut out, items, 0, false),
        other => {
            out.push_str(&inline(other));
            out.push('\n');
        }
    }
    out
}

/// A block mapping at `indent`; its first line goes on the current line (after `- `) when `inline_first`.
fn mapping(
    out: &mut String,
    map: &serde_json::Map<String, Value>,
    indent: usize,
    inline_first: bool,
) {
    let mut entries: Vec<_> = map.iter().collect();
    entries.sort_by_key(|(key, _)| key.as_str());
    for (n, (key, value)) in entries.into_iter().enumerate() {
        if n > 0 || !inline_first {
            out.push_str(&" ".repeat(indent));
        }
        out.push_str(&string(key));
        out.push(':');
        match value {
            // A sequence under a key starts at the key's column, as kubectl and kubebuilder write it too.
            Value::Array(items) if !items.is_empty() => {
                out.push('\n');
                sequence(out, items, indent, false);
            }
            Value::Object(map) if !map.is_empty() => {
                out.push('\n');
                mapping(out, map, indent + 2, false);
            }
            scalar => {
                out.push(' ');
                out.push_str(&inline(scalar));
                out.push('\n');
            }
        }
    }
}

/// A block sequence at `indent`; its first line goes on the current line when `inline_first`.
fn sequence(out: &mut String, items: &[Value], indent: usize, inline_first: bool) {
    for (n, item) in items.iter().enumerate() {
        if n > 0 || !inline_first {
            out.push_str(&" ".repeat(indent));
        }
        out.push_str("- ");
        match item {
            Value::Object(map) if !map.is_empty() => mapping(out, map, indent + 2, true),
            Value::Array(items) if !items.is_empty() => sequence(out, items, indent + 2, true),
            scalar => {
                out.push_str(&inline(scalar));
                out.push('\n');
            }
        }
    }
}

/// A scalar or an empty collection, as it stands on one line.
fn inline(value: &Value) -> String {
    match value {
        Value::Null => "null".into(),
        Value::Bool(b) => b.to_string(),
        Value::Number(n) => n.to_string(),
        Value::String(s) => string(s),
        Value::Array(_) => "[]".into(),
        Value::Object(_) => "{}".into(),
    }
}

/// A string scalar in the style serde_yaml chose for it (see the module docs).
fn string(s: &str) -> String {
    if s.chars().any(|c| is_break(c) || !is_printable(c)) {
        double_quoted(s)
    } else if reads_as_non_string(s) || !plain_allowed(s) {
        format!("'{}'", s.replace('\'', "''"))
    } else {
        s.to_string()
    }
}

fn is_break(c: char) -> bool {
    matches!(c, '\r' | '\n' | '\u{85}' | '\u{2028}' | '\u{2029}')
}

/// libyaml's printable characters: the rest need an escape (tab included).
fn is_printable(c: char) -> bool {
    matches!(c, '\n' | ' '..='~' | '\u{A0}'..='\u{D7FF}' | '\u{E000}'..='\u{FFFD}' | '\u{10000}'..)
        && c != '\u{FEFF}'
}

/// Whether libyaml allows `s` (one line, printable, not empty) as a plain scalar in block context.
fn plain_allowed(s: &str) -> bool {
    if s.starts_with("---") || s.starts_with("...") || s.starts_with(' ') || s.ends_with(' ') {
        return false;
    }
    let chars: Vec<char> = s.chars().collect();
    let blank = |at: usize| chars.get(at).is_none_or(|&c| c == ' ' || c == '\t');
    !chars.iter().enumerate().any(|(at, &c)| {
        if at == 0 {
            "#,[]{}&*!|>'\"%@`".contains(c) || (matches!(c, '?' | ':' | '-') && blank(1))
        } else {
            (c == ':' && blank(at + 1)) || (c == '#' && blank(at - 1))
        }
    })
}

/// Whether serde_yaml would read `s`, written plain, as something other than a string (its YAML 1.2 resolver:
/// null, booleans, integers of any base, finite floats) or as digits after a leading zero, which it quotes too.
fn reads_as_non_string(s: &str) -> bool {
    matches!(
        s,
        "" | "~"
            | "null"
            | "Null"
            | "NULL"
            | "true"
            | "True"
            | "TRUE"
            | "false"
            | "False"
            | "FALSE"
    ) || leading_zero_digits(s)
        || is_integer(s)
        || is_float(s)
}

fn leading_zero_digits(s: &str) -> bool {
    let digits = s.strip_prefix(['-', '+']).unwrap_or(s);
    digits.len() > 1 && digits.starts_with('0') && digits[1..].bytes().all(|b| b.is_ascii_digit())
}

/// serde_yaml's integers: an optional `+`, or a `-`, then decimal digits or `0x`/`0o`/`0b` and digits of that base,
/// within u128 (i128 when negative).
fn is_integer(s: &str) -> bool {
    const BASES: [(&str, u32); 3] = [("0x", 16), ("0o", 8), ("0b", 2)];
    let unsigned = s.strip_prefix('+').unwrap_or(s);
    let unsigned_in_base = BASES.iter().any(|(prefix, base)| {
        unsigned.strip_prefix(prefix).is_some_and(|digits| {
            !digits.starts_with(['+', '-']) && u128::from_str_radix(digits, *base).is_ok()
        })
    });
    let negative_in_base = BASES.iter().any(|(prefix, base)| {
        s.strip_prefix('-')
            .and_then(|rest| rest.strip_prefix(prefix))
            .is_some_and(|digits| i128::from_str_radix(&format!("-{digits}"), *base).is_ok())
    });
    let decimal = !leading_zero_digits(s)
        && ((!unsigned.starts_with(['+', '-']) && unsigned.parse::<u128>().is_ok())
            || s.parse::<i128>().is_ok());
    unsigned_in_base || negative_in_base || decimal
}

/// serde_yaml's floats: `.inf`, `.nan` in their three spellings, or what Rust parses to a finite f64.
fn is_float(s: &str) -> bool {
    let unsigned = match s.strip_prefix('+') {
        Some(rest) if rest.starts_with(['+', '-']) => return false,
        Some(rest) => rest,
        None => s,
    };
    matches!(unsigned, ".inf" | ".Inf" | ".INF")
        || matches!(s, "-.inf" | "-.Inf" | "-.INF" | ".nan" | ".NaN" | ".NAN")
        || unsigned.parse::<f64>().is_ok_and(f64::is_finite)
}

/// libyaml's double-quoted style: its short escapes, else `\x`, `\u` or `\U` and uppercase hex digits.
fn double_quoted(s: &str) -> String {
    let mut out = String::from('"');
    for c in s.chars() {
        if is_printable(c) && !is_break(c) && c != '"' && c != '\\' {
            out.push(c);
            continue;
        }
        out.push('\\');
        match c {
            '\0' => out.push('0'),
            '\u{7}' => out.push('a'),
            '\u{8}' => out.push('b'),
            '\t' => out.push('t'),
            '\n' => out.push('n'),
            '\u{B}' => out.push('v'),
            '\u{C}' => out.push('f'),
            '\r' => out.push('r'),
            '\u{1B}' => out.push('e'),
            '"' => out.push('"'),
            '\\' => out.push('\\'),
            '\u{85}' => out.push('N'),
            '\u{A0}' => out.push('_'),
            '\u{2028}' => out.push('L'),
            '\u{2029}' => out.push('P'),
            c if u32::from(c) <= 0xFF => out.push_str(&format!("x{:02X}", u32::from(c))),
            c if u32::from(c) <= 0xFFFF => out.push_str(&format!("u{:04X}", u32::from(c))),
            c => out.push_str(&format!("U{:08X}", u32::from(c))),
        }
    }
    out.push('"');
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Each style, with the output serde_yaml 0.9 gave for the same string (recorded when rkb moved off it).
    #[test]
    fn strings_are_written_as_serde_yaml_wrote_them() {
        for (value, written) in [
            ("demo::api::v1", "demo::api::v1"),
            ("0.1.0", "0.1.0"),
            ("rust.rkb.io/v1", "rust.rkb.io/v1"),
            ("on", "on"),
            ("nan", "nan"),
            ("1_000", "1_000"),
            ("0X10", "0X10"),
            ("-x", "-x"),
            ("a#b", "a#b"),
            ("3", "'3'"),
            ("", "''"),
            ("007", "'007'"),
            ("1.5", "'1.5'"),
            ("-0x1F", "'-0x1F'"),
            ("+.5", "'+.5'"),
            ("True", "'True'"),
            ("~", "'~'"),
            ("- x", "'- x'"),
            ("---", "'---'"),
            ("a: b", "'a: b'"),
            ("x:", "'x:'"),
            ("a #b", "'a #b'"),
            (" lead", "' lead'"),
            ("'q", "'''q'"),
            ("@x", "'@x'"),
            ("tab\tx", "\"tab\\tx\""),
            ("\u{feff}x", "\"\\uFEFFx\""),
            ("\u{85}", "\"\\N\""),
            ("\"q", "'\"q'"),
        ] {
            assert_eq!(string(value), written, "{value:?}");
        }
    }

    #[test]
    fn nesting_follows_libyaml_block_style() {
        let value = serde_json::json!({
            "b": [{"y": 1, "x": ["p", "q"]}, "s", [], {}],
            "a": {"k": "v", "e": []},
            "c": null,
        });
        assert_eq!(
            document(&value),
            "a:\n  e: []\n  k: v\nb:\n- x:\n  - p\n  - q\n  y: 1\n- s\n- []\n- {}\nc: null\n"
        );
    }
}
