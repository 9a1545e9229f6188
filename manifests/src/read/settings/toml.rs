//! A TOML reader for the project's Cargo.toml: the document's tables and values, each with where it is written, or
//! the first error with its place. Cargo refuses a manifest that is not TOML; so does rkb, instead of reading what
//! it can of it (a typo in `[package.metadata.rkb]` would otherwise turn a setting off without a word).
//!
//! It reads TOML 1.0 and accepts what TOML 1.1 adds (newlines and a trailing comma in inline tables, `\e` and
//! `\xHH` escapes, times without seconds): a newer cargo reads those, and refusing a manifest cargo builds would be
//! worse than letting through one it refuses. The table rules are TOML's: a key is defined once, a table once (by
//! its header, or by dotted keys), an inline table and an array of values are never extended.
//!
//! Held to toml-test (github.com/toml-lang/toml-test, its TOML 1.0 and 1.1 file lists): it reads every valid
//! document, and refuses 452 of the 483 invalid ones; it lets through dates and times out of range (Feb 30, 25:00)
//! and non-ASCII letters in bare keys. It also reads every Cargo.toml of a cargo registry cache.
//!
//! Written here rather than taken from the toml crate: rkb-manifests compiles into every operator's build (through
//! the derive), and this is the little of TOML that reading a manifest needs.

use std::sync::OnceLock;

/// A value and the byte offset where it starts in the document.
#[derive(Clone, Debug, PartialEq)]
pub struct Spanned<T> {
    pub value: T,
    pub at: usize,
}

#[derive(Clone, Debug, PartialEq)]
pub enum Value {
    String(String),
    Boolean(bool),
    /// An integer, float or date-time, as written.
    Other(String),
    Array(Vec<Spanned<Value>>, ArrayKind),
    Table(Table),
}

/// An array of values (`[...]`), or an array of tables (`[[header]]`, which later headers extend).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ArrayKind {
    Values,
    Tables,
}

/// How a table came to be, which decides how it may be extended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Defined {
    /// As the parent of a header's table (`a` of `[a.b]`): a header may still define it.
    Implicit,
    /// By its header.
    Header,
    /// By dotted keys (`a.b = 1` makes `a`).
    Dotted,
    /// Inline (`{ ... }`): complete as written.
    Inline,
}

/// A table: its keys in the order written, each with where it is and its value.
#[derive(Clone, Debug, PartialEq)]
pub struct Table {
    pub entries: Vec<(Spanned<String>, Spanned<Value>)>,
    defined: Defined,
}

impl Table {
    fn new(defined: Defined) -> Self {
        Table {
            entries: Vec::new(),
            defined,
        }
    }

    /// The value of `key`.
    pub fn get(&self, key: &str) -> Option<&Spanned<Value>> {
        self.entries
            .iter()
            .find(|(k, _)| k.value == key)
            .map(|(_, v)| v)
    }

    /// The table at `path` below this one (through tables only).
    pub fn table(&self, path: &[&str]) -> Option<&Table> {
        path.iter()
            .try_fold(self, |t, key| match &t.get(key)?.value {
                Value::Table(t) => Some(t),
                _ => None,
            })
    }

    fn get_mut(&mut self, key: &str) -> Option<&mut Spanned<Value>> {
        self.entries
            .iter_mut()
            .find(|(k, _)| k.value == key)
            .map(|(_, v)| v)
    }
}

/// Why a document is not TOML, at byte `at`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Error {
    pub at: usize,
    pub message: String,
}

/// The document's root table, or the first error.
pub fn parse(text: &str) -> Result<Table, Error> {
    let mut p = Parser {
        text,
        pos: usize::from(text.starts_with('\u{feff}')) * 3,
    };
    let mut root = Table::new(Defined::Header);
    // The table keys go to: its path from the root (an array of tables stands for its last table).
    let mut current: Vec<String> = Vec::new();
    loop {
        p.skip_blank();
        match p.peek() {
            None => return Ok(root),
            Some('\n') => p.pos += 1,
            Some('\r') => p.newline()?,
            Some('#') => p.comment()?,
            Some('[') => {
                current = p.header(&mut root)?;
                p.end_of_line()?;
            }
            Some(_) => {
                let table = table_at(&mut root, &current);
                p.key_value(table)?;
                p.end_of_line()?;
            }
        }
    }
}

