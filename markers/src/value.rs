//! Marker argument values and their grammar (controller-gen's `markers/parse.go`, re-expressed):
//! strings (bare, `"quoted"` or `` `raw` ``), ints, floats, bools, lists (`{a,b}` or `a;b`), maps (`{k:v}`)
//! and "any" values whose type is guessed from their first characters.

use std::fmt;

/// A typed marker argument value.
#[derive(Clone, Debug, PartialEq)]
pub enum Value {
    Bool(bool),
    Int(i64),
    Number(f64),
    String(String),
    List(Vec<Value>),
    /// Keys in source order; JSON conversion sorts them as Go's encoding/json does.
    Map(Vec<(String, Value)>),
    /// Pre-parsed JSON (the `+default=` marker takes a JSON literal).
    Json(serde_json::Value),
}

impl Value {
    pub fn as_str(&self) -> Option<&str> {
        match self {
            Value::String(s) => Some(s),
            _ => None,
        }
    }

    pub fn as_bool(&self) -> Option<bool> {
        match self {
            Value::Bool(b) => Some(*b),
            _ => None,
        }
    }

    pub fn as_i64(&self) -> Option<i64> {
        match self {
            Value::Int(i) => Some(*i),
            _ => None,
        }
    }

    pub fn as_f64(&self) -> Option<f64> {
        match self {
            Value::Int(i) => Some(*i as f64),
            Value::Number(n) => Some(*n),
            _ => None,
        }
    }

    /// List items as strings (non-string items are skipped; the registry guarantees their type).
    pub fn as_str_list(&self) -> Vec<String> {
        match self {
            Value::List(items) => items
                .iter()
                .filter_map(|v| v.as_str().map(str::to_owned))
                .collect(),
            Value::String(s) => vec![s.clone()],
            _ => Vec::new(),
        }
    }

    /// JSON form, as controller-gen's `json.Marshal` of the Go value would give.
    pub fn to_json(&self) -> serde_json::Value {
        use serde_json::Value as J;
        match self {
            Value::Bool(b) => J::Bool(*b),
            Value::Int(i) => J::from(*i),
            Value::Number(n) => {
                if n.fract() == 0.0 && n.abs() < 1e15 {
                    J::from(*n as i64)
                } else {
                    serde_json::Number::from_f64(*n)
                        .map(J::Number)
                        .unwrap_or(J::Null)
                }
            }
            Value::String(s) => J::String(s.clone()),
            Value::List(items) => J::Array(items.iter().map(Value::to_json).collect()),
            Value::Map(entries) => J::Object(
                entries
                    .iter()
                    .map(|(k, v)| (k.clone(), v.to_json()))
                    .collect(),
            ),
            Value::Json(j) => j.clone(),
        }
    }

    pub fn type_name(&self) -> &'static str {
        match self {
            Value::Bool(_) => "bool",
            Value::Int(_) => "int",
            Value::Number(_) => "number",
            Value::String(_) => "string",
            Value::List(_) => "list",
            Value::Map(_) => "map",
            Value::Json(_) => "JSON",
        }
    }
}

/// The declared type of a marker argument.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ArgType {
    Bool,
    Int,
    Number,
    String,
    /// `{a,b}` or `a;b`.
    StringList,
    /// A list of "any" items (`Enum=a;b;1`).
    AnyList,
    /// Type guessed from the text (`+kubebuilder:default=...`).
    Any,
    /// A JSON literal (`+default=...`); `ref(...)` is accepted and ignored.
    Json,
    /// Not interpreted at all (markers rkb accepts but does not use).
    Raw,
}

impl fmt::Display for ArgType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            ArgType::Bool => "bool (true or false)",
            ArgType::Int => "integer",
            ArgType::Number => "number",
            ArgType::String => "string",
            ArgType::StringList => "list of strings (`a;b` or `{a,b}`)",
            ArgType::AnyList => "list (`a;b` or `{a,b}`)",
            ArgType::Any => "value",
            ArgType::Json => "JSON value",
            ArgType::Raw => "text",
        })
    }
}

