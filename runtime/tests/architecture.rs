//! The layout of rkb-runtime's sources: no import circle between two files (lib.rs's module docs give the folders).
//! A circle means two files can only be understood, and changed, together.
//!
//! The approach is rkb-manifests' (manifests/tests/architecture.rs), in a smaller form for this crate's tree: an
//! import of file A by file B is a `crate::` path in B's code that names A's module or an item lib.rs re-exports
//! from it (`crate::Context` is manager/context.rs's); paths are read with comments, string literals and the
//! trailing `#[cfg(test)] mod tests` removed, so a doc line or a test does not count.
//!
//! Limit: `super::` and child-module paths are not followed (an inline `mod` changes what `super` means, which this
//! reader does not track), so a circle between a folder's mod.rs and one of its own files goes unseen. Between files
//! of different folders, every import in this tree is a `crate::` path.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

#[test]
fn no_import_circle_between_files() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let files = read_tree(&src, &src);
    let edges = import_edges(&files);
    // The checker must see the tree: the manager's file imports its neighbours.
    assert!(
        edges["manager/mod.rs"].contains("manager/context.rs"),
        "{edges:?}"
    );
    assert!(
        edges.values().map(BTreeSet::len).sum::<usize>() > 60,
        "{edges:?}"
    );
    let circles = circles(&edges);
    assert!(
        circles.is_empty(),
        "import circles between files:\n{}",
        circles.join("\n")
    );
}

/// Every `.rs` file under `dir` as (path from src/, module path, code without comments, literals and tests).
fn read_tree(src: &Path, dir: &Path) -> Vec<(String, String, String)> {
    let mut out = Vec::new();
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            out.extend(read_tree(src, &path));
            continue;
        }
        let rel = path
            .strip_prefix(src)
            .unwrap()
            .to_string_lossy()
            .replace('\\', "/");
        if !rel.ends_with(".rs") || rel.ends_with("/tests.rs") {
            continue;
        }
        let module = rel
            .trim_end_matches(".rs")
            .trim_end_matches("mod")
            .trim_end_matches('/');
        let module = if module == "lib" {
            String::new()
        } else {
            module.replace('/', "::")
        };
        let text = std::fs::read_to_string(&path).unwrap();
        let code = strip(text.split("#[cfg(test)]\nmod tests").next().unwrap());
        out.push((rel, module, code));
    }
    out
}

/// `code` without comments and with string and char literals emptied.
fn strip(code: &str) -> String {
    let mut out = String::new();
    let mut chars = code.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '/' if chars.peek() == Some(&'/') => {
                chars.by_ref().find(|&c| c == '\n');
                out.push('\n');
            }
            '"' => {
                while let Some(c) = chars.next() {
                    match c {
                        '\\' => drop(chars.next()),
                        '"' => break,
                        _ => {}
                    }
                }
                out.push_str("\"\"");
            }
            _ => out.push(c),
        }
    }
    out
}

/// File -> the files it imports.
fn import_edges(files: &[(String, String, String)]) -> BTreeMap<String, BTreeSet<String>> {
    let by_module: BTreeMap<&str, &str> = files
        .iter()
        .map(|(rel, m, _)| (m.as_str(), rel.as_str()))
        .collect();
    let lib = &files.iter().find(|(rel, ..)| rel == "lib.rs").unwrap().2;
    let exports = root_exports(lib);
    // The file defining the longest module prefix of `path` (a module path from the crate root).
    let resolve = |path: &str| -> Option<&str> {
        // Re-exports of re-exports (`Context` is `context::Context`, `context` is `manager::context`).
        let mut path = path.to_string();
        for _ in 0..3 {
            let (first, rest) = path.split_once("::").unwrap_or((&path, ""));
            path = match exports.get(first) {
                Some(target) if rest.is_empty() => target.clone(),
                Some(target) => format!("{target}::{rest}"),
                None => break,
            };
        }
        let mut parts: Vec<&str> = path.split("::").collect();
        while !parts.is_empty() {
            if let Some(rel) = by_module.get(parts.join("::").as_str()) {
                return Some(rel);
            }
            parts.pop();
        }
        None
    };
    let mut edges: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for (rel, _, code) in files {
        let targets = edges.entry(rel.clone()).or_default();
        for path in paths_after(code, "crate::") {
            if let Some(target) = resolve(&path)
                && target != rel
                && target != "lib.rs"
            {
                targets.insert(target.to_string());
            }
        }
    }
    edges
}

/// The names lib.rs re-exports (`pub use manager::{leader, outage};`, `pub use context::Context;`) -> the module path
/// they come from (`manager::leader`, `context::Context`).
fn root_exports(lib: &str) -> BTreeMap<String, String> {
    let mut out = BTreeMap::new();
    for statement in lib.split(';') {
        let Some((_, path)) = statement.trim().split_once("use ") else {
            continue;
        };
        for path in expand(path.trim()) {
            let name = path.rsplit("::").next().unwrap().to_string();
            let (path, name) = match path.split_once(" as ") {
                Some((path, alias)) => (path.trim().to_string(), alias.trim().to_string()),
                None => (path.clone(), name),
            };
            out.insert(name, path);
        }
    }
    out
}

/// Every path written after `prefix` in `code`, with `{a, b::c}` groups expanded one level.
fn paths_after(code: &str, prefix: &str) -> Vec<String> {
    let mut out = Vec::new();
    for (at, _) in code.match_indices(prefix) {
        if code[..at].ends_with(|c: char| c.is_alphanumeric() || c == '_' || c == ':') {
            continue;
        }
        let rest = &code[at + prefix.len()..];
        let end = match rest.find('{') {
            Some(open)
                if rest[..open]
                    .chars()
                    .all(|c| c.is_alphanumeric() || c == '_' || c == ':') =>
            {
                open + rest[open..].find('}').unwrap() + 1
            }
            _ => rest
                .find(|c: char| !(c.is_alphanumeric() || c == '_' || c == ':'))
                .unwrap_or(rest.len()),
        };
        out.extend(expand(&rest[..end]));
    }
    out
}

/// `a::{b, c::d}` -> `a::b`, `a::c::d`; `a::b` -> itself.
fn expand(path: &str) -> Vec<String> {
    match path.split_once('{') {
        Some((head, group)) => group
            .trim_end_matches('}')
            .split(',')
            .map(str::trim)
            .filter(|item| !item.is_empty() && *item != "self")
            .map(|item| format!("{head}{item}"))
            .collect(),
        None => vec![path.trim_end_matches("::").to_string()],
    }
}

/// Each import circle, as "a.rs -> b.rs -> a.rs" (one per strongly connected set of files, found by depth-first
/// search from each file in turn).
fn circles(edges: &BTreeMap<String, BTreeSet<String>>) -> Vec<String> {
    let mut found = BTreeSet::new();
    for start in edges.keys() {
        let mut stack = vec![vec![start.clone()]];
        let mut seen = BTreeSet::new();
        while let Some(path) = stack.pop() {
            let last = path.last().unwrap();
            for next in edges.get(last).into_iter().flatten() {
                if next == start {
                    let mut circle = path.clone();
                    let first = circle.iter().min().unwrap().clone();
                    let at = circle.iter().position(|f| *f == first).unwrap();
                    circle.rotate_left(at);
                    circle.push(first);
                    found.insert(circle.join(" -> "));
                } else if seen.insert(next.clone()) {
                    let mut longer = path.clone();
                    longer.push(next.clone());
                    stack.push(longer);
                }
            }
        }
    }
    found.into_iter().collect()
}
