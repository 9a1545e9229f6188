//! The nesting limit: how deep rkb follows what nests, so that input nested deeper is a located error instead of a
//! stack overflow (the process aborts, exit 134, with no word about where).
//!
//! Everything that reads nested input recurses once or more per level: syn (about 40 KiB of stack per level of
//! generic arguments in a debug build: a 2 MiB thread overflows below 50), the scanner, the schema generator,
//! the check rules and the YAML printer. Each stops at [`MAX_NESTING`] levels:
//! - a source file syn reads may nest at most that deep: [`too_deep`] counts the open brackets (`(`, `[`, `{`),
//!   the open angle brackets of generic arguments and a run of prefix operators (`&&&T`, `!!x`) before syn
//!   parses it, and syn then runs on a thread with a large stack ([`crate::read::outline::with_syn`]);
//! - the scanner stops at that many levels of the items it reads (types inside types, inline modules, `use`
//!   groups, serde attribute lists) and reports where;
//! - the schema generator stops at that many levels of a kind's schema (properties, list items, map values, and
//!   each type resolved inside another).
//!
//! Why 128: it is the default recursion limit of rustc (`#![recursion_limit]`) and of serde_json, far deeper than
//! real code (of the 12,000 `.rs` files of a cargo registry cache, none nests 48 levels by [`too_deep`]'s count;
//! the deepest CRD of rkb's corpus, the CronJob tutorial's, nests 16 schema levels), and every stage was measured
//! to stay within its stack at that depth: the generator, the rules and the printer within a 2 MiB thread in a
//! debug build at twice the depth, syn within its own thread's stack.

use crate::read::source::SourceFile;
use rkb_markers::Diagnostic;

use super::lex;

/// The deepest nesting rkb reads (see the module docs).
pub const MAX_NESTING: usize = 128;

/// The error for nesting that passes [`MAX_NESTING`] at byte `at` of `file`, one character underlined.
pub fn error(file: &SourceFile, at: usize) -> Diagnostic {
    let (line, col) = file.position(at);
    Diagnostic::error(format!("nested deeper than {MAX_NESTING} levels"))
        .at(&file.rel, line, col + 1, 1)
        .with_source_line(file.line(line))
        .with_hint(format!(
            "rkb reads at most {MAX_NESTING} levels of nesting (each `<`, `(`, `[` and `{{` opens one), far more than \
             an API type needs; input this deep is generated or broken"
        ))
}

/// The error for `file` when it nests deeper than [`MAX_NESTING`], at the bracket (or prefix operator) that goes
/// one level too deep; `None` when it does not. Read as tokens, without parsing: comments and literals are
/// skipped, brackets counted, and an angle bracket counts while it is open. A `<` that is a comparison never
/// closes, so the open ones are forgotten at the end of a statement (`;`), of a match arm's pattern (`=>`) and of
/// the bracket they are in.
pub fn too_deep(file: &SourceFile) -> Option<Diagnostic> {
    let text = &file.text;
    let b = text.as_bytes();
    // Per open bracket, the angle brackets open outside it.
    let mut brackets: Vec<usize> = Vec::new();
    let mut angles = 0usize;
    // Prefix operators in a row (`&&&&T`): each is a level to syn.
    let mut prefixes = 0usize;
    let mut i = 0;
    while i < b.len() {
        let next = b.get(i + 1).copied();
        let (end, opens) = match (b[i], next) {
            (b' ' | b'\t' | b'\n' | b'\r', _) => (i + 1, false),
            (b'/', Some(b'/')) => (
                b[i..]
                    .iter()
                    .position(|&c| c == b'\n')
                    .map_or(b.len(), |n| i + n),
                false,
            ),
            (b'/', Some(b'*')) => (lex::block_comment_end(b, i).unwrap_or(b.len()), false),
            (b'"', _) => (lex::string_end(b, i + 1).unwrap_or(b.len()), false),
            (b'\'', _) => (
                lex::quote_token(text, i).map_or(i + 1, |(end, _)| end),
                false,
            ),
            (b'(' | b'[' | b'{', _) => {
                brackets.push(angles);
                angles = 0;
                (i + 1, true)
            }
            (b')' | b']' | b'}', _) => {
                angles = brackets.pop().unwrap_or(0);
                (i + 1, false)
            }
            // Shifts and comparisons that are no angle brackets; `->` and `=>` are arrows.
            (b'<', Some(b'<' | b'=')) | (b'>', Some(b'=')) | (b'-', Some(b'>')) => (i + 2, false),
            (b'=', Some(b'>')) | (b';', _) => {
                angles = 0;
                (i + 1 + usize::from(b[i] == b'='), false)
            }
            (b'<', _) => {
                angles += 1;
                (i + 1, true)
            }
            (b'>', _) => {
                angles = angles.saturating_sub(1);
                (i + 1, false)
            }
            (b'&' | b'*' | b'!' | b'-', _) => {
                prefixes += 1;
                (i + 1, true)
            }
            (c, _) if c.is_ascii_alphanumeric() || c == b'_' || !c.is_ascii() => {
                (word_end(b, i), false)
            }
            _ => (i + 1, false),
        };
        let is_prefix = matches!(b[i], b'&' | b'*' | b'!' | b'-') && end == i + 1;
        if !is_prefix && !b[i].is_ascii_whitespace() {
            prefixes = 0;
        }
        if opens && brackets.len() + angles + prefixes > MAX_NESTING {
            return Some(error(file, i));
        }
        i = end;
    }
    None
}

