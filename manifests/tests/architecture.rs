//! The layout of rkb-manifests' sources: no import circle between two files, nor between two stage folders
//! (read/, model/, plan/, schema/, check/, emit/, cel/). A circle means two files can only be understood (and
//! changed) together; the folders are the pipeline's stages, each reading only the ones before it.
//!
//! What counts as an import of file A by file B: a path in B's code (in a `use` or inline) that names an item of A
//! through `crate::`, `super::`, `self::` or a child module's name. A `pub use` re-export is followed to the file
//! that defines the item (lib.rs re-exports `Error`; it is error.rs's). A `mod x;` declaration is not an import.
//! Code under `#[cfg(test)]` is left out: a test may reach across the tree to build its inputs.
//! Paths are read after comments, string and char literals are removed, so a path in a doc line or a test
//! fixture's text is not an import.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// One source file of the crate: its module path (`["schema", "markers"]`), its code with comments, literals
/// and test-only items removed, and the child modules it declares.
struct File {
    rel: String,
    module: Vec<String>,
    code: String,
    children: Vec<String>,
}

#[test]
fn no_import_circle_between_files_or_stage_folders() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let files = module_tree(&src);
    let edges = import_edges(&files);
    let file_cycles = cycles(&edges);
    let folder_edges: BTreeMap<String, BTreeSet<String>> = {
        let mut m: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
        for (a, targets) in &edges {
            for b in targets {
                if let (Some(fa), Some(fb)) = (stage_folder(a), stage_folder(b))
                    && fa != fb
                {
                    m.entry(fa.clone()).or_default().insert(fb);
                }
            }
        }
        m
    };
    let folder_cycles = cycles(&folder_edges);
    let mut report = String::new();
    for c in &file_cycles {
        report.push_str(&format!(
            "import circle between files: {}\n",
            c.join(" -> ")
        ));
    }
    for c in &folder_cycles {
        report.push_str(&format!(
            "import circle between stage folders: {}\n",
            c.join("/ -> ")
        ));
    }
    assert!(report.is_empty(), "\n{report}");
    // The checker must see the tree: every stage folder is there and imports something.
    for folder in [
        "read", "model", "plan", "schema", "check", "emit", "cel", "compat",
    ] {
        assert!(
            edges
                .keys()
                .any(|f| stage_folder(f).as_deref() == Some(folder)),
            "no file under src/{folder}/"
        );
    }
    assert!(
        edges.values().map(BTreeSet::len).sum::<usize>() > 50,
        "{edges:?}"
    );
}

/// The checker itself: it finds a circle made of `use crate::` lines, through a re-export, and across folders.
#[test]
fn the_checker_names_a_circle() {
    let file = |rel: &str, module: &[&str], code: &str, children: &[&str]| File {
        rel: rel.into(),
        module: module.iter().map(|s| s.to_string()).collect(),
        code: strip(code),
        children: children.iter().map(|s| s.to_string()).collect(),
    };
    let files = vec![
        file(
            "lib.rs",
            &[],
            "mod a; mod b; pub use b::inner::Thing;",
            &["a", "b"],
        ),
        file("a/mod.rs", &["a"], "use crate::Thing; // crate::a\n", &[]),
        file("b/mod.rs", &["b"], "pub mod inner;", &["inner"]),
        file(
            "b/inner.rs",
            &["b", "inner"],
            "pub struct Thing; fn f() { crate::a::g(\"crate::b\") }",
            &[],
        ),
    ];
    let edges = import_edges(&files);
    assert_eq!(
        cycles(&edges),
        vec![vec![
            "a/mod.rs".to_string(),
            "b/inner.rs".into(),
            "a/mod.rs".into()
        ]]
    );
}

/// The stage folder of a file (`schema` for `schema/markers/number.rs`); `None` for the crate's top-level files.
fn stage_folder(rel: &str) -> Option<String> {
    rel.split_once('/').map(|(folder, _)| folder.to_string())
}