/// The table at `path` (made by earlier headers), through the last table of each array of tables.
fn table_at<'t>(root: &'t mut Table, path: &[String]) -> &'t mut Table {
    path.iter().fold(root, |t, key| {
        match &mut t.get_mut(key).expect("a header made it").value {
            Value::Table(t) => t,
            Value::Array(items, ArrayKind::Tables) => {
                match items.last_mut().map(|i| &mut i.value) {
                    Some(Value::Table(t)) => t,
                    _ => unreachable!("an array of tables holds tables"),
                }
            }
            _ => unreachable!("a header goes through tables"),
        }
    })
}

struct Parser<'a> {
    text: &'a str,
    pos: usize,
}

/// Integers, floats and date-times, as TOML writes them (1.1's times without seconds too).
fn other_value() -> &'static regex::Regex {
    static RE: OnceLock<regex::Regex> = OnceLock::new();
    RE.get_or_init(|| {
        let dec = "[0-9](?:_?[0-9])*";
        let int = "[+-]?(?:0|[1-9](?:_?[0-9])*)|0x[0-9A-Fa-f](?:_?[0-9A-Fa-f])*|0o[0-7](?:_?[0-7])*|0b[01](?:_?[01])*";
        let float = format!(
            "[+-]?(?:0|[1-9](?:_?[0-9])*)(?:\\.{dec}(?:[eE][+-]?{dec})?|[eE][+-]?{dec})|[+-]?(?:inf|nan)"
        );
        let time = "[0-9]{2}:[0-9]{2}(?::[0-9]{2}(?:\\.[0-9]+)?)?";
        let datetime =
            format!("[0-9]{{4}}-[0-9]{{2}}-[0-9]{{2}}(?:[Tt ]{time}(?:[Zz]|[+-][0-9]{{2}}:[0-9]{{2}})?)?|{time}");
        regex::Regex::new(&format!("^(?:{int}|{float}|{datetime})$")).expect("a valid pattern")
    })
}