/// Past the identifier, number or prefixed literal (`r"..."`, `b'x'`) at `i`; a non-ASCII character is taken
/// as part of a word.
fn word_end(b: &[u8], i: usize) -> usize {
    if let Some(Some(end)) = lex::prefixed_literal(b, i) {
        return end;
    }
    let len = b[i..]
        .iter()
        .position(|&c| !(c.is_ascii_alphanumeric() || c == b'_' || !c.is_ascii()))
        .unwrap_or(b.len() - i);
    i + len.max(1)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Where `text` nests too deep, if it does.
    fn depth_error(text: &str) -> Option<(usize, usize)> {
        let f = SourceFile::from_text("src/a.rs", text);
        too_deep(&f).map(|d| (d.line, d.col))
    }

    #[test]
    fn brackets_and_generic_arguments_count() {
        let n = MAX_NESTING;
        let types = |depth: usize| {
            format!(
                "struct A {{ a: {}u8{} }}\n",
                "Vec<".repeat(depth),
                ">".repeat(depth)
            )
        };
        // The struct's braces are one level.
        assert_eq!(depth_error(&types(n - 1)), None);
        assert_eq!(depth_error(&types(n)), Some((1, 18 + 4 * (n - 1))));
        let calls = |depth: usize| {
            format!(
                "fn f() {{ {}1{}; }}\n",
                "g(".repeat(depth),
                ")".repeat(depth)
            )
        };
        assert_eq!(depth_error(&calls(n - 1)), None);
        assert!(depth_error(&calls(n)).is_some());
        let refs = |depth: usize| format!("type A = {}u8;\n", "&".repeat(depth));
        assert_eq!(depth_error(&refs(n)), None);
        assert_eq!(depth_error(&refs(n + 1)), Some((1, 10 + n)));
    }

    #[test]
    fn comparisons_comments_and_literals_do_not_nest() {
        let many = MAX_NESTING * 2;
        let statements = "fn f(a: u8) -> bool { let x = a < 1; x }\n".repeat(many);
        let arms = format!(
            "fn f(a: u8) -> u8 {{ match a {{ {} _ => 0 }} }}\n",
            "b if b < 1 => 1,".repeat(many)
        );
        let literals = format!(
            "// {0}\n/* {0} */ const S: &str = \"{0}\"; const R: &str = r#\"{0}\"#; const C: char = '(';\n",
            "(<[{".repeat(many)
        );
        let operators = format!(
            "fn f(a: bool) -> bool {{ {} }}\n",
            "a && !a || ".repeat(many) + "a"
        );
        for text in [statements, arms, literals, operators] {
            assert_eq!(depth_error(&text), None, "{}", &text[..80]);
        }
    }
}
