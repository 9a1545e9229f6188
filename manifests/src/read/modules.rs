//! Stage 1, read: the module tree cargo compiles, and nothing else.
//!
//! Contract:
//! - The tree starts at the crate roots cargo finds on its own: `src/lib.rs`, `src/main.rs`, `src/bin/*.rs` and
//!   `src/bin/*/main.rs`. A project with none of them is an error (cargo has nothing to build).
//! - From each file, every `mod name;` is followed as rustc does: `name.rs` or `name/mod.rs` in the directory the
//!   declaring file owns (its own for `mod.rs` and crate roots, `x/` for `x.rs`, plus the inline `mod a { .. }`
//!   blocks around the declaration), or the file a `#[path = "..."]` names.
//! - A declared module whose file is missing, a dangling symlink, unreadable, or found at both places is an
//!   error at the `mod` line (rustc refuses the tree too), and the run stops before anything is generated. A
//!   declaration under a `#[cfg(..)]` whose file is missing is left out without a word: rkb cannot tell whether the
//!   configuration compiles it, and rustc only needs the file when it does.
//! - A file reached twice (`mod api;` in both lib.rs and main.rs) is read once, with the module path of the first
//!   declaration in the order above.
//! - `.rs` files under `src/` that no `mod` reaches are not read; one that holds markers gets a warning.
//!
//! Declarations are found on the scanner's tokens (`scan::lex`); a file the lexer gives up on is read by syn.

use crate::read::scan::lex::{self, Kind, Token};
use rkb_markers::Diagnostic;
use std::path::{Path, PathBuf};

/// A file the tree reaches, before it is read.
pub struct Reached {
    pub abs: PathBuf,
    /// Its module path under the crate root, e.g. `["api", "v1", "demo_types"]`.
    pub module: Vec<String>,
    /// Whether it owns the directory it is in (`mod.rs`, a crate root, a file reached through `#[path]`).
    pub mod_rs: bool,
    /// The declaration that reached it, for errors while reading it; `None` for a crate root.
    pub declared_at: Option<DeclaredAt>,
}

/// Where a `mod name;` is, to place an error about its file.
#[derive(Clone, Debug)]
pub struct DeclaredAt {
    pub rel: PathBuf,
    pub line: usize,
    pub col: usize,
    pub len: usize,
    pub source_line: String,
    pub name: String,
}

impl DeclaredAt {
    /// `d` placed at the declaration.
    pub fn locate(&self, d: Diagnostic) -> Diagnostic {
        d.at(&self.rel, self.line, self.col, self.len)
            .with_source_line(&self.source_line)
    }
}

/// The crate roots of the project under `root` (see the module docs), in that order.
pub fn crate_roots(root: &Path) -> Result<Vec<Reached>, Box<Diagnostic>> {
    let src = root.join("src");
    let mut roots: Vec<Reached> = ["lib.rs", "main.rs"]
        .iter()
        .map(|f| src.join(f))
        .filter(|p| p.symlink_metadata().is_ok())
        .map(|abs| crate_root(abs, Vec::new()))
        .collect();
    let mut bins: Vec<(PathBuf, String)> = std::fs::read_dir(src.join("bin"))
        .into_iter()
        .flatten()
        .filter_map(Result::ok)
        .filter_map(|e| {
            let path = e.path();
            let name = path.file_stem()?.to_string_lossy().into_owned();
            if path.extension().is_some_and(|x| x == "rs") {
                Some((path, name))
            } else {
                let main = path.join("main.rs");
                main.is_file().then_some((main, name))
            }
        })
        .collect();
    bins.sort();
    roots.extend(
        bins.into_iter()
            .map(|(abs, name)| crate_root(abs, vec!["bin".into(), name])),
    );
    if roots.is_empty() {
        return Err(Box::new(Diagnostic::error(format!(
            "no crate root under {}: neither src/lib.rs nor src/main.rs exists",
            src.display()
        ))
        .with_hint("rkb reads the modules cargo compiles, starting at src/lib.rs or src/main.rs: create one and declare the API modules in it (`pub mod api;`)")));
    }
    Ok(roots)
}

fn crate_root(abs: PathBuf, module: Vec<String>) -> Reached {
    Reached {
        abs,
        module,
        mod_rs: true,
        declared_at: None,
    }
}

