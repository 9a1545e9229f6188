//! Generated Rust goes through rustfmt before it is written, as kubebuilder runs gofmt on what it writes:
//! where rustfmt breaks a line depends on the names filled in, so templates alone cannot be fmt-clean.

use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::{Context as _, Result};

/// What one rustfmt run made of the files.
pub enum Formatted {
    /// The formatted contents, in the order given.
    Done(Vec<String>),
    /// No rustfmt is installed: scaffolding still works without it.
    NoRustfmt,
    /// rustfmt refused: its report, with paths relative to the project (`src/main.rs:3:5`).
    Refused(String),
}

/// Formats the given files (relative path, contents) in one rustfmt run, honouring the project's rustfmt.toml.
pub fn rustfmt(project_dir: &Path, files: &[(&Path, &str)]) -> Result<Formatted> {
    if files.is_empty() {
        return Ok(Formatted::Done(Vec::new()));
    }
    // One process for all files: starting rustfmt (through rustup's proxy) costs far more than formatting.
    let scratch = tempfile::tempdir().context("cannot create a temporary directory for rustfmt")?;
    for config in ["rustfmt.toml", ".rustfmt.toml"] {
        if project_dir.join(config).is_file() {
            std::fs::copy(project_dir.join(config), scratch.path().join(config))?;
        }
    }
    let mut paths: Vec<PathBuf> = Vec::with_capacity(files.len());
    for (rel, contents) in files {
        let path = scratch.path().join(rel);
        std::fs::create_dir_all(path.parent().expect("a file has a parent"))?;
        std::fs::write(&path, contents)?;
        paths.push(path);
    }
    // rustfmt follows `mod name;` into child files; children that are not being formatted get empty stand-ins.
    for path in paths.clone() {
        for child in child_module_files(&path, &std::fs::read_to_string(&path)?) {
            let dir_form = child.with_extension("").join("mod.rs");
            if !child.exists() && !dir_form.exists() {
                std::fs::create_dir_all(child.parent().expect("a file has a parent"))?;
                std::fs::write(&child, "")?;
            }
        }
    }
    let out = Command::new(std::env::var_os("RUSTFMT").unwrap_or_else(|| "rustfmt".into()))
        .args(["--edition", "2024", "--quiet"])
        .args(&paths)
        .current_dir(scratch.path())
        .output();
    let out = match out {
        Ok(out) => out,
        Err(err) if err.kind() == std::io::ErrorKind::NotFound => return Ok(Formatted::NoRustfmt),
        Err(err) => return Err(err).context("cannot run rustfmt"),
    };
    if !out.status.success() {
        let scratch_prefix = format!("{}/", scratch.path().display());
        return Ok(Formatted::Refused(
            String::from_utf8_lossy(&out.stderr).replace(&scratch_prefix, ""),
        ));
    }
    paths
        .iter()
        .map(|p| std::fs::read_to_string(p).context("cannot read rustfmt's output"))
        .collect::<Result<_>>()
        .map(Formatted::Done)
}

/// The files rustfmt looks for for each `mod name;` line of `file` (Rust's module path rules, `name.rs` form).
fn child_module_files(file: &Path, source: &str) -> Vec<PathBuf> {
    let dir = file.parent().expect("a file has a parent");
    let stem = file
        .file_stem()
        .and_then(|s| s.to_str())
        .unwrap_or_default();
    let base = if matches!(stem, "mod" | "lib" | "main") {
        dir.to_path_buf()
    } else {
        dir.join(stem)
    };
    source
        .lines()
        .filter_map(|line| {
            let decl = line.trim().strip_prefix("pub ").unwrap_or(line.trim());
            let name = decl.strip_prefix("mod ")?.strip_suffix(';')?.trim();
            name.chars()
                .all(|c| c.is_alphanumeric() || c == '_')
                .then(|| base.join(format!("{name}.rs")))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn child_modules_follow_rust_path_rules() {
        let children = child_module_files(
            Path::new("/p/src/api/mod.rs"),
            "pub mod v1;\nmod inner;\n// mod not;\n",
        );
        assert_eq!(
            children,
            [
                PathBuf::from("/p/src/api/v1.rs"),
                PathBuf::from("/p/src/api/inner.rs")
            ]
        );
        let nested = child_module_files(Path::new("/p/src/controller.rs"), "pub mod x;");
        assert_eq!(nested, [PathBuf::from("/p/src/controller/x.rs")]);
    }
}
