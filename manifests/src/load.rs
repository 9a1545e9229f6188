//! Stage 1, read: read the files of the module tree (modules.rs); syn-parse one (when the scanner steps aside) and pull doc comments
//! (with their positions) off its items.

use crate::modules;
use rkb_markers::Diagnostic;
use std::collections::HashSet;
use std::path::{Path, PathBuf};

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

/// Reads the files of the module tree cargo compiles (modules.rs), level by level, each level on every core; sorted
/// by path. A broken tree (a declared module without its file, an unreadable file) is an error with every such
/// declaration located, and nothing else is read. Warnings for files the tree does not reach go to `diags`.
pub fn load_sources(
    root: &Path,
    diags: &mut Vec<Diagnostic>,
) -> Result<Vec<SourceFile>, crate::Error> {
    let src = root.join("src");
    if !src.is_dir() {
        return Err(crate::Error::Diagnostics(vec![
            Diagnostic::error(format!("no src/ directory under {}", root.display())).with_hint(
                "run `rkb manifests` in the project root (the directory with Cargo.toml and src/)",
            ),
        ]));
    }
    let mut level = modules::crate_roots(root).map_err(|d| crate::Error::Diagnostics(vec![*d]))?;
    let mut seen: HashSet<PathBuf> = level.iter().map(|r| r.abs.clone()).collect();
    let mut files = Vec::new();
    let mut errors = Vec::new();
    while !level.is_empty() {
        let read = crate::parallel::map_indexed(
            level.len(),
            crate::parallel::MIN_FILES_TO_READ,
            || (),
            |(), i| read_source(root, &level[i]),
        );
        let mut next = Vec::new();
        for (reached, file) in level.iter().zip(read) {
            let file = match file {
                Ok(file) => file,
                Err(e) => {
                    errors.push(*e);
                    continue;
                }
            };
            for child in modules::children(&file, reached, &mut errors) {
                if seen.insert(child.abs.clone()) {
                    next.push(child);
                }
            }
            files.push(file);
        }
        level = next;
    }
    if !errors.is_empty() {
        return Err(crate::Error::Diagnostics(errors));
    }
    diags.extend(modules::unreached_with_markers(root, &seen));
    files.sort_by(|a, b| a.abs.cmp(&b.abs));
    Ok(files)
}

