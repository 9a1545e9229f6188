//! Stage 1, read: one source file (its text, and the line and column of a byte in it), syn's parse of it, and
//! its doc lines with the positions markers are reported at, placed the same way by both front ends (the scanner
//! and syn).

use rkb_markers::Diagnostic;
use std::path::PathBuf;

/// One Rust source file, parsed.
pub struct SourceFile {
    /// Path relative to the project root (what diagnostics print), e.g. `src/api/v1/demo_types.rs`.
    pub rel: PathBuf,
    pub abs: PathBuf,
    pub text: String,
    line_starts: Vec<usize>,
    /// Module path of the file under the crate root, e.g. `["api", "v1", "demo_types"]`.
    pub module: Vec<String>,
    /// True for `mod.rs`, `lib.rs`, `main.rs` and `x.rs` files that have a sibling `x/` directory.
    pub is_module_root: bool,
}

impl SourceFile {
    /// The file at `abs` (`rel` to the project root) holding `text`.
    pub fn new(
        rel: PathBuf,
        abs: PathBuf,
        text: String,
        module: Vec<String>,
        is_module_root: bool,
    ) -> Self {
        SourceFile {
            rel,
            abs,
            line_starts: line_starts(&text),
            text,
            module,
            is_module_root,
        }
    }

    /// The byte offset where 0-based line `i` starts.
    pub fn line_start(&self, i: usize) -> usize {
        self.line_starts[i]
    }

    /// The text of 1-based line `n` (without newline); empty when out of range.
    pub fn line(&self, n: usize) -> &str {
        if n == 0 || n > self.line_starts.len() {
            return "";
        }
        let start = self.line_starts[n - 1];
        let end = self.line_starts.get(n).copied().unwrap_or(self.text.len());
        self.text[start..end].trim_end_matches(['\n', '\r'])
    }

    /// A file that is not on disk, for tests.
    #[cfg(test)]
    pub fn from_text(rel: &str, text: &str) -> SourceFile {
        SourceFile {
            rel: PathBuf::from(rel),
            abs: PathBuf::from("/").join(rel),
            text: text.to_string(),
            line_starts: line_starts(text),
            module: Vec::new(),
            is_module_root: false,
        }
    }

    /// The 1-based line and 0-based character column of byte offset `byte` (a char boundary).
    pub fn position(&self, byte: usize) -> (usize, usize) {
        let line = self.line_starts.partition_point(|&s| s <= byte);
        let start = self.line_starts[line - 1];
        (line, self.text[start..byte].chars().count())
    }
}

fn line_starts(text: &str) -> Vec<usize> {
    let mut v = vec![0];
    v.extend(text.match_indices('\n').map(|(i, _)| i + 1));
    v
}

/// Parses `file` with syn (inside [`with_fallback_lexer`]). A syntax error becomes a diagnostic (with syn's location) and `None`. The
/// model walks each tree right after parsing it and drops it: holding every file's tree at once only
/// cost memory.
pub fn parse(file: &SourceFile, diags: &mut Vec<Diagnostic>) -> Option<syn::File> {
    let text = &file.text;
    match parse_file(text) {
        Ok(ast) => Some(ast),
        Err(e) => {
            let start = e.span().start();
            let line = start.line;
            let col = start.column + 1;
            let src_line = text
                .lines()
                .nth(line.saturating_sub(1))
                .unwrap_or("")
                .to_string();
            // proc-macro2's lexer only says "cannot parse string into token stream" for lexing failures.
            let msg = e.to_string();
            let msg = if msg.contains("cannot parse string into token stream") {
                "unbalanced delimiter or unterminated literal".to_string()
            } else {
                msg
            };
            diags.push(
                Diagnostic::error(format!("Rust syntax error: {msg}"))
                    .at(&file.rel, line, col, 1)
                    .with_source_line(src_line)
                    .with_hint("rkb manifests reads the API types with syn; fix the syntax (cargo check shows the same error)"),
            );
            None
        }
    }
}