/// A `mod name;` found in a file.
struct Decl {
    name: String,
    /// The inline modules around it (`mod a { mod b { mod name; } }` gives `[a, b]`).
    inline: Vec<String>,
    /// The `#[path = "..."]` on it.
    path: Option<String>,
    /// A `#[cfg(..)]` (or `cfg_attr`) on it.
    cfg: bool,
    /// Byte range of `mod name;` in the file.
    start: usize,
    end: usize,
}

/// The modules `file` (reached as `from`) declares: the files they are in, or an error at each declaration whose
/// file cannot be found.
pub fn children(
    file: &crate::read::source::SourceFile,
    from: &Reached,
    diags: &mut Vec<Diagnostic>,
) -> Vec<Reached> {
    let dir = from.abs.parent().unwrap_or(Path::new("")).to_path_buf();
    let owned = if from.mod_rs {
        dir.clone()
    } else {
        dir.join(from.abs.file_stem().unwrap_or_default())
    };
    let mut out = Vec::new();
    for decl in declarations(file) {
        let (line, col) = file.position(decl.start);
        let at = DeclaredAt {
            rel: file.rel.clone(),
            line,
            col: col + 1,
            len: file.text[decl.start..decl.end].chars().count(),
            source_line: file.line(line).to_string(),
            name: decl.name.clone(),
        };
        let base = decl.inline.iter().fold(owned.clone(), |d, m| d.join(m));
        let found = match &decl.path {
            // Outside inline blocks a path is relative to the declaring file's directory, inside them to the
            // directory the blocks stand for.
            Some(p) if decl.inline.is_empty() => Found::File(dir.join(p), true),
            Some(p) => Found::File(base.join(p), true),
            None => module_file(&base, &decl.name, &at, file, decl.cfg),
        };
        let (abs, mod_rs) = match found {
            Found::File(abs, mod_rs) => (abs, mod_rs),
            Found::CfgWithoutFile => continue,
            Found::Refused(d) => {
                diags.push(*d);
                continue;
            }
        };
        let mut module = from.module.clone();
        module.extend(decl.inline.iter().cloned());
        module.push(decl.name.trim_start_matches("r#").to_string());
        out.push(Reached {
            abs,
            module,
            mod_rs,
            declared_at: Some(at),
        });
    }
    out
}

/// Where a declared module's file is.
enum Found {
    /// The file, and whether it owns its directory (`name/mod.rs`, or a `#[path]` file).
    File(PathBuf, bool),
    /// A `#[cfg]`-ed declaration without a file: the configuration decides.
    CfgWithoutFile,
    /// The error at the declaration.
    Refused(Box<Diagnostic>),
}

/// The file of module `name` declared in the directory `base`: `name.rs` or `name/mod.rs`.
fn module_file(
    base: &Path,
    name: &str,
    at: &DeclaredAt,
    file: &crate::read::source::SourceFile,
    cfg: bool,
) -> Found {
    let name = name.trim_start_matches("r#");
    let flat = base.join(format!("{name}.rs"));
    let nested = base.join(name).join("mod.rs");
    let rel = |p: &Path| relative_to_root(p, file);
    match (flat.exists(), nested.exists()) {
        (true, false) => Found::File(flat, false),
        (false, true) => Found::File(nested, true),
        (true, true) => Found::Refused(Box::new(
            at.locate(Diagnostic::error(format!(
                "file for module `{name}` found at both \"{}\" and \"{}\"",
                rel(&flat),
                rel(&nested)
            )))
            .with_hint("delete or rename one of the two files (cargo refuses this tree too)"),
        )),
        (false, false) if cfg => Found::CfgWithoutFile,
        (false, false) => {
            let dangling = [&flat, &nested]
                .into_iter()
                .find(|p| p.symlink_metadata().is_ok());
            let message = match dangling {
                Some(link) => format!(
                    "file not found for module `{name}`: \"{}\" is a symbolic link to a file that does not exist",
                    rel(link)
                ),
                None => format!("file not found for module `{name}`"),
            };
            Found::Refused(Box::new(at.locate(Diagnostic::error(message)).with_hint(format!(
                "create \"{}\" or \"{}\", or remove the declaration (cargo refuses this tree too)",
                rel(&flat),
                rel(&nested)
            ))))
        }
    }
}