/// Reads the file `reached` names. A file that cannot be read is an error at the `mod` that declares it (a crate
/// root's error names the root).
fn read_source(root: &Path, reached: &modules::Reached) -> Result<SourceFile, Box<Diagnostic>> {
    let abs = &reached.abs;
    let rel = abs.strip_prefix(root).unwrap_or(abs).to_path_buf();
    let text = std::fs::read_to_string(abs).map_err(|e| {
        let d = Diagnostic::error(format!("cannot read {}: {e}", rel.display()));
        Box::new(match &reached.declared_at {
            Some(at) => at
                .locate(d)
                .with_hint(format!("module `{}` is declared here; make its file a readable UTF-8 file, or remove the declaration", at.name)),
            None => d.with_hint("make the crate root a readable UTF-8 file"),
        })
    })?;
    let has_dir = abs.with_extension("").is_dir();
    Ok(SourceFile {
        rel,
        abs: abs.to_path_buf(),
        line_starts: line_starts(&text),
        text,
        module: reached.module.clone(),
        is_module_root: reached.mod_rs || has_dir,
    })
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

/// The module path of `file` in the project's crate, by the rule the model names types with (so the derive macro,
/// placing its input, agrees with `rkb manifests`): `src/api/v1/widget_types.rs` is `["api", "v1", "widget_types"]`,
/// `mod.rs` and `lib.rs` name their directory. `file` is absolute or relative to `project_root`; `None` when it is
/// not under `project_root/src`.
pub fn module_path(project_root: &Path, file: &Path) -> Option<Vec<String>> {
    // Joining an absolute path gives that path.
    let abs = project_root.join(file);
    let rel = abs.strip_prefix(project_root).ok()?;
    rel.starts_with("src").then(|| module_of(rel, &abs).0)
}

fn module_of(rel: &Path, abs: &Path) -> (Vec<String>, bool) {
    let mut parts: Vec<String> = rel
        .iter()
        .skip(1)
        .map(|p| p.to_string_lossy().into_owned())
        .collect::<Vec<_>>();
    let file = parts.pop().unwrap_or_default();
    let stem = file.trim_end_matches(".rs").to_string();
    let is_root_file = matches!(stem.as_str(), "mod" | "lib" | "main");
    if !is_root_file {
        parts.push(stem.clone());
    }
    let has_dir = abs.with_extension("").is_dir();
    let is_bin = rel.iter().nth(1).is_some_and(|p| p == "bin");
    if is_bin {
        // src/bin/*.rs are separate crates; their modules don't share the library's paths.
        return (vec!["bin".into(), stem], false);
    }
    (parts, is_root_file || has_dir)
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

/// Warnings for kube-derive's `#[derive(CustomResource)]` on types under `src/api`: rkb generates CRDs from its
/// own kinds and markers, not from kube's attributes, so such a type would get no CRD without a word.
pub fn kube_derives(file: &SourceFile, diags: &mut Vec<Diagnostic>) {
    if file.module.first().map(String::as_str) != Some("api") {
        return;
    }
    for (i, line) in file.text.lines().enumerate() {
        let Some(start) = line.find("#[derive(") else {
            continue;
        };
        if !line[..start].trim().is_empty() {
            continue; // inside a comment, string or other code on the same line
        }
        // The derive list may span lines: read to its `)]`.
        let offset = file.line_starts[i] + start;
        let list = &file.text[offset..];
        let list = &list[..list.find(")]").unwrap_or(list.len())];
        let Some(at) = find_word(list, "CustomResource") else {
            continue;
        };
        let line_no = i + 1 + list[..at].matches('\n').count();
        let text = file.line(line_no);
        let col = text
            .find("CustomResource")
            .map_or(1, |c| text[..c].chars().count() + 1);
        diags.push(
            Diagnostic::warning(
                "`#[derive(CustomResource)]` is kube-derive's: rkb does not read it, so no CRD is generated for this type",
            )
            .at(&file.rel, line_no, col, "CustomResource".len())
            .with_source_line(text)
            .with_hint(
                "rkb writes CRDs for its own kinds: a struct marked `/// +kubebuilder:object:root=true` with `metadata: ObjectMeta`, `spec` and `status` (docs/markers.md); port the type, or keep kube-derive types out of src/api",
            ),
        );
    }
}

/// Byte offset of `word` in `text` where it stands alone (not part of a longer identifier).
fn find_word(text: &str, word: &str) -> Option<usize> {
    let ident = |c: char| c.is_alphanumeric() || c == '_';
    text.match_indices(word)
        .map(|(i, _)| i)
        .find(|&i| !text[..i].ends_with(ident) && !text[i + word.len()..].starts_with(ident))
}

/// Warnings for marker-looking text in plain `//` comments (controller-gen reads those in Go, rkb does not).
pub fn plain_comment_markers(file: &SourceFile, diags: &mut Vec<Diagnostic>) {
    let reg = rkb_markers::Registry::get();
    for (i, line) in file.text.lines().enumerate() {
        let trimmed = line.trim_start();
        let Some(after) = trimmed.strip_prefix("//") else {
            continue;
        };
        if after.starts_with('/') || after.starts_with('!') {
            continue;
        }
        let body = after.trim_start();
        let Some(name) = body.strip_prefix('+') else {
            continue;
        };
        if !name.starts_with(|c: char| c.is_ascii_alphabetic()) {
            continue;
        }
        if !reg.owns(name.trim_end()) {
            continue;
        }
        let lead = line.len() - trimmed.len();
        let plus = lead + 2 + (after.len() - body.len());
        let col = line[..plus].chars().count() + 1;
        let inner_hint = reg
            .lookup(name.trim_end())
            .is_some_and(|(d, _)| d.family == rkb_markers::Family::Package);
        diags.push(
            Diagnostic::warning("marker in a plain `//` comment is not read")
                .at(
                    &file.rel,
                    i + 1,
                    lead + 1,
                    body.trim_end().chars().count() + (col - lead - 1),
                )
                .with_source_line(line)
                .with_hint(if inner_hint {
                    "write package markers as inner doc comments: `//! +...` in the version module"
                } else {
                    "write markers in doc comments: `/// +...` (or `//! +...` for package markers)"
                }),
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn source(text: &str) -> SourceFile {
        SourceFile::from_text("src/a.rs", text)
    }

    #[test]
    fn module_path_is_the_module_a_file_defines() {
        let root = Path::new("/work/operator");
        let path = |file: &str| module_path(root, Path::new(file)).map(|m| m.join("::"));
        assert_eq!(
            path("src/api/v1/widget_types.rs").as_deref(),
            Some("api::v1::widget_types")
        );
        assert_eq!(
            path("/work/operator/src/api/v1/mod.rs").as_deref(),
            Some("api::v1")
        );
        assert_eq!(path("src/lib.rs").as_deref(), Some(""));
        assert_eq!(path("/work/other/src/api/v1/mod.rs"), None);
        assert_eq!(path("build.rs"), None);
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