fn parse_file(text: &str) -> syn::Result<syn::File> {
    syn::parse_file(&doc_comments_as_bare_attrs(text))
}

/// Runs `f` (which parses, possibly on threads it spawns) with proc-macro2's own lexer, so spans carry
/// line/column even inside a proc macro (the derive calls us at compile time). The switch is
/// process-wide: it is flipped once here, on the calling thread, never by the parsing threads.
pub fn with_fallback_lexer<T>(f: impl FnOnce() -> T) -> T {
    struct Restore;
    impl Drop for Restore {
        fn drop(&mut self) {
            proc_macro2::fallback::unforce();
        }
    }
    proc_macro2::fallback::force();
    let _restore = Restore;
    f()
}

/// The text syn parses: every `/// ...` line becomes `#[doc]` at the same line and column (and `//! ...`
/// becomes `#![doc]`); [`doc_lines`] reads their text from the original source. The lexer would turn each
/// doc line into an escaped string literal that we then unescape again, which was most of the parse
/// time. Lines whose comment text holds `"`, `/*`, `*/` or a carriage return are left alone: dropping
/// that text could change the syntax around a doc-looking line inside a string or block comment.
fn doc_comments_as_bare_attrs(text: &str) -> std::borrow::Cow<'_, str> {
    if !text.contains("///") && !text.contains("//!") {
        return std::borrow::Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len());
    for line in text.split_inclusive('\n') {
        let body_end = line.strip_suffix('\n').map_or(line.len(), |l| {
            l.strip_suffix('\r').map_or(l.len(), str::len)
        });
        let lead = line.len() - line.trim_start_matches([' ', '\t']).len();
        let code = &line[lead..body_end];
        let attr = if code.starts_with("///") && !code.starts_with("////") {
            "#[doc]"
        } else if code.starts_with("//!") {
            "#![doc]"
        } else {
            ""
        };
        let comment = code.get(3..).unwrap_or("");
        let plain =
            !comment.contains(['"', '\r']) && !comment.contains("/*") && !comment.contains("*/");
        if attr.is_empty() || !plain {
            out.push_str(line);
            continue;
        }
        out.push_str(&line[..lead]);
        out.push_str(attr);
        out.push_str(&line[body_end..]);
    }
    std::borrow::Cow::Owned(out)
}

/// One doc line: the text after `///` (or `//!`, or a `#[doc = "..."]` string) and where it starts.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DocLine {
    pub text: String,
    pub line: usize,
    /// 1-based character column of the first character of `text`.
    pub col: usize,
}

/// Doc lines of the attributes `attrs` (outer or inner, as asked).
pub fn doc_lines(attrs: &[syn::Attribute], file: &SourceFile, inner: bool) -> Vec<DocLine> {
    let mut out = Vec::new();
    for attr in attrs {
        let is_inner = matches!(attr.style, syn::AttrStyle::Inner(_));
        if is_inner != inner || !attr.path().is_ident("doc") {
            continue;
        }
        let s = match &attr.meta {
            syn::Meta::NameValue(syn::MetaNameValue {
                value:
                    syn::Expr::Lit(syn::ExprLit {
                        lit: syn::Lit::Str(s),
                        ..
                    }),
                ..
            }) => Some(s),
            // A `///` or `//!` line, parsed as a bare `#[doc]` (see `doc_comments_as_bare_attrs`).
            syn::Meta::Path(_) => None,
            _ => continue,
        };
        let start = match s {
            Some(s) => s.span().start(),
            None => attr.pound_token.span.start(),
        };
        let src_line = file.line(start.line);
        let rest = src_line
            .char_indices()
            .nth(start.column)
            .map_or("", |(b, _)| &src_line[b..]);
        let Some(s) = s else {
            if let Some(text) = rest.strip_prefix("///").or(rest.strip_prefix("//!")) {
                place_doc(
                    text,
                    DocForm::Line,
                    start.line,
                    start.column,
                    file,
                    &mut out,
                );
            }
            continue;
        };
        let form = if rest.starts_with("///") || rest.starts_with("//!") {
            DocForm::Line
        } else if rest.starts_with("/**") || rest.starts_with("/*!") {
            DocForm::Block
        } else {
            DocForm::Attr {
                quote: rest
                    .find('"')
                    .map(|i| rest[..=i].chars().count())
                    .unwrap_or(1),
            }
        };
        place_doc(&s.value(), form, start.line, start.column, file, &mut out);
    }
    out
}