/// Every file reached from lib.rs through `mod` declarations outside `#[cfg(test)]`.
fn module_tree(src: &Path) -> Vec<File> {
    let mut out = Vec::new();
    let mut todo = vec![(src.join("lib.rs"), Vec::<String>::new())];
    while let Some((path, module)) = todo.pop() {
        let text =
            std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        let code = strip(&text);
        let children = declared_modules(&code);
        let dir: PathBuf = match path.file_name().and_then(|n| n.to_str()) {
            Some("lib.rs" | "mod.rs") => path.parent().unwrap().to_path_buf(),
            _ => path.with_extension(""),
        };
        for child in &children {
            let flat = dir.join(format!("{child}.rs"));
            let nested = dir.join(child).join("mod.rs");
            let file = if flat.exists() { flat } else { nested };
            assert!(
                file.exists(),
                "{}: `mod {child};` has no file",
                path.display()
            );
            let mut m = module.clone();
            m.push(child.clone());
            todo.push((file, m));
        }
        let rel = path
            .strip_prefix(src)
            .unwrap()
            .to_string_lossy()
            .replace('\\', "/");
        out.push(File {
            rel,
            module,
            code,
            children,
        });
    }
    out.sort_by(|a, b| a.rel.cmp(&b.rel));
    out
}

/// `code` without comments, string/char literals (their text replaced by nothing) and `#[cfg(test)]` items.
fn strip(text: &str) -> String {
    let b = text.as_bytes();
    let mut out = String::with_capacity(text.len());
    let mut i = 0;
    while i < b.len() {
        let rest = &text[i..];
        if rest.starts_with("//") {
            i += rest.find('\n').unwrap_or(rest.len());
        } else if rest.starts_with("/*") {
            i += rest.find("*/").map_or(rest.len(), |e| e + 2);
        } else if let Some(hashes) = raw_string_start(rest) {
            let close = format!("\"{}", "#".repeat(hashes));
            let body = 2 + hashes + usize::from(rest.starts_with("br"));
            i += body
                + rest[body..]
                    .find(&close)
                    .map_or(rest.len() - body, |e| e + close.len());
            out.push_str("\"\"");
        } else if rest.starts_with('"') {
            let mut j = 1;
            while j < rest.len() && rest.as_bytes()[j] != b'"' {
                j += if rest.as_bytes()[j] == b'\\' { 2 } else { 1 };
            }
            i += j + 1;
            out.push_str("\"\"");
        } else if let Some(len) = char_literal(rest) {
            i += len;
            out.push_str("' '");
        } else {
            let c = rest.chars().next().unwrap();
            out.push(c);
            i += c.len_utf8();
        }
    }
    drop_test_items(&out)
}

/// `r"`, `r#"`, `br##"`...: the number of `#`s of a raw string starting `s`.
fn raw_string_start(s: &str) -> Option<usize> {
    let s = s.strip_prefix('b').unwrap_or(s).strip_prefix('r')?;
    let hashes = s.len() - s.trim_start_matches('#').len();
    s[hashes..].starts_with('"').then_some(hashes)
}

/// The length of a char literal starting `s` (`'a'`, `'\n'`, `'\u{1F600}'`), not a lifetime (`'a`).
fn char_literal(s: &str) -> Option<usize> {
    let rest = s.strip_prefix('\'')?;
    if let Some(esc) = rest.strip_prefix('\\') {
        let end = esc.find('\'')?;
        return Some(2 + end + 1);
    }
    let c = rest.chars().next()?;
    rest[c.len_utf8()..]
        .starts_with('\'')
        .then_some(1 + c.len_utf8() + 1)
}

/// `code` without the item after each `#[cfg(test)]` (up to its `;` or its closing brace).
fn drop_test_items(code: &str) -> String {
    let mut out = String::new();
    let mut rest = code;
    while let Some(at) = rest.find("#[cfg(test)]") {
        out.push_str(&rest[..at]);
        let item = &rest[at + "#[cfg(test)]".len()..];
        let mut depth = 0usize;
        let mut end = item.len();
        for (i, c) in item.char_indices() {
            match c {
                '{' => depth += 1,
                '}' => {
                    depth -= 1;
                    if depth == 0 {
                        end = i + 1;
                        break;
                    }
                }
                ';' if depth == 0 => {
                    end = i + 1;
                    break;
                }
                _ => {}
            }
        }
        rest = &item[end..];
    }
    out.push_str(rest);
    out
}

