//! Tokens for the scanner: identifiers, lifetimes, literals, single-character punctuation, delimiters
//! (each open one knows where it closes) and doc comments. Anything the lexer is not sure about (a
//! non-ASCII identifier, a byte order mark, a carriage return inside a doc comment...) makes it give up,
//! and syn reads the file instead.

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    Ident,
    Lifetime,
    Literal,
    Punct(u8),
    /// `(`, `[` or `{`; `close` is the index of the matching closing token.
    Open(u8),
    Close,
    /// A `///` line (the token spans it from its first `/` to before the line break) or a `/** */`
    /// block.
    OuterDoc,
    /// A `//!` line or a `/*! */` block.
    InnerDoc,
}

#[derive(Clone, Copy, Debug)]
pub struct Token {
    pub kind: Kind,
    /// Byte range in the source.
    pub start: usize,
    pub end: usize,
    /// For [`Kind::Open`], the index of its [`Kind::Close`].
    pub close: usize,
}

const PUNCT: &[u8] = b"!#$%&*+,-./:;<=>?@^|~";

/// The tokens of `text`, or `None` when it holds something only syn should judge.
pub fn lex(text: &str) -> Option<Vec<Token>> {
    let b = text.as_bytes();
    // A BOM shifts columns, a shebang line is not a token: both are syn's.
    if text.starts_with('\u{feff}')
        || (text.starts_with("#!") && !text[2..].trim_start().starts_with('['))
    {
        return None;
    }
    let mut toks: Vec<Token> = Vec::with_capacity(text.len() / 4);
    let mut open: Vec<usize> = Vec::new();
    let mut i = 0;
    while i < b.len() {
        let c = b[i];
        let start = i;
        let kind = match c {
            b' ' | b'\t' | b'\n' | b'\r' | b'\x0b' | b'\x0c' => {
                i += 1;
                continue;
            }
            b'/' if matches!(b.get(i + 1), Some(b'/' | b'*')) => {
                let (next, doc) = comment(text, i)?;
                i = next;
                toks.extend(doc);
                continue;
            }
            b'"' => {
                i = suffix_end(b, string_end(b, i + 1)?);
                Kind::Literal
            }
            b'\'' => {
                let (end, kind) = quote_token(text, i)?;
                i = end;
                kind
            }
            b'0'..=b'9' => {
                i = number_end(b, i);
                Kind::Literal
            }
            b'a'..=b'z' | b'A'..=b'Z' | b'_' => {
                let (end, kind) = word(b, i)?;
                i = end;
                kind
            }
            b'(' | b'[' | b'{' => {
                open.push(toks.len());
                i += 1;
                Kind::Open(c)
            }
            b')' | b']' | b'}' => {
                let o = open.pop()?;
                let Kind::Open(oc) = toks[o].kind else {
                    return None;
                };
                if matching(oc) != c {
                    return None;
                }
                toks[o].close = toks.len();
                i += 1;
                Kind::Close
            }
            c if PUNCT.contains(&c) => {
                i += 1;
                Kind::Punct(c)
            }
            _ => return None,
        };
        toks.push(Token {
            kind,
            start,
            end: i,
            close: 0,
        });
    }
    open.is_empty().then_some(toks)
}

/// A comment starting at `i` (`//` or `/*`): where lexing goes on, and the doc token when it is a doc comment.
/// `None` for what syn should judge: a carriage return that is no line break inside a doc comment, an unclosed
/// block.
fn comment(text: &str, i: usize) -> Option<(usize, Option<Token>)> {
    let b = text.as_bytes();
    let rest = &text[i..];
    if rest.starts_with("//") {
        let eol = b[i..]
            .iter()
            .position(|&c| c == b'\n')
            .map_or(b.len(), |n| i + n);
        let body = &text[i..eol];
        let kind = if body.starts_with("///") && !body.starts_with("////") {
            Kind::OuterDoc
        } else if body.starts_with("//!") {
            Kind::InnerDoc
        } else {
            return Some((eol, None));
        };
        // A carriage return is a line break only before `\n`; proc-macro2 judges the rest.
        let body = body.trim_end_matches('\r');
        if body.contains('\r') {
            return None;
        }
        let end = i + body.len();
        return Some((
            eol,
            Some(Token {
                kind,
                start: i,
                end,
                close: 0,
            }),
        ));
    }
    let end = block_comment_end(b, i)?;
    let kind = if rest.starts_with("/*!") {
        Kind::InnerDoc
    } else if rest.starts_with("/**") && !rest.starts_with("/***") && !rest.starts_with("/**/") {
        Kind::OuterDoc
    } else {
        return Some((end, None));
    };
    if text[i..end].contains('\r') {
        return None;
    }
    Some((
        end,
        Some(Token {
            kind,
            start: i,
            end,
            close: 0,
        }),
    ))
}

/// End of a number starting at `i` (digits, letters of a suffix or radix, `_`, and a `.` before a digit).
fn number_end(b: &[u8], mut i: usize) -> usize {
    i += 1;
    while i < b.len()
        && (b[i].is_ascii_alphanumeric()
            || b[i] == b'_'
            || (b[i] == b'.' && b.get(i + 1).is_some_and(u8::is_ascii_digit)))
    {
        i += 1;
    }
    i
}

