//! `rkb alpha generate`: the project re-scaffolded from its PROJECT by this rkb, with the user's code carried over.
//!
//! What is carried from the old tree (everything else comes from the fresh scaffold):
//! - the user's sources: `src/api/**` (types, conversions), `src/controller/*_controller.rs`,
//!   `src/webhook/**/*_webhook.rs` and their tests `tests/*_controller.rs`, `tests/*_webhook.rs`, over the
//!   scaffold's;
//! - every file the fresh scaffold does not write (the user's own modules, docs, CI files, `.cargo/config.toml`),
//!   `target/` and `.git/` excepted (they stay where they are in place, and are not copied to `--output-dir`);
//! - the crates the user added to Cargo.toml's dependency tables (`dependencies`), which the carried sources need.
//!
//! The scaffold's own files (Cargo.toml otherwise, main.rs, lib.rs, the `mod.rs` files outside src/api, Makefile, config/)
//! are the new ones: that is the point of the command; the summary lists those that changed, and git holds the old
//! ones. `rkb manifests` runs last, on the carried types. The whole tree is built in a staging directory first, so a
//! failure leaves the project as it was; in place, the swap happens only in a clean git tree.

use std::ffi::{OsStr, OsString};
use std::path::{Path, PathBuf};

use anyhow::{Context as _, Result, bail};

use super::{dependencies, git, replay};
use crate::args::AlphaGenerateArgs;
use crate::project_config::{self, ProjectConfig};

pub fn run(args: &AlphaGenerateArgs) -> Result<()> {
    let input = &args.input_dir;
    let config = ProjectConfig::load(input)?;
    let output = match &args.output_dir {
        Some(output) => {
            refuse_output(input, output)?;
            output.clone()
        }
        None => {
            git::require_clean(input, "rkb alpha generate")?;
            input.clone()
        }
    };
    let parent = std::path::absolute(&output)?
        .parent()
        .filter(|parent| parent.is_dir())
        .map(Path::to_path_buf)
        .with_context(|| {
            format!(
                "the directory {} is to go in does not exist",
                output.display()
            )
        })?;
    // Next to the output, so moving the tree into place is a rename on one file system.
    let staging = tempfile::Builder::new()
        .prefix(".rkb-alpha-generate-")
        .tempdir_in(&parent)
        .with_context(|| format!("cannot create a staging directory in {}", parent.display()))?;
    let fresh = staging.path().join("project");
    let rkb = std::env::current_exe().context("cannot find the running rkb binary")?;
    let boilerplate = std::fs::read_to_string(input.join(replay::BOILERPLATE)).ok();
    replay::scaffold(&rkb, &config, boilerplate.as_deref(), &fresh)
        .context("cannot re-scaffold the project from PROJECT")?;
    keep_project_order(&config, &fresh)?;
    let regenerated = carry_user_files(input, &fresh)?;
    replay::run_rkb(&rkb, &["manifests".to_string()], &fresh)?;
    if args.output_dir.is_some() {
        if output.exists() {
            std::fs::remove_dir(&output)?;
        }
        std::fs::rename(&fresh, &output)
            .with_context(|| format!("cannot move the new tree to {}", output.display()))?;
    } else {
        swap_in_place(input, &fresh, &staging.path().join("old"))?;
    }
    report(&config, &output, &regenerated);
    Ok(())
}

fn report(config: &ProjectConfig, output: &Path, regenerated: &[PathBuf]) {
    println!(
        "Regenerated {} from PROJECT with rkb {} in {}",
        config.project_name,
        crate::commands::version::SHORT,
        output.display()
    );
    if !regenerated.is_empty() {
        println!(
            "Scaffold files that differ from the project's (compare with git, re-apply your edits):"
        );
        for path in regenerated {
            println!("  {}", path.display());
        }
    }
}

/// `--output-dir` must be new or empty, and outside the project (whose files are read while it is written).
fn refuse_output(input: &Path, output: &Path) -> Result<()> {
    if resolved(output)?.starts_with(std::fs::canonicalize(input)?) {
        bail!(
            "--output-dir {} is inside the project: pass a directory outside it, or no --output-dir to regenerate in \
             place",
            output.display()
        );
    }
    refuse_non_empty(output)
}

/// `path` with symbolic links and `..` resolved; for a path that does not exist yet, its parent's, which must.
fn resolved(path: &Path) -> Result<PathBuf> {
    if path.exists() {
        return Ok(std::fs::canonicalize(path)?);
    }
    let parent = path
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    let name = path
        .file_name()
        .with_context(|| format!("{} names no directory", path.display()))?;
    let parent = std::fs::canonicalize(parent).with_context(|| {
        format!(
            "the directory {} is to go in does not exist",
            path.display()
        )
    })?;
    Ok(parent.join(name))
}

fn refuse_non_empty(output: &Path) -> Result<()> {
    if let Ok(mut entries) = std::fs::read_dir(output)
        && entries.next().is_some()
    {
        bail!(
            "{} is not empty: rkb alpha generate writes the regenerated project into a new or empty directory",
            output.display()
        );
    }
    if output.exists() && !output.is_dir() {
        bail!("{} is a file, not a directory", output.display());
    }
    Ok(())
}