/// The names of `mod x;` declarations (files of their own) in `code`.
fn declared_modules(code: &str) -> Vec<String> {
    let tokens = tokens(code);
    let mut out = Vec::new();
    for (i, t) in tokens.iter().enumerate() {
        if t == "mod" && tokens.get(i + 2).is_some_and(|s| s == ";") {
            out.push(tokens[i + 1].clone());
        }
    }
    out
}

/// Identifiers, `::` and single punctuation characters of `code`.
fn tokens(code: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut chars = code.char_indices().peekable();
    while let Some((i, c)) = chars.next() {
        if c.is_alphanumeric() || c == '_' {
            let mut end = i + c.len_utf8();
            while let Some(&(j, d)) = chars.peek() {
                if !(d.is_alphanumeric() || d == '_') {
                    break;
                }
                end = j + d.len_utf8();
                chars.next();
            }
            out.push(code[i..end].to_string());
        } else if c == ':' && chars.peek().is_some_and(|&(_, d)| d == ':') {
            chars.next();
            out.push("::".into());
        } else if !c.is_whitespace() {
            out.push(c.to_string());
        }
    }
    out
}

/// Each file's imports: the other files whose items its code names.
fn import_edges(files: &[File]) -> BTreeMap<String, BTreeSet<String>> {
    let by_module: BTreeMap<&[String], &File> =
        files.iter().map(|f| (f.module.as_slice(), f)).collect();
    let reexports: BTreeMap<&[String], BTreeMap<String, Vec<String>>> = files
        .iter()
        .map(|f| (f.module.as_slice(), reexports(&f.code)))
        .collect();
    let mut edges = BTreeMap::new();
    for f in files {
        let mut targets = BTreeSet::new();
        for path in paths(&f.code) {
            if let Some(target) = resolve(&by_module, &reexports, &f.module, &f.children, &path, 0)
                && target != f.rel
            {
                targets.insert(target);
            }
        }
        edges.insert(f.rel.clone(), targets);
    }
    edges
}

/// Every path of `code` that may name an item of the crate: each leaf of each `use` tree, and each inline
/// `a::b::c` run of tokens.
fn paths(code: &str) -> Vec<Vec<String>> {
    let t = tokens(code);
    let mut out = Vec::new();
    let mut i = 0;
    while i < t.len() {
        if t[i] == "use" {
            let end = t[i..]
                .iter()
                .position(|s| s == ";")
                .map_or(t.len(), |e| i + e);
            use_tree(&t[i + 1..end], &mut Vec::new(), &mut out);
            i = end;
            continue;
        }
        if is_ident(&t[i])
            && t.get(i + 1).is_some_and(|s| s == "::")
            && (i == 0 || t[i - 1] != "::")
        {
            let mut p = vec![t[i].clone()];
            let mut j = i + 1;
            while t.get(j).is_some_and(|s| s == "::") && t.get(j + 1).is_some_and(|s| is_ident(s)) {
                p.push(t[j + 1].clone());
                j += 2;
            }
            out.push(p);
            i = j;
            continue;
        }
        i += 1;
    }
    out
}

fn is_ident(s: &str) -> bool {
    s.chars()
        .next()
        .is_some_and(|c| c.is_alphabetic() || c == '_')
}

/// The leaf paths of one `use` tree (`a::{b, c::{self, d as e}, f::*}`), aliases dropped.
fn use_tree(t: &[String], prefix: &mut Vec<String>, out: &mut Vec<Vec<String>>) {
    let start = prefix.len();
    let mut i = 0;
    while i < t.len() {
        match t[i].as_str() {
            "{" => {
                // Each item between the top-level commas of the braces is a tree of its own.
                let mut depth = 0;
                let mut item_start = i + 1;
                for j in i..t.len() {
                    match t[j].as_str() {
                        "{" => depth += 1,
                        "," if depth == 1 => {
                            use_tree(&t[item_start..j], prefix, out);
                            item_start = j + 1;
                        }
                        "}" => {
                            depth -= 1;
                            if depth == 0 {
                                use_tree(&t[item_start..j], prefix, out);
                                break;
                            }
                        }
                        _ => {}
                    }
                }
                prefix.truncate(start);
                return;
            }
            "as" => break,
            // `self` in braces is the module the braces follow; first in a path, it is a segment.
            "*" | "self" if !prefix.is_empty() => {
                out.push(prefix.clone());
                prefix.truncate(start);
                return;
            }
            s if is_ident(s) => prefix.push(s.to_string()),
            _ => {}
        }
        i += 1;
    }
    if prefix.len() > start {
        out.push(prefix.clone());
    }
    prefix.truncate(start);
}