impl Parser<'_> {
    fn peek(&self) -> Option<char> {
        self.text[self.pos..].chars().next()
    }

    fn rest(&self) -> &str {
        &self.text[self.pos..]
    }

    fn error<T>(&self, at: usize, message: impl Into<String>) -> Result<T, Error> {
        Err(Error {
            at,
            message: message.into(),
        })
    }

    /// The character at the cursor, for messages.
    fn found(&self) -> String {
        match self.peek() {
            None => "the end of the file".into(),
            Some('\n' | '\r') => "the end of the line".into(),
            Some(c) => format!("`{c}`"),
        }
    }

    /// Spaces and tabs.
    fn skip_blank(&mut self) {
        let blank = self.rest().len() - self.rest().trim_start_matches([' ', '\t']).len();
        self.pos += blank;
    }

    /// Spaces, tabs, newlines and comments (between the values of an array or an inline table).
    fn skip_blank_lines(&mut self) -> Result<(), Error> {
        loop {
            self.skip_blank();
            match self.peek() {
                Some('\n') => self.pos += 1,
                Some('\r') => self.newline()?,
                Some('#') => self.comment()?,
                _ => return Ok(()),
            }
        }
    }

    /// `\r\n` (a carriage return alone is no line break).
    fn newline(&mut self) -> Result<(), Error> {
        if self.rest().starts_with("\r\n") {
            self.pos += 2;
            return Ok(());
        }
        self.error(self.pos, "a carriage return must be followed by a newline")
    }

    /// A `#` comment, up to the end of the line: control characters but the tab are not allowed in it.
    fn comment(&mut self) -> Result<(), Error> {
        let len = self.rest().find(['\n', '\r']).unwrap_or(self.rest().len());
        if let Some((i, c)) = self.rest()[..len]
            .char_indices()
            .find(|&(_, c)| is_control(c))
        {
            return self.error(
                self.pos + i,
                format!("control character U+{:04X} in a comment", c as u32),
            );
        }
        self.pos += len;
        Ok(())
    }

    /// After a key/value pair or a header: blanks, a comment, then the end of the line.
    fn end_of_line(&mut self) -> Result<(), Error> {
        self.skip_blank();
        if self.peek() == Some('#') {
            self.comment()?;
        }
        match self.peek() {
            None | Some('\n') => Ok(()),
            Some('\r') => self.newline(),
            _ => self.error(
                self.pos,
                format!("expected the end of the line, found {}", self.found()),
            ),
        }
    }

    /// `[a.b]` or `[[a.b]]` at the cursor: defines the table in `root`; returns its path.
    fn header(&mut self, root: &mut Table) -> Result<Vec<String>, Error> {
        let start = self.pos;
        let array = self.rest().starts_with("[[");
        self.pos += if array { 2 } else { 1 };
        self.skip_blank();
        let key = self.key()?;
        self.skip_blank();
        let close = if array { "]]" } else { "]" };
        if !self.rest().starts_with(close) {
            return self.error(
                self.pos,
                format!("expected `{close}`, found {}", self.found()),
            );
        }
        self.pos += close.len();
        let (last, parents) = key.split_last().expect("a key has a part");
        let mut table = root;
        for part in parents {
            table = descend(table, part, Defined::Implicit)?;
        }
        let name = key
            .iter()
            .map(|k| k.value.as_str())
            .collect::<Vec<_>>()
            .join(".");
        let path = key.iter().map(|k| k.value.clone()).collect();
        let new_table = || Spanned {
            value: Value::Table(Table::new(Defined::Header)),
            at: start,
        };
        match table.get_mut(&last.value).map(|v| &mut v.value) {
            None => {}
            Some(Value::Table(t)) if !array && t.defined == Defined::Implicit => {
                t.defined = Defined::Header;
                return Ok(path);
            }
            Some(Value::Array(items, ArrayKind::Tables)) if array => {
                items.push(new_table());
                return Ok(path);
            }
            Some(Value::Table(t)) if !array && t.defined == Defined::Header => {
                return self.error(start, format!("table `[{name}]` is defined twice"));
            }
            Some(_) => return self.error(last.at, format!("`{name}` is already defined")),
        }
        let value = if array {
            Spanned {
                value: Value::Array(vec![new_table()], ArrayKind::Tables),
                at: start,
            }
        } else {
            new_table()
        };
        table.entries.push((last.clone(), value));
        Ok(path)
    }

    /// `key = value` at the cursor, into `table`.
    fn key_value(&mut self, table: &mut Table) -> Result<(), Error> {
        let key = self.key()?;
        self.skip_blank();
        if self.peek() != Some('=') {
            let name = key.last().map_or("", |k| k.value.as_str());
            return self.error(
                self.pos,
                format!(
                    "expected `=` after the key `{name}`, found {}",
                    self.found()
                ),
            );
        }
        self.pos += 1;
        self.skip_blank();
        let value = self.value()?;
        let (last, parents) = key.split_last().expect("a key has a part");
        let mut table = table;
        for part in parents {
            table = descend(table, part, Defined::Dotted)?;
        }
        if table.get(&last.value).is_some() {
            return self.error(last.at, format!("duplicate key `{}`", last.value));
        }
        table.entries.push((last.clone(), value));
        Ok(())
    }

    /// A dotted key: its parts, each with where it is.
    fn key(&mut self) -> Result<Vec<Spanned<String>>, Error> {
        let mut parts = Vec::new();
        loop {
            let at = self.pos;
            let part = match self.peek() {
                Some('"') if !self.rest().starts_with("\"\"\"") => self.basic_string()?,
                Some('\'') if !self.rest().starts_with("'''") => self.literal_string()?,
                _ => {
                    let len = self
                        .rest()
                        .find(|c: char| !(c.is_alphanumeric() || c == '_' || c == '-'))
                        .unwrap_or(self.rest().len());
                    if len == 0 {
                        return self.error(at, format!("expected a key, found {}", self.found()));
                    }
                    self.pos += len;
                    self.text[at..self.pos].to_string()
                }
            };
            parts.push(Spanned { value: part, at });
            self.skip_blank();
            if self.peek() != Some('.') {
                return Ok(parts);
            }
            self.pos += 1;
            self.skip_blank();
        }
    }

    fn value(&mut self) -> Result<Spanned<Value>, Error> {
        let at = self.pos;
        let value = match self.peek() {
            Some('"') if self.rest().starts_with("\"\"\"") => {
                Value::String(self.multi_line_string('"')?)
            }
            Some('"') => Value::String(self.basic_string()?),
            Some('\'') if self.rest().starts_with("'''") => {
                Value::String(self.multi_line_string('\'')?)
            }
            Some('\'') => Value::String(self.literal_string()?),
            Some('[') => self.array()?,
            Some('{') => Value::Table(self.inline_table()?),
            _ => self.bare_value()?,
        };
        Ok(Spanned { value, at })
    }

    /// `true`, `false`, a number or a date-time.
    fn bare_value(&mut self) -> Result<Value, Error> {
        let at = self.pos;
        let token_len = |s: &str| {
            s.find(|c: char| !(c.is_alphanumeric() || matches!(c, '_' | '-' | '+' | '.' | ':')))
                .unwrap_or(s.len())
        };
        let mut end = at + token_len(self.rest());
        // A date and a time may be separated by a space.
        let date_then_time = |s: &str, tail: &str| {
            s.len() == 10
                && s.as_bytes()[4] == b'-'
                && tail.len() > 3
                && tail.as_bytes()[..2].iter().all(u8::is_ascii_digit)
                && tail.as_bytes()[2] == b':'
        };
        if self.text[end..].starts_with(' ')
            && date_then_time(&self.text[at..end], &self.text[end + 1..])
        {
            end += 1 + token_len(&self.text[end + 1..]);
        }
        let token = &self.text[at..end];
        let value = match token {
            "true" => Value::Boolean(true),
            "false" => Value::Boolean(false),
            "" => return self.error(at, format!("expected a value, found {}", self.found())),
            t if other_value().is_match(t) => Value::Other(t.to_string()),
            t => {
                return self.error(
                    at,
                    format!("invalid value `{t}`: a string is quoted (\"{t}\"), a boolean is true or false"),
                );
            }
        };
        self.pos = end;
        Ok(value)
    }

    fn array(&mut self) -> Result<Value, Error> {
        self.pos += 1;
        let mut items = Vec::new();
        loop {
            self.skip_blank_lines()?;
            if self.peek() == Some(']') {
                self.pos += 1;
                return Ok(Value::Array(items, ArrayKind::Values));
            }
            items.push(self.value()?);
            self.skip_blank_lines()?;
            match self.peek() {
                Some(',') => self.pos += 1,
                Some(']') => {}
                _ => {
                    return self.error(
                        self.pos,
                        format!("expected `,` or `]` in an array, found {}", self.found()),
                    );
                }
            }
        }
    }

    fn inline_table(&mut self) -> Result<Table, Error> {
        self.pos += 1;
        let mut table = Table::new(Defined::Inline);
        loop {
            self.skip_blank_lines()?;
            if self.peek() == Some('}') {
                self.pos += 1;
                return Ok(table);
            }
            self.key_value(&mut table)?;
            self.skip_blank_lines()?;
            match self.peek() {
                Some(',') => self.pos += 1,
                Some('}') => {}
                _ => {
                    return self.error(
                        self.pos,
                        format!(
                            "expected `,` or `}}` in an inline table, found {}",
                            self.found()
                        ),
                    );
                }
            }
        }
    }

    /// `"..."`: the text, escapes resolved.
    fn basic_string(&mut self) -> Result<String, Error> {
        let start = self.pos;
        self.pos += 1;
        let mut out = String::new();
        loop {
            match self.peek() {
                Some('"') => {
                    self.pos += 1;
                    return Ok(out);
                }
                Some('\\') => out.push(self.escape()?),
                None | Some('\n' | '\r') => {
                    return self.error(start, "this string is not closed on its line");
                }
                Some(c) => {
                    self.string_char(c)?;
                    out.push(c);
                }
            }
        }
    }

    /// `'...'`: the text as written.
    fn literal_string(&mut self) -> Result<String, Error> {
        let start = self.pos;
        self.pos += 1;
        let body = &self.rest()[..self
            .rest()
            .find(['\'', '\n', '\r'])
            .unwrap_or(self.rest().len())];
        if !self.rest()[body.len()..].starts_with('\'') {
            return self.error(start, "this string is not closed on its line");
        }
        let body = body.to_string();
        for c in body.chars() {
            self.string_char(c)?;
        }
        self.pos += 1;
        Ok(body)
    }

    /// `"""..."""` or `'''...'''` (`quote`): the text, a newline right after the opening quotes left out.
    fn multi_line_string(&mut self, quote: char) -> Result<String, Error> {
        let start = self.pos;
        self.pos += 3;
        if self.rest().starts_with('\n') {
            self.pos += 1;
        } else if self.rest().starts_with("\r\n") {
            self.pos += 2;
        }
        let close: String = std::iter::repeat_n(quote, 3).collect();
        let mut out = String::new();
        loop {
            let Some(c) = self.peek() else {
                return self.error(start, "this string is not closed");
            };
            if self.rest().starts_with(&close) {
                // Up to two quotes may end the text right before the closing ones.
                let run = self.rest().len() - self.rest().trim_start_matches(quote).len();
                let extra = (run - 3).min(2);
                out.extend(std::iter::repeat_n(quote, extra));
                self.pos += 3 + extra;
                return Ok(out);
            }
            match c {
                '\\' if quote == '"' => {
                    let after = self.rest()[1..].trim_start_matches([' ', '\t']);
                    if after.starts_with('\n') || after.starts_with("\r\n") {
                        // A line-ending backslash: the line break and the blanks after it are left out.
                        self.pos += 1;
                        self.skip_blank_lines_in_string()?;
                    } else {
                        out.push(self.escape()?);
                    }
                }
                '\n' => {
                    out.push('\n');
                    self.pos += 1;
                }
                '\r' => {
                    self.newline()?;
                    out.push('\n');
                }
                c => {
                    self.string_char(c)?;
                    out.push(c);
                }
            }
        }
    }

    /// After a line-ending backslash: spaces, tabs and line breaks.
    fn skip_blank_lines_in_string(&mut self) -> Result<(), Error> {
        loop {
            self.skip_blank();
            match self.peek() {
                Some('\n') => self.pos += 1,
                Some('\r') => self.newline()?,
                _ => return Ok(()),
            }
        }
    }

    /// A character of a string's text at the cursor (not a quote or backslash), which it steps over: control
    /// characters but the tab must be escaped.
    fn string_char(&mut self, c: char) -> Result<(), Error> {
        if is_control(c) {
            return self.error(
                self.pos,
                format!(
                    "control character U+{:04X} in a string: escape it",
                    c as u32
                ),
            );
        }
        self.pos += c.len_utf8();
        Ok(())
    }

    /// The escape sequence at the cursor (`\n`, `\u00E9`, ...): the character it stands for.
    fn escape(&mut self) -> Result<char, Error> {
        let at = self.pos;
        let mut chars = self.rest()[1..].chars();
        let (c, len) = match chars.next() {
            Some('b') => ('\u{8}', 2),
            Some('t') => ('\t', 2),
            Some('n') => ('\n', 2),
            Some('f') => ('\u{c}', 2),
            Some('r') => ('\r', 2),
            Some('e') => ('\u{1b}', 2),
            Some('"') => ('"', 2),
            Some('\\') => ('\\', 2),
            Some(kind @ ('x' | 'u' | 'U')) => {
                let digits = match kind {
                    'x' => 2,
                    'u' => 4,
                    _ => 8,
                };
                let hex = self.rest().get(2..2 + digits).unwrap_or("");
                let code = u32::from_str_radix(hex, 16)
                    .ok()
                    .filter(|_| hex.len() == digits && hex.bytes().all(|b| b.is_ascii_hexdigit()));
                match code.and_then(char::from_u32) {
                    Some(c) => (c, 2 + digits),
                    None => {
                        let written = &self.rest()[..(2 + hex.len()).min(self.rest().len())];
                        return self.error(
                            at,
                            format!("invalid escape `{written}`: not a Unicode scalar value"),
                        );
                    }
                }
            }
            other => {
                let written = other.map_or("\\".to_string(), |c| format!("\\{c}"));
                return self.error(at, format!("invalid escape `{written}` in a string"));
            }
        };
        self.pos += len;
        Ok(c)
    }
}

