//! Stage 1, read: read the files of the module tree (modules.rs) into [`SourceFile`]s, and the warnings about
//! what a file holds that rkb does not read (schemars' attributes beside kube-derive types, markers in plain
//! comments).

use crate::read::modules;
use crate::read::source::SourceFile;
use rkb_markers::Diagnostic;
use std::collections::HashSet;
use std::path::{Path, PathBuf};

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
    Ok(SourceFile::new(
        rel,
        abs.to_path_buf(),
        text,
        reached.module.clone(),
        reached.mod_rs || has_dir,
    ))
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

/// Warnings for the schema attributes of kube-rs projects rkb does not read (`#[schemars(...)]`, kube's
/// `#[x_kube(...)]`, `#[garde(...)]`), in files with kube-derive types: kube-derive's `crd()` has what they say,
/// rkb's CRD would not, so each is named at its line. (The kube-derive types themselves are read as kinds:
/// kube_derive.rs.)
pub fn kube_derives(file: &SourceFile, diags: &mut Vec<Diagnostic>) {
    if !file.text.contains("CustomResource") {
        return;
    }
    for (i, line) in file.text.lines().enumerate() {
        let code = line.trim_start();
        let Some(name) = ["schemars", "x_kube", "garde"]
            .into_iter()
            .find(|name| code.starts_with(&format!("#[{name}(")))
        else {
            continue;
        };
        let col = line.len() - code.len() + 1;
        diags.push(
            Diagnostic::warning(format!(
                "`#[{name}(...)]` is not read: rkb's CRD does not have what it says"
            ))
            .at(&file.rel, i + 1, col, name.len() + 2)
            .with_source_line(line)
            .with_hint(
                "write it as `+kubebuilder:validation:` markers on the field (docs/markers.md), which rkb reads and checks",
            ),
        );
    }
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
}