/// What each name a file re-exports (`pub use`, `pub(crate) use`, ...) stands for: name -> path.
fn reexports(code: &str) -> BTreeMap<String, Vec<String>> {
    let t = tokens(code);
    let mut out = BTreeMap::new();
    for i in 0..t.len() {
        if t[i] != "pub" {
            continue;
        }
        let mut j = i + 1;
        if t.get(j).is_some_and(|s| s == "(") {
            j += t[j..].iter().position(|s| s == ")").unwrap_or(0) + 1;
        }
        if t.get(j).is_none_or(|s| s != "use") {
            continue;
        }
        let end = t[j..]
            .iter()
            .position(|s| s == ";")
            .map_or(t.len(), |e| j + e);
        let mut leaves = Vec::new();
        use_tree(&t[j + 1..end], &mut Vec::new(), &mut leaves);
        for leaf in leaves {
            if let Some(name) = leaf.last() {
                out.insert(name.clone(), leaf);
            }
        }
    }
    out
}

/// The file whose item `path`, written in module `module`, names; `None` for other crates' paths.
fn resolve(
    by_module: &BTreeMap<&[String], &File>,
    reexports: &BTreeMap<&[String], BTreeMap<String, Vec<String>>>,
    module: &[String],
    children: &[String],
    path: &[String],
    depth: usize,
) -> Option<String> {
    assert!(depth < 8, "re-exports loop at {path:?}");
    let (mut at, mut rest): (Vec<String>, &[String]) = match path.first()?.as_str() {
        "crate" => (Vec::new(), &path[1..]),
        "self" => (module.to_vec(), &path[1..]),
        "super" => (module[..module.len().checked_sub(1)?].to_vec(), &path[1..]),
        first if children.iter().any(|c| c == first) => (module.to_vec(), path),
        _ => return None,
    };
    while let Some(seg) = rest.first() {
        if seg == "super" {
            at.pop();
            rest = &rest[1..];
            continue;
        }
        let mut child = at.clone();
        child.push(seg.clone());
        if by_module.contains_key(child.as_slice()) {
            at = child;
            rest = &rest[1..];
            continue;
        }
        if let Some(target) = reexports.get(at.as_slice()).and_then(|r| r.get(seg)) {
            let file = by_module[at.as_slice()];
            return resolve(by_module, reexports, &at, &file.children, target, depth + 1)
                .or_else(|| Some(file.rel.clone()));
        }
        break;
    }
    Some(by_module.get(at.as_slice())?.rel.clone())
}

/// Import circles of `edges`, each the shortest walk `a -> b -> a` from its first file, until every file on a
/// circle is named in one.
fn cycles(edges: &BTreeMap<String, BTreeSet<String>>) -> Vec<Vec<String>> {
    let mut out = Vec::new();
    let mut seen: BTreeSet<String> = BTreeSet::new();
    for start in edges.keys() {
        if seen.contains(start) {
            continue;
        }
        // The shortest way back to `start` (breadth first), if there is one.
        let mut prev: BTreeMap<String, String> = BTreeMap::new();
        let mut queue = std::collections::VecDeque::from([start.clone()]);
        let mut found = None;
        while let Some(n) = queue.pop_front() {
            for m in edges.get(&n).into_iter().flatten() {
                if m == start {
                    found = Some(n.clone());
                    break;
                }
                if !prev.contains_key(m) {
                    prev.insert(m.clone(), n.clone());
                    queue.push_back(m.clone());
                }
            }
            if found.is_some() {
                break;
            }
        }
        if let Some(last) = found {
            let mut walk = vec![start.clone()];
            let mut n = last;
            let mut back = Vec::new();
            while n != *start {
                back.push(n.clone());
                n = prev[&n].clone();
            }
            walk.extend(back.into_iter().rev());
            walk.push(start.clone());
            seen.extend(walk.iter().cloned());
            out.push(walk);
        }
    }
    out
}