impl ArgType {
    /// A short example value, for hints.
    pub fn example(&self) -> &'static str {
        match self {
            ArgType::Bool => "true",
            ArgType::Int => "1",
            ArgType::Number => "1",
            ArgType::String => "text",
            ArgType::StringList => "a;b",
            ArgType::AnyList => "a;b",
            ArgType::Any => "value",
            ArgType::Json => "\"json\"",
            ArgType::Raw => "text",
        }
    }
}

/// A grammar error at byte `offset` (relative to the text handed to the parser) spanning `len` bytes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ValueError {
    pub offset: usize,
    pub len: usize,
    pub message: String,
    pub hint: Option<String>,
}

impl ValueError {
    pub(crate) fn new(offset: usize, len: usize, message: impl Into<String>) -> Self {
        ValueError {
            offset,
            len,
            message: message.into(),
            hint: None,
        }
    }

    pub(crate) fn with_hint(mut self, hint: impl Into<String>) -> Self {
        self.hint = Some(hint.into());
        self
    }
}

/// A cursor over marker argument text.
pub(crate) struct Cursor<'a> {
    pub(crate) src: &'a str,
    pub(crate) pos: usize,
}

impl<'a> Cursor<'a> {
    pub(crate) fn new(src: &'a str) -> Self {
        Cursor { src, pos: 0 }
    }

    pub(crate) fn rest(&self) -> &'a str {
        &self.src[self.pos..]
    }

    pub(crate) fn peek(&self) -> Option<char> {
        self.rest().chars().next()
    }

    pub(crate) fn skip_ws(&mut self) {
        while let Some(c) = self.peek() {
            if c == ' ' || c == '\t' || c == '\r' || c == '\n' {
                self.pos += 1;
            } else {
                break;
            }
        }
    }

    /// Next non-blank character, skipping the blanks.
    pub(crate) fn peek_ns(&mut self) -> Option<char> {
        self.skip_ws();
        self.peek()
    }

    pub(crate) fn bump(&mut self) -> Option<char> {
        let c = self.peek()?;
        self.pos += c.len_utf8();
        Some(c)
    }

    pub(crate) fn at_end(&mut self) -> bool {
        self.peek_ns().is_none()
    }

    /// The token-ish text at the cursor, for "got `...`" messages.
    pub(crate) fn token_here(&self) -> (usize, &'a str) {
        let rest = self.rest();
        let end = rest
            .char_indices()
            .find(|&(i, c)| i > 0 && matches!(c, ',' | ';' | '}' | ':' | ' '))
            .map(|(i, _)| i)
            .unwrap_or(rest.len());
        (self.pos, &rest[..end])
    }

    pub(crate) fn expect(&mut self, want: char, what: &str) -> Result<(), ValueError> {
        match self.peek_ns() {
            Some(c) if c == want => {
                self.pos += c.len_utf8();
                Ok(())
            }
            _ => Err(self.unexpected(what)),
        }
    }

    pub(crate) fn unexpected(&self, what: &str) -> ValueError {
        let (at, tok) = self.token_here();
        if tok.is_empty() {
            ValueError::new(at, 1, format!("expected {what}, found end of marker"))
        } else {
            ValueError::new(at, tok.len(), format!("expected {what}, found `{tok}`"))
        }
    }

    /// An identifier: a letter or `_`, then letters, digits or `_`.
    pub(crate) fn ident(&mut self) -> Option<(usize, &'a str)> {
        self.skip_ws();
        let start = self.pos;
        let rest = self.rest();
        let mut end = 0;
        for (i, c) in rest.char_indices() {
            let ok = if i == 0 {
                c.is_alphabetic() || c == '_'
            } else {
                c.is_alphanumeric() || c == '_'
            };
            if !ok {
                break;
            }
            end = i + c.len_utf8();
        }
        if end == 0 {
            return None;
        }
        self.pos += end;
        Some((start, &rest[..end]))
    }
}