/// The table `key` names in `table`, made (as `how`) when missing, for a header's parent key (`Implicit`) or a
/// dotted key's (`Dotted`).
fn descend<'t>(
    table: &'t mut Table,
    key: &Spanned<String>,
    how: Defined,
) -> Result<&'t mut Table, Error> {
    if table.get(&key.value).is_none() {
        table.entries.push((
            key.clone(),
            Spanned {
                value: Value::Table(Table::new(how)),
                at: key.at,
            },
        ));
    }
    let refused = |what: &str| {
        Err(Error {
            at: key.at,
            message: format!("`{}` {what}", key.value),
        })
    };
    match &mut table.get_mut(&key.value).expect("present").value {
        Value::Table(t) if t.defined == Defined::Inline => {
            refused("is an inline table, which cannot be extended")
        }
        // Dotted keys may not add to a table a header defined.
        Value::Table(t) if how == Defined::Dotted && t.defined == Defined::Header => {
            refused("is a table defined by its header: dotted keys cannot add to it")
        }
        Value::Table(t) => Ok(t),
        Value::Array(items, ArrayKind::Tables) if how == Defined::Implicit => {
            match items.last_mut().map(|i| &mut i.value) {
                Some(Value::Table(t)) => Ok(t),
                _ => unreachable!("an array of tables holds tables"),
            }
        }
        _ => refused("is already defined as a value"),
    }
}