/// Writes the fresh PROJECT with its resources in the old PROJECT's order (the replay creates every API before any
/// webhook, which can reorder them), so PROJECT changes only where this rkb records something else.
fn keep_project_order(old: &ProjectConfig, fresh_dir: &Path) -> Result<()> {
    let mut fresh = ProjectConfig::load(fresh_dir)?;
    let position = |group: &str, version: &str, kind: &str| {
        old.resources
            .iter()
            .position(|r| r.group == group && r.version == version && r.kind == kind)
    };
    fresh
        .resources
        .sort_by_key(|r| position(&r.group, &r.version, &r.kind));
    std::fs::write(fresh_dir.join(project_config::FILE_NAME), fresh.render()?)?;
    Ok(())
}

/// Whether `path` (relative to the project) is one of the user's sources, carried over the scaffold's file.
fn is_user_source(path: &Path) -> bool {
    let text = path.to_string_lossy();
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy())
        .unwrap_or_default();
    text.starts_with("src/api/")
        || (text.starts_with("src/controller/") && name.ends_with("_controller.rs"))
        || (text.starts_with("src/webhook/") && name.ends_with("_webhook.rs"))
        || (text.starts_with("tests/")
            && (name.ends_with("_controller.rs") || name.ends_with("_webhook.rs")))
}

/// Copies the user's files from `old` into `fresh` (module docs); returns the scaffold files whose new content
/// differs from the old.
fn carry_user_files(old: &Path, fresh: &Path) -> Result<Vec<PathBuf>> {
    let mut regenerated = Vec::new();
    for rel in files_below(old)? {
        let (from, to) = (old.join(&rel), fresh.join(&rel));
        if rel == Path::new("Cargo.toml") && to.exists() {
            let manifest = dependencies::carry(
                &std::fs::read_to_string(&from)?,
                &std::fs::read_to_string(&to)?,
            );
            std::fs::write(&to, manifest)?;
        }
        if is_user_source(&rel) || !to.exists() {
            if let Some(dir) = to.parent() {
                std::fs::create_dir_all(dir)?;
            }
            std::fs::copy(&from, &to)
                .with_context(|| format!("cannot copy {} to {}", from.display(), to.display()))?;
        } else if std::fs::read(&from)? != std::fs::read(&to)? && !is_generated(&rel) {
            regenerated.push(rel);
        }
    }
    Ok(regenerated)
}

/// `rkb manifests`' output, written again from the carried types.
fn is_generated(path: &Path) -> bool {
    path.starts_with("config/crd/bases")
        || path == Path::new("config/rbac/role.yaml")
        || path == Path::new("config/webhook/manifests.yaml")
}

/// The files below `dir`, relative to it, without `.git/` and `target/` at the top.
fn files_below(dir: &Path) -> Result<Vec<PathBuf>> {
    let mut files = Vec::new();
    let mut pending = vec![PathBuf::new()];
    while let Some(rel) = pending.pop() {
        let entries = std::fs::read_dir(dir.join(&rel))
            .with_context(|| format!("cannot read {}", dir.join(&rel).display()))?;
        for entry in entries {
            let entry = entry?;
            let path = rel.join(entry.file_name());
            if rel.as_os_str().is_empty() && is_kept_in_place(&entry.file_name()) {
                continue;
            }
            if entry.file_type()?.is_dir() {
                pending.push(path);
            } else {
                files.push(path);
            }
        }
    }
    files.sort();
    Ok(files)
}

fn is_kept_in_place(name: &OsStr) -> bool {
    name == ".git" || name == "target"
}

/// Replaces the project's entries (but `.git/` and `target/`) with the fresh tree's: the old ones move to `old`
/// first; if a move fails, what was moved goes back, so the project is left as it was.
fn swap_in_place(project: &Path, fresh: &Path, old: &Path) -> Result<()> {
    std::fs::create_dir(old)?;
    let old_names = entry_names(project)?;
    let new_names = entry_names(fresh)?;
    let failed = |err: anyhow::Error| {
        err.context(format!(
            "cannot move the regenerated tree into {}",
            project.display()
        ))
    };
    if let Err((done, err)) = move_all(&old_names, project, old) {
        let _ = move_all(&done, old, project);
        return Err(failed(err));
    }
    if let Err((done, err)) = move_all(&new_names, fresh, project) {
        let _ = move_all(&done, project, fresh);
        let _ = move_all(&old_names, old, project);
        return Err(failed(err));
    }
    Ok(())
}

/// The names of `dir`'s entries, but `.git` and `target`.
fn entry_names(dir: &Path) -> Result<Vec<OsString>> {
    let mut names = Vec::new();
    for entry in std::fs::read_dir(dir)? {
        let name = entry?.file_name();
        if !is_kept_in_place(&name) {
            names.push(name);
        }
    }
    Ok(names)
}

/// Renames each of `names` from `from` to `to`; on failure, the names already moved and the error.
fn move_all(
    names: &[OsString],
    from: &Path,
    to: &Path,
) -> std::result::Result<Vec<OsString>, (Vec<OsString>, anyhow::Error)> {
    let mut done = Vec::new();
    for name in names {
        if let Err(err) = std::fs::rename(from.join(name), to.join(name)) {
            return Err((done, err.into()));
        }
        done.push(name.clone());
    }
    Ok(done)
}