/// Parses one value of type `ty` at the cursor. `in_list` is true for list items (which cannot be `a;b` lists).
pub(crate) fn parse_value(
    cur: &mut Cursor<'_>,
    ty: ArgType,
    in_list: bool,
) -> Result<Value, ValueError> {
    match ty {
        ArgType::Bool => parse_bool(cur),
        ArgType::Int => parse_int(cur),
        ArgType::Number => parse_number(cur),
        ArgType::String => parse_string(cur).map(Value::String),
        ArgType::StringList => parse_list(cur, ArgType::String),
        ArgType::AnyList => parse_list(cur, ArgType::Any),
        ArgType::Any => parse_any(cur, in_list),
        ArgType::Json => parse_json(cur),
        ArgType::Raw => {
            let text = cur.rest().to_string();
            cur.pos = cur.src.len();
            Ok(Value::String(text))
        }
    }
}

fn parse_json(cur: &mut Cursor<'_>) -> Result<Value, ValueError> {
    let start = cur.pos;
    let text = cur.rest();
    cur.pos = cur.src.len();
    if text.trim_start().starts_with("ref(") {
        // controller-gen ignores `+default=ref(...)`; keep that, as "no value".
        return Ok(Value::Json(serde_json::Value::Null));
    }
    serde_json::from_str::<serde_json::Value>(text).map(Value::Json).map_err(|e| {
        ValueError::new(start, text.len().max(1), format!("invalid JSON value: {e}"))
            .with_hint("`+default` takes a JSON literal, e.g. `+default=\"text\"`, `+default=3` or `+default={\"a\":1}`")
    })
}

fn parse_bool(cur: &mut Cursor<'_>) -> Result<Value, ValueError> {
    cur.skip_ws();
    let save = cur.pos;
    match cur.ident() {
        Some((_, "true")) => Ok(Value::Bool(true)),
        Some((_, "false")) => Ok(Value::Bool(false)),
        _ => {
            cur.pos = save;
            Err(cur.unexpected("true or false"))
        }
    }
}

/// Scans a number token (optionally negative) and says whether it was integral.
fn scan_number<'a>(cur: &mut Cursor<'a>) -> Option<(usize, &'a str, bool)> {
    cur.skip_ws();
    let start = cur.pos;
    let bytes = cur.src.as_bytes();
    let mut i = cur.pos;
    if i < bytes.len() && bytes[i] == b'-' {
        i += 1;
    }
    let digits_start = i;
    while i < bytes.len() && (bytes[i].is_ascii_digit() || bytes[i] == b'_') {
        i += 1;
    }
    let mut integral = true;
    if i < bytes.len() && bytes[i] == b'.' {
        integral = false;
        i += 1;
        while i < bytes.len() && bytes[i].is_ascii_digit() {
            i += 1;
        }
    }
    if i == digits_start || (i == digits_start + 1 && !integral) {
        return None;
    }
    if i < bytes.len() && (bytes[i] == b'e' || bytes[i] == b'E') {
        let mut j = i + 1;
        if j < bytes.len() && (bytes[j] == b'+' || bytes[j] == b'-') {
            j += 1;
        }
        if j < bytes.len() && bytes[j].is_ascii_digit() {
            integral = false;
            while j < bytes.len() && bytes[j].is_ascii_digit() {
                j += 1;
            }
            i = j;
        }
    }
    // A number glued to letters (`12abc`) is not a number.
    if i < bytes.len() && (bytes[i].is_ascii_alphabetic() || bytes[i] == b'_') {
        return None;
    }
    cur.pos = i;
    Some((start, &cur.src[start..i], integral))
}

fn parse_int(cur: &mut Cursor<'_>) -> Result<Value, ValueError> {
    let save = cur.pos;
    match scan_number(cur) {
        Some((start, text, true)) => text
            .replace('_', "")
            .parse::<i64>()
            .map(Value::Int)
            .map_err(|e| {
                ValueError::new(start, text.len(), format!("invalid integer `{text}`: {e}"))
            }),
        Some((start, text, false)) => Err(ValueError::new(
            start,
            text.len(),
            format!("expected an integer, found `{text}`"),
        )),
        None => {
            cur.pos = save;
            Err(cur.unexpected("an integer"))
        }
    }
}