/// `path` relative to the project root of `file` (which knows both its absolute and its relative path).
fn relative_to_root(path: &Path, file: &crate::read::source::SourceFile) -> String {
    let depth = file.rel.components().count();
    let root = file.abs.ancestors().nth(depth).unwrap_or(Path::new(""));
    path.strip_prefix(root)
        .unwrap_or(path)
        .display()
        .to_string()
}

/// Every `mod name;` of `file`, at item level and in inline modules, in source order.
fn declarations(file: &crate::read::source::SourceFile) -> Vec<Decl> {
    let text = &file.text;
    // Most files (the API types) declare nothing: skip lexing them.
    if !mentions_mod(text) {
        return Vec::new();
    }
    let mut out = Vec::new();
    match lex::lex(text) {
        Some(tokens) => scan_items(text, &tokens, 0, tokens.len(), &[], &mut out),
        None => syn_declarations(file, &mut out),
    }
    out
}

/// Whether `text` has the word `mod` followed by whitespace anywhere (comments and strings included): a file without
/// it declares no module.
fn mentions_mod(text: &str) -> bool {
    text.match_indices("mod").any(|(i, _)| {
        let before = text[..i].chars().next_back();
        let after = text[i + 3..].chars().next();
        !before.is_some_and(|c| c.is_alphanumeric() || c == '_')
            && after.is_some_and(char::is_whitespace)
    })
}

/// The attributes seen since the last item, as they bear on a `mod` that follows.
#[derive(Default)]
struct PendingAttrs {
    path: Option<String>,
    cfg: bool,
}

/// Walks the items in `tokens[from..to]` (inside the inline modules `inline`), pushing the declarations.
fn scan_items(
    text: &str,
    tokens: &[Token],
    from: usize,
    to: usize,
    inline: &[String],
    out: &mut Vec<Decl>,
) {
    // Deeper inline modules are the scanner's error (scan/nesting.rs); recursing further could overflow the stack.
    if inline.len() >= crate::read::scan::nesting::MAX_NESTING {
        return;
    }
    let word = |t: &Token| &text[t.start..t.end];
    let mut attrs = PendingAttrs::default();
    let mut i = from;
    while i < to {
        let t = tokens[i];
        match t.kind {
            Kind::Punct(b'#') => {
                let bracket = i
                    + 1
                    + usize::from(tokens.get(i + 1).map(|t| t.kind) == Some(Kind::Punct(b'!')));
                if let Some(open) = tokens.get(bracket).filter(|t| t.kind == Kind::Open(b'[')) {
                    read_attr(text, &tokens[bracket + 1..open.close], &mut attrs);
                    i = open.close + 1;
                    continue;
                }
            }
            Kind::Ident if word(&t) == "mod" => {
                let name = tokens.get(i + 1).filter(|n| n.kind == Kind::Ident);
                let after = tokens.get(i + 2).map(|n| n.kind);
                if let Some(name) = name {
                    let name = word(name).to_string();
                    match after {
                        Some(Kind::Punct(b';')) => out.push(Decl {
                            name,
                            inline: inline.to_vec(),
                            path: attrs.path.take(),
                            cfg: attrs.cfg,
                            start: t.start,
                            end: tokens[i + 2].end,
                        }),
                        Some(Kind::Open(b'{')) => {
                            let close = tokens[i + 2].close;
                            let mut nested = inline.to_vec();
                            nested.push(name);
                            scan_items(text, tokens, i + 3, close, &nested, out);
                            i = close + 1;
                            attrs = PendingAttrs::default();
                            continue;
                        }
                        _ => {}
                    }
                }
            }
            // Other items' bodies (fn, impl, macros) cannot declare file modules.
            Kind::Open(b'{') => {
                i = t.close + 1;
                attrs = PendingAttrs::default();
                continue;
            }
            Kind::Open(_) => {
                i = t.close + 1;
                continue;
            }
            Kind::Punct(b';') => attrs = PendingAttrs::default(),
            _ => {}
        }
        i += 1;
    }
}

/// Reads `path = "..."` and `cfg(..)`/`cfg_attr(..)` from the tokens inside `#[...]`.
fn read_attr(text: &str, inside: &[Token], attrs: &mut PendingAttrs) {
    let word = |t: &Token| &text[t.start..t.end];
    match inside {
        [name, eq, lit, ..]
            if name.kind == Kind::Ident
                && word(name) == "path"
                && eq.kind == Kind::Punct(b'=')
                && lit.kind == Kind::Literal =>
        {
            attrs.path = syn::parse_str::<syn::LitStr>(word(lit))
                .ok()
                .map(|s| s.value());
        }
        [name, ..] if name.kind == Kind::Ident && matches!(word(name), "cfg" | "cfg_attr") => {
            attrs.cfg = true;
        }
        _ => {}
    }
}