/// An identifier (`r#ident` is one) or a prefixed literal (`b"..."`, `r#"..."#`, ...) starting at `i`; `None`
/// for a non-ASCII identifier.
fn word(b: &[u8], mut i: usize) -> Option<(usize, Kind)> {
    if let Some(end) = prefixed_literal(b, i)? {
        return Some((end, Kind::Literal));
    }
    if b[i] == b'r'
        && b.get(i + 1) == Some(&b'#')
        && b.get(i + 2)
            .is_some_and(|&c| c.is_ascii_alphabetic() || c == b'_')
    {
        i += 2;
    }
    while i < b.len() && (b[i].is_ascii_alphanumeric() || b[i] == b'_') {
        i += 1;
    }
    if i < b.len() && !b[i].is_ascii() {
        return None;
    }
    Some((i, Kind::Ident))
}

fn matching(open: u8) -> u8 {
    match open {
        b'(' => b')',
        b'[' => b']',
        _ => b'}',
    }
}

/// End of a (nested) block comment starting at `i`.
pub(super) fn block_comment_end(b: &[u8], mut i: usize) -> Option<usize> {
    let mut depth = 0usize;
    while i + 1 < b.len() {
        match (b[i], b[i + 1]) {
            (b'/', b'*') => {
                depth += 1;
                i += 2;
            }
            (b'*', b'/') => {
                depth -= 1;
                i += 2;
                if depth == 0 {
                    return Some(i);
                }
            }
            _ => i += 1,
        }
    }
    None
}

/// End (after the closing quote) of a string whose body starts at `i`.
pub(super) fn string_end(b: &[u8], mut i: usize) -> Option<usize> {
    while i < b.len() {
        match b[i] {
            b'\\' => i += 2,
            b'"' => return Some(i + 1),
            _ => i += 1,
        }
    }
    None
}

/// End of a raw string body starting at `i` (just after `r`): `#`s, `"`, text, `"`, as many `#`s.
fn raw_string_end(b: &[u8], mut i: usize) -> Option<usize> {
    let hashes = b[i..].iter().take_while(|&&c| c == b'#').count();
    i += hashes;
    if b.get(i) != Some(&b'"') {
        return None;
    }
    i += 1;
    while i < b.len() {
        if b[i] == b'"'
            && b[i + 1..]
                .iter()
                .take(hashes)
                .filter(|&&c| c == b'#')
                .count()
                == hashes
        {
            return Some(i + 1 + hashes);
        }
        i += 1;
    }
    None
}

/// Identifier characters glued to a literal (`1u8`, `"x"suffix`).
fn suffix_end(b: &[u8], mut i: usize) -> usize {
    while i < b.len() && (b[i].is_ascii_alphanumeric() || b[i] == b'_') {
        i += 1;
    }
    i
}

/// A literal with a letter prefix at `i` (`r"…"`, `r#"…"#`, `b"…"`, `b'…'`, `br"…"`, `c"…"`, `cr"…"`):
/// `Some(Some(end))`; `Some(None)` when `i` starts an identifier; `None` when unsure.
pub(super) fn prefixed_literal(b: &[u8], i: usize) -> Option<Option<usize>> {
    let at = |k: usize| b.get(i + k).copied();
    let end = match (b[i], at(1), at(2)) {
        (b'r', Some(b'"'), _) => raw_string_end(b, i + 1)?,
        (b'r', Some(b'#'), Some(b'"' | b'#')) => raw_string_end(b, i + 1)?,
        (b'b' | b'c', Some(b'"'), _) => string_end(b, i + 2)?,
        (b'b' | b'c', Some(b'r'), Some(b'"' | b'#')) => raw_string_end(b, i + 2)?,
        (b'b', Some(b'\''), _) => char_end(b, i + 2)?,
        _ => return Some(None),
    };
    Some(Some(suffix_end(b, end)))
}

/// End of a character literal whose body starts at `i`.
fn char_end(b: &[u8], mut i: usize) -> Option<usize> {
    while i < b.len() {
        match b[i] {
            b'\\' => i += 2,
            b'\'' => return Some(i + 1),
            b'\n' => return None,
            _ => i += 1,
        }
    }
    None
}

/// A `'` at `i`: a character literal or a lifetime (or a loop label).
pub(super) fn quote_token(text: &str, i: usize) -> Option<(usize, Kind)> {
    let b = text.as_bytes();
    if b.get(i + 1) == Some(&b'\\') {
        return Some((suffix_end(b, char_end(b, i + 1)?), Kind::Literal));
    }
    let ch = text[i + 1..].chars().next()?;
    let after = i + 1 + ch.len_utf8();
    if b.get(after) == Some(&b'\'') {
        return Some((suffix_end(b, after + 1), Kind::Literal));
    }
    if !(ch.is_ascii_alphabetic() || ch == '_') {
        return None;
    }
    let mut end = after;
    while end < b.len() && (b[end].is_ascii_alphanumeric() || b[end] == b'_') {
        end += 1;
    }
    if end < b.len() && !b[end].is_ascii() {
        return None;
    }
    Some((end, Kind::Lifetime))
}