fn parse_number(cur: &mut Cursor<'_>) -> Result<Value, ValueError> {
    let save = cur.pos;
    match scan_number(cur) {
        Some((start, text, _)) => text
            .replace('_', "")
            .parse::<f64>()
            .map(Value::Number)
            .map_err(|e| {
                ValueError::new(start, text.len(), format!("invalid number `{text}`: {e}"))
            }),
        None => {
            cur.pos = save;
            Err(cur.unexpected("a number"))
        }
    }
}

/// A string: `"quoted"` (Go escapes), `` `raw` ``, or bare text up to `,` `;` `:` `}` (trimmed).
pub(crate) fn parse_string(cur: &mut Cursor<'_>) -> Result<String, ValueError> {
    match cur.peek_ns() {
        Some('"') => parse_quoted(cur),
        Some('`') => {
            let start = cur.pos;
            cur.pos += 1;
            match cur.rest().find('`') {
                Some(end) => {
                    let s = cur.rest()[..end].to_string();
                    cur.pos += end + 1;
                    Ok(s)
                }
                None => {
                    Err(
                        ValueError::new(start, cur.src.len() - start, "unterminated raw string")
                            .with_hint("close the string with a backtick"),
                    )
                }
            }
        }
        _ => {
            let start = cur.pos;
            let rest = cur.rest();
            let mut end = rest.len();
            let mut in_quote = false;
            let mut prev = '\0';
            for (i, c) in rest.char_indices() {
                // A quoted run inside a bare string is one token for Go's scanner: its commas don't split.
                if c == '"' && prev != '\\' {
                    in_quote = !in_quote;
                }
                if !in_quote && matches!(c, ',' | ';' | ':' | '}') {
                    end = i;
                    break;
                }
                prev = c;
            }
            let text = rest[..end].trim_end();
            cur.pos = start + end;
            Ok(text.to_string())
        }
    }
}

fn parse_quoted(cur: &mut Cursor<'_>) -> Result<String, ValueError> {
    let start = cur.pos;
    cur.pos += 1;
    let mut out = String::new();
    loop {
        let Some(c) = cur.bump() else {
            return Err(
                ValueError::new(start, cur.src.len() - start, "unterminated string")
                    .with_hint("close the string with `\"`"),
            );
        };
        match c {
            '"' => return Ok(out),
            '\\' => {
                let esc_at = cur.pos - 1;
                let Some(e) = cur.bump() else { continue };
                match e {
                    'n' => out.push('\n'),
                    't' => out.push('\t'),
                    'r' => out.push('\r'),
                    '\\' => out.push('\\'),
                    '"' => out.push('"'),
                    '\'' => out.push('\''),
                    'a' => out.push('\u{7}'),
                    'b' => out.push('\u{8}'),
                    'f' => out.push('\u{c}'),
                    'v' => out.push('\u{b}'),
                    'u' | 'U' | 'x' => {
                        let n = match e {
                            'u' => 4,
                            'U' => 8,
                            _ => 2,
                        };
                        let hex: String = cur.rest().chars().take(n).collect();
                        let code = u32::from_str_radix(&hex, 16)
                            .ok()
                            .filter(|_| hex.len() == n);
                        match code.and_then(char::from_u32) {
                            Some(ch) => {
                                out.push(ch);
                                cur.pos += n;
                            }
                            None => {
                                return Err(ValueError::new(
                                    esc_at,
                                    2 + hex.len(),
                                    "invalid escape in string",
                                ));
                            }
                        }
                    }
                    other => {
                        return Err(ValueError::new(
                            esc_at,
                            1 + other.len_utf8(),
                            format!("unknown escape `\\{other}`"),
                        )
                        .with_hint("use `\\\\` for a backslash, or a `raw` (backtick) string"));
                    }
                }
            }
            c => out.push(c),
        }
    }
}