/// [`scan_items`] for a file the lexer gave up on: syn reads it (a syntax error leaves it without declarations;
/// the model stage reports it).
fn syn_declarations(file: &crate::read::source::SourceFile, out: &mut Vec<Decl>) {
    let mut ignored = Vec::new();
    let found = crate::read::source::with_fallback_lexer(|| {
        crate::read::outline::with_syn(file, &mut ignored, |ast| {
            let mut found = Vec::new();
            syn_items(file, &ast.items, &[], &mut found);
            found
        })
    });
    out.extend(found.into_iter().flatten());
}

fn syn_items(
    file: &crate::read::source::SourceFile,
    items: &[syn::Item],
    inline: &[String],
    out: &mut Vec<Decl>,
) {
    if inline.len() >= crate::read::scan::nesting::MAX_NESTING {
        return;
    }
    for item in items {
        let syn::Item::Mod(m) = item else {
            continue;
        };
        let name = m.ident.to_string();
        if let Some((_, items)) = &m.content {
            let mut nested = inline.to_vec();
            nested.push(name);
            syn_items(file, items, &nested, out);
            continue;
        }
        let mut attrs = PendingAttrs::default();
        for a in &m.attrs {
            if a.path().is_ident("cfg") || a.path().is_ident("cfg_attr") {
                attrs.cfg = true;
            }
            if a.path().is_ident("path")
                && let syn::Meta::NameValue(nv) = &a.meta
                && let syn::Expr::Lit(syn::ExprLit {
                    lit: syn::Lit::Str(s),
                    ..
                }) = &nv.value
            {
                attrs.path = Some(s.value());
            }
        }
        let byte = |lc: proc_macro2::LineColumn| {
            let line_start: usize = file
                .text
                .split_inclusive('\n')
                .take(lc.line - 1)
                .map(str::len)
                .sum();
            let line = file.line(lc.line);
            line_start
                + line
                    .char_indices()
                    .nth(lc.column)
                    .map_or(line.len(), |(b, _)| b)
        };
        out.push(Decl {
            name,
            inline: inline.to_vec(),
            path: attrs.path,
            cfg: attrs.cfg,
            start: byte(m.mod_token.span.start()),
            end: byte(m.semi.map_or(m.ident.span().end(), |s| s.span.end())),
        });
    }
}

/// A warning for each `.rs` file under `root/src` that the tree did not reach (`reached`, absolute paths) and
/// that holds a marker: cargo does not compile it, so rkb does not read it.
pub fn unreached_with_markers(
    root: &Path,
    reached: &std::collections::HashSet<PathBuf>,
) -> Vec<Diagnostic> {
    let mut out = Vec::new();
    let mut paths: Vec<PathBuf> = walkdir::WalkDir::new(root.join("src"))
        .into_iter()
        .filter_map(Result::ok)
        .filter(|e| e.file_type().is_file() && e.path().extension().is_some_and(|x| x == "rs"))
        .map(walkdir::DirEntry::into_path)
        .filter(|p| !reached.contains(p))
        .collect();
    paths.sort();
    for path in paths {
        let Ok(text) = std::fs::read_to_string(&path) else {
            continue;
        };
        let Some((n, line)) = text.lines().enumerate().find(|(_, l)| {
            let l = l.trim_start();
            l.strip_prefix("///")
                .or_else(|| l.strip_prefix("//!"))
                .and_then(rkb_markers::marker_in)
                .is_some()
        }) else {
            continue;
        };
        let rel = path.strip_prefix(root).unwrap_or(&path).to_path_buf();
        let col = line.len() - line.trim_start().len() + 1;
        out.push(
            Diagnostic::warning(format!(
                "{} is not part of the crate (no `mod` declares it): its markers are not read",
                rel.display()
            ))
            .at(&rel, n + 1, col, line.trim().chars().count())
            .with_source_line(line)
            .with_hint("declare it with `mod <name>;` in its parent module, or delete it (cargo does not compile it either)"),
        );
    }
    out
}