/// A character TOML wants escaped in strings and keeps out of comments: ASCII control characters but the tab.
fn is_control(c: char) -> bool {
    c.is_ascii_control() && c != '\t'
}

/// The 1-based line and character column of byte `at` in `text`.
pub fn line_col(text: &str, at: usize) -> (usize, usize) {
    let before = &text[..at.min(text.len())];
    let line_start = before.rfind('\n').map_or(0, |i| i + 1);
    (
        before.matches('\n').count() + 1,
        before[line_start..].chars().count() + 1,
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `line:col message` of the document's error, or "ok".
    fn verdict(text: &str) -> String {
        match parse(text) {
            Ok(_) => "ok".into(),
            Err(e) => {
                let (line, col) = line_col(text, e.at);
                format!("{line}:{col} {}", e.message)
            }
        }
    }

    #[test]
    fn valid_documents_are_read() {
        let doc = r#"
# A manifest.
[package]
name = "op" # trailing comment
version = '0.1.0'
description = """
Two \
   lines, "quoted" and \u00e9 ""ending in quotes"""""
notes = '''
raw \n ''end'''''
numbers = [1, +2, -0, 0x1F, 0o7, 0b1, 1_000, 3.14, -1e3, 6.02E+23, inf, -nan, 5e-1]
dates = [1979-05-27T07:32:00Z, 1979-05-27 07:32:00.999-07:00, 1979-05-27, 07:32, 00:32:00.5]
nested = [ [1, 2], ["a", { b = true }], ]
"quoted key" = 1
'literal key' = 2
dotted . key = 3
empty."" = 4

[package.metadata.rkb]
allow-unknown-markers = true

[dependencies]
k8s-openapi = { version = "0.26", features = ["v1_34"], default-features = false }
kube = { version = "2", features = [
  "runtime", # the controller runtime
  "derive",
] }

[dependencies.serde]
version = "1"

[target.'cfg(unix)'.dependencies]
libc = "0.2"

[[bin]]
name = "a"
[[bin]]
name = "b"
[bin.extra]
x = 1

[fruit]
apple.color = "red"
[fruit.apple.texture]
smooth = true
[a.b.c]
[a]
d = 1
"#;
        let root = parse(doc).unwrap_or_else(|e| panic!("{}: {}", verdict(doc), e.message));
        let rkb = root.table(&["package", "metadata", "rkb"]).unwrap();
        assert_eq!(
            rkb.get("allow-unknown-markers").unwrap().value,
            Value::Boolean(true)
        );
        let Value::String(description) = &root
            .table(&["package"])
            .unwrap()
            .get("description")
            .unwrap()
            .value
        else {
            panic!("a string")
        };
        assert_eq!(
            description,
            "Two lines, \"quoted\" and é \"\"ending in quotes\"\""
        );
        let k8s = root.table(&["dependencies", "k8s-openapi"]).unwrap();
        let Value::Array(features, ArrayKind::Values) = &k8s.get("features").unwrap().value else {
            panic!("an array")
        };
        assert_eq!(features[0].value, Value::String("v1_34".into()));
        assert_eq!(line_col(doc, features[0].at), (23, 47));
        // TOML 1.1: an inline table over lines, with a trailing comma; `\e`, `\x` escapes.
        assert_eq!(verdict("a = {\n  b = 1,\n  c = \"\\e\\x41\",\n}\n"), "ok");
        assert_eq!(verdict("\u{feff}a = 1\r\nb = 2\r\n"), "ok");
    }

    #[test]
    fn what_cargo_refuses_is_an_error_where_it_is() {
        for (text, expected) in [
            (
                "[package]\nname = \"op\n",
                "2:8 this string is not closed on its line",
            ),
            ("a = 'x\n", "1:5 this string is not closed on its line"),
            ("a = \"\"\"x\n", "1:5 this string is not closed"),
            (
                "[package\nname = 1\n",
                "1:9 expected `]`, found the end of the line",
            ),
            ("[[bin]\n", "1:6 expected `]]`, found `]`"),
            (
                "name \"op\"\n",
                "1:6 expected `=` after the key `name`, found `\"`",
            ),
            (
                "a = yes\n",
                "1:5 invalid value `yes`: a string is quoted (\"yes\"), a boolean is true or false",
            ),
            (
                "a = 01\n",
                "1:5 invalid value `01`: a string is quoted (\"01\"), a boolean is true or false",
            ),
            ("a =\n", "1:4 expected a value, found the end of the line"),
            (
                "a = 1 b = 2\n",
                "1:7 expected the end of the line, found `b`",
            ),
            ("a = 1\na = 2\n", "2:1 duplicate key `a`"),
            ("[a]\nx = 1\n[a]\n", "3:1 table `[a]` is defined twice"),
            ("a = 1\n[a]\n", "2:2 `a` is already defined"),
            ("a = 1\n[a.b]\n", "2:2 `a` is already defined as a value"),
            (
                "a = {}\n[a.b]\n",
                "2:2 `a` is an inline table, which cannot be extended",
            ),
            ("a = [1]\n[[a]]\n", "2:3 `a` is already defined"),
            ("a.b = 1\n[a]\n", "2:2 `a` is already defined"),
            (
                "[a.b]\n[a]\nb.c = 1\n",
                "3:1 `b` is a table defined by its header: dotted keys cannot add to it",
            ),
            ("a = { b = 1, b = 2 }\n", "1:14 duplicate key `b`"),
            (
                "a = [1 2]\n",
                "1:8 expected `,` or `]` in an array, found `2`",
            ),
            (
                "a = { b = 1 c = 2 }\n",
                "1:13 expected `,` or `}` in an inline table, found `c`",
            ),
            ("a = \"\\q\"\n", "1:6 invalid escape `\\q` in a string"),
            (
                "a = \"\\uD800\"\n",
                "1:6 invalid escape `\\uD800`: not a Unicode scalar value",
            ),
            (
                "a = \"\u{1}\"\n",
                "1:6 control character U+0001 in a string: escape it",
            ),
            ("= 1\n", "1:1 expected a key, found `=`"),
            (
                "a = 1\rb = 2\n",
                "1:6 a carriage return must be followed by a newline",
            ),
            (
                "a = 1 # \u{7f}\n",
                "1:9 control character U+007F in a comment",
            ),
        ] {
            assert_eq!(verdict(text), expected, "{text:?}");
        }
    }
}