/// `{a,b}` or `a;b;c` (the latter ends at `,`, `}` or the end).
fn parse_list(cur: &mut Cursor<'_>, item: ArgType) -> Result<Value, ValueError> {
    let mut items = Vec::new();
    if cur.peek_ns() == Some('{') {
        cur.pos += 1;
        loop {
            match cur.peek_ns() {
                Some('}') => {
                    cur.pos += 1;
                    break;
                }
                None => return Err(cur.unexpected("`}`")),
                _ => {}
            }
            items.push(parse_value(cur, item, true)?);
            match cur.peek_ns() {
                Some(',') => cur.pos += 1,
                Some('}') => {}
                _ => return Err(cur.unexpected("`,` or `}`")),
            }
        }
        return Ok(Value::List(items));
    }
    loop {
        match cur.peek_ns() {
            None | Some(',') | Some('}') => break,
            _ => {}
        }
        items.push(parse_value(cur, item, true)?);
        match cur.peek_ns() {
            Some(';') => cur.pos += 1,
            None | Some(',') | Some('}') => break,
            _ => return Err(cur.unexpected("`;` between list items")),
        }
    }
    Ok(Value::List(items))
}

fn parse_map(cur: &mut Cursor<'_>) -> Result<Value, ValueError> {
    cur.expect('{', "`{`")?;
    let mut entries = Vec::new();
    loop {
        match cur.peek_ns() {
            Some('}') => {
                cur.pos += 1;
                break;
            }
            None => return Err(cur.unexpected("`}`")),
            _ => {}
        }
        let key = parse_string(cur)?;
        cur.expect(':', "`:` after a map key")?;
        let value = parse_any(cur, false)?;
        entries.push((key, value));
        match cur.peek_ns() {
            Some(',') => cur.pos += 1,
            Some('}') => {}
            _ => return Err(cur.unexpected("`,` or `}`")),
        }
    }
    Ok(Value::Map(entries))
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Guess {
    Bool,
    Int,
    Number,
    String,
    List(GuessItem),
    Map,
}

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum GuessItem {
    Bool,
    Int,
    Number,
    String,
    Map,
}

fn guess_scalar(text: &str) -> Guess {
    let t = text.trim_start();
    let first = t.chars().next();
    match first {
        Some('"') | Some('\'') | Some('`') => return Guess::String,
        Some('{') => {
            let inner = t[1..].trim_start();
            if inner.starts_with('}') {
                return Guess::Map;
            }
            // A map when the first element is a string followed by `:`.
            let mut c = Cursor::new(inner);
            let first_elem = guess_scalar(inner);
            if first_elem == Guess::String {
                if parse_string(&mut c).is_ok() && c.peek_ns() == Some(':') {
                    return Guess::Map;
                }
                return Guess::List(GuessItem::String);
            }
            return Guess::List(match first_elem {
                Guess::Bool => GuessItem::Bool,
                Guess::Int => GuessItem::Int,
                Guess::Number => GuessItem::Number,
                Guess::Map => GuessItem::Map,
                _ => GuessItem::String,
            });
        }
        _ => {}
    }
    let mut c = Cursor::new(t);
    if let Some((_, id)) = c.ident() {
        return if id == "true" || id == "false" {
            Guess::Bool
        } else {
            Guess::String
        };
    }
    let mut c = Cursor::new(t);
    match scan_number(&mut c) {
        Some((_, _, true)) => Guess::Int,
        Some((_, _, false)) => Guess::Number,
        None => Guess::String,
    }
}

/// Whether a `;` comes before the next `,` or the end (outside quotes and braces): an `a;b` list.
fn has_semicolon_list(text: &str) -> bool {
    let mut depth = 0usize;
    let mut quote: Option<char> = None;
    let mut prev = '\0';
    for c in text.chars() {
        if let Some(q) = quote {
            if c == q && prev != '\\' {
                quote = None;
            }
        } else {
            match c {
                '"' | '`' => quote = Some(c),
                '{' => depth += 1,
                '}' if depth == 0 => return false,
                '}' => depth -= 1,
                ',' if depth == 0 => return false,
                ';' if depth == 0 => return true,
                _ => {}
            }
        }
        prev = c;
    }
    false
}

fn parse_any(cur: &mut Cursor<'_>, in_list: bool) -> Result<Value, ValueError> {
    cur.skip_ws();
    let rest = cur.rest();
    let guess = guess_scalar(rest);
    if !in_list && has_semicolon_list(rest) {
        let item = match guess {
            Guess::Bool => ArgType::Bool,
            Guess::Int => ArgType::Int,
            Guess::Number => ArgType::Number,
            _ => ArgType::String,
        };
        return parse_list(cur, item);
    }
    match guess {
        Guess::Bool => parse_bool(cur),
        Guess::Int => parse_int(cur),
        Guess::Number => parse_number(cur),
        Guess::String => parse_string(cur).map(Value::String),
        Guess::Map => parse_map(cur),
        Guess::List(item) => parse_list(
            cur,
            match item {
                GuessItem::Bool => ArgType::Bool,
                GuessItem::Int => ArgType::Int,
                GuessItem::Number => ArgType::Number,
                GuessItem::String => ArgType::String,
                GuessItem::Map => ArgType::Any,
            },
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn any(s: &str) -> Value {
        let mut c = Cursor::new(s);
        let v = parse_value(&mut c, ArgType::Any, false).unwrap();
        assert!(c.at_end(), "left over: {:?}", c.rest());
        v
    }

    #[test]
    fn guesses_types() {
        assert_eq!(any("3"), Value::Int(3));
        assert_eq!(any("-3"), Value::Int(-3));
        assert_eq!(any("1.5"), Value::Number(1.5));
        assert_eq!(any("true"), Value::Bool(true));
        assert_eq!(any("foo"), Value::String("foo".into()));
        assert_eq!(any("\"a,b\""), Value::String("a,b".into()));
        assert_eq!(any("{}"), Value::Map(vec![]));
        assert_eq!(
            any("{a,b}"),
            Value::List(vec![Value::String("a".into()), Value::String("b".into())])
        );
        assert_eq!(
            any("a;b"),
            Value::List(vec![Value::String("a".into()), Value::String("b".into())])
        );
        assert_eq!(any("1;2"), Value::List(vec![Value::Int(1), Value::Int(2)]));
        assert_eq!(
            any("{a: 1, b: \"x\"}"),
            Value::Map(vec![
                ("a".into(), Value::Int(1)),
                ("b".into(), Value::String("x".into()))
            ])
        );
        assert_eq!(
            any("{a: {b: true}}").to_json(),
            serde_json::json!({"a": {"b": true}})
        );
    }

    #[test]
    fn strings_stop_at_delimiters() {
        let mut c = Cursor::new("abc def,next");
        assert_eq!(parse_string(&mut c).unwrap(), "abc def");
        assert_eq!(c.rest(), ",next");
        let mut c = Cursor::new("`raw \\d, ok`");
        assert_eq!(parse_string(&mut c).unwrap(), "raw \\d, ok");
        let mut c = Cursor::new("\"esc \\\" \\u00e9\"");
        assert_eq!(parse_string(&mut c).unwrap(), "esc \" é");
    }

    #[test]
    fn int_rejects_float() {
        let mut c = Cursor::new("1.5");
        let e = parse_value(&mut c, ArgType::Int, false).unwrap_err();
        assert_eq!(e.message, "expected an integer, found `1.5`");
        let mut c = Cursor::new("abc");
        let e = parse_value(&mut c, ArgType::Number, false).unwrap_err();
        assert_eq!(e.message, "expected a number, found `abc`");
    }

    #[test]
    fn json_default() {
        let mut c = Cursor::new("{\"a\": [1, 2]}");
        assert_eq!(
            parse_value(&mut c, ArgType::Json, false).unwrap().to_json(),
            serde_json::json!({"a": [1, 2]})
        );
        let mut c = Cursor::new("nope");
        assert!(parse_value(&mut c, ArgType::Json, false).is_err());
    }
}