/// How a doc text was written; it decides where [`place_doc`] puts each line.
pub enum DocForm {
    /// `///` or `//!`: the text follows the three characters.
    Line,
    /// `/** */` or `/*! */`: the first line follows the three characters, each later line starts where
    /// its text is found on its source line.
    Block,
    /// `#[doc = "..."]`: `quote` characters (`"`, or `r#"`...) come before the text on the first line.
    Attr { quote: usize },
}

/// Pushes the lines of the doc text `value`, written as `form` from 1-based `line` and 0-based character
/// column `col`, with the positions markers are reported at. Both front ends (syn and the scanner) place
/// doc lines through this, so their positions cannot differ.
pub fn place_doc(
    value: &str,
    form: DocForm,
    line: usize,
    col: usize,
    file: &SourceFile,
    out: &mut Vec<DocLine>,
) {
    for (i, text) in value.split('\n').enumerate() {
        let col = match (&form, i) {
            (DocForm::Attr { quote }, 0) => col + 1 + quote,
            (DocForm::Attr { .. }, _) => col + 1,
            (_, 0) => col + 4,
            (_, _) => {
                let src = file.line(line + i);
                src.find(text.trim())
                    .map_or(1, |b| src[..b].chars().count() + 1)
            }
        };
        out.push(DocLine {
            text: text.to_string(),
            line: line + i,
            col,
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn source(text: &str) -> SourceFile {
        SourceFile::from_text("src/a.rs", text)
    }

    #[test]
    fn doc_comment_lines_become_bare_attributes_in_place() {
        let src = "//! +groupName=a.b\n/// Doc \"quoted\".\n  /// +kubebuilder:validation:Minimum=1\r\n//// plain\n/// a */ b\nstruct A;\n";
        assert_eq!(
            doc_comments_as_bare_attrs(src),
            "#![doc]\n/// Doc \"quoted\".\n  #[doc]\r\n//// plain\n/// a */ b\nstruct A;\n"
        );
    }

    #[test]
    fn doc_lines_are_what_the_lexer_would_have_given() {
        let text = "//! +groupName=a.b\n/// Plain doc.\n/// Quoted \"x\" stays a literal.\n///\n    ///   +kubebuilder:validation:Minimum=1 é\n#[doc = \" attr\"]\n/// after\npub struct A;\n";
        let f = source(text);
        let mut diags = Vec::new();
        let (ours, lexed) = with_fallback_lexer(|| {
            let ours = parse(&f, &mut diags).expect("parses");
            (ours, syn::parse_file(text).expect("parses"))
        });
        let lines = |ast: &syn::File| {
            let syn::Item::Struct(s) = &ast.items[0] else {
                panic!("a struct")
            };
            let mut v = doc_lines(&ast.attrs, &f, true);
            v.extend(doc_lines(&s.attrs, &f, false));
            v.into_iter()
                .map(|d| (d.text, d.line, d.col))
                .collect::<Vec<_>>()
        };
        let want = lines(&lexed);
        assert_eq!(want.len(), 7);
        assert_eq!(
            want[4],
            ("   +kubebuilder:validation:Minimum=1 é".into(), 5, 8)
        );
        assert_eq!(lines(&ours), want);
        assert!(diags.is_empty());
    }
}
