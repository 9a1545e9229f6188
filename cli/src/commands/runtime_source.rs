//! Where a scaffolded project takes rkb's crates from.
//!
//! Contract:
//! - **Published** (the default): Cargo.toml says `rkb-runtime = { version = "<major.minor of this CLI>", features =
//!   ["mimalloc"] }` and nothing else points at rkb. The project builds anywhere crates.io is reachable: a
//!   teammate's clone, CI, a Docker build.
//! - **Dev mode** (`--rkb-source DIR` or `RKB_SOURCE=DIR`): Cargo.toml is exactly the published form, and
//!   `.cargo/config.toml` gets a `[patch.crates-io]` entry pointing `rkb-runtime` at `DIR/runtime` (a patch swaps
//!   the source only, so the features Cargo.toml enables still apply). That file is machine-specific, so the
//!   scaffold's .gitignore and .dockerignore leave it out; deleting it returns the project to the published crates.
//!   A project inside DIR's workspace (rkb's own examples/) needs no file: the workspace's `[patch.crates-io]`
//!   already applies to it.
//! - A DIR that does not hold rkb's runtime is an error, before anything is written.
//! - When this binary was built from a source tree that still exists and no DIR was given, rkb says in one line
//!   that it chose the published form, and how to choose the checkout instead.

use std::path::{Path, PathBuf};

use anyhow::{Result, bail};

/// The project-relative path of the dev-mode override.
pub const DEV_CONFIG: &str = ".cargo/config.toml";

/// The version requirement scaffolds put on rkb's crates: this CLI's major.minor, so patch releases apply.
pub fn version_requirement() -> String {
    let version = env!("CARGO_PKG_VERSION");
    let mut parts = version.split('.');
    match (parts.next(), parts.next()) {
        (Some(major), Some(minor)) => format!("{major}.{minor}"),
        _ => version.to_string(),
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RuntimeSource {
    Published,
    /// A local rkb checkout: its root, and whether the project lies inside it (then its workspace patches it).
    Checkout {
        root: PathBuf,
        inside: bool,
    },
}

impl RuntimeSource {
    /// Picks the source for a project in `project_dir`; `flag` is `--rkb-source` / `RKB_SOURCE`.
    pub fn choose(project_dir: &Path, flag: Option<&Path>) -> Result<Self> {
        let Some(dir) = flag else {
            return Ok(Self::Published);
        };
        let root = checkout_root(dir)?;
        let project = std::fs::canonicalize(project_dir).unwrap_or_else(|_| project_dir.into());
        let inside = project.starts_with(&root);
        Ok(Self::Checkout { root, inside })
    }

    /// The one line that tells the user which mode init chose, when there was a choice to make.
    pub fn note(&self) -> Option<String> {
        match self {
            Self::Published => built_from_source().map(|tree| {
                format!(
                    "note: rkb-runtime {} comes from crates.io (rkb was built from {}; pass --rkb-source {} to build against that checkout instead)",
                    version_requirement(),
                    tree.display(),
                    tree.display()
                )
            }),
            Self::Checkout { root, inside: true } => Some(format!(
                "note: dev mode: rkb-runtime comes from {}, whose workspace [patch.crates-io] covers this project",
                root.display()
            )),
            Self::Checkout {
                root,
                inside: false,
            } => Some(format!(
                "note: dev mode: rkb-runtime comes from {} through {DEV_CONFIG} (kept out of git and Docker; delete it to use crates.io)",
                root.display()
            )),
        }
    }

    /// The dev-mode override file's contents, when the project needs one.
    pub fn dev_config(&self) -> Option<String> {
        match self {
            Self::Checkout {
                root,
                inside: false,
            } => Some(format!(
                "# Dev mode (rkb init --rkb-source): build against the rkb checkout below instead of crates.io.\n\
                 # This file is specific to this machine: .gitignore and .dockerignore keep it out of the repository\n\
                 # and the image. Delete it to build against the published rkb-runtime.\n\
                 [patch.crates-io]\n\
                 rkb-runtime = {{ path = {} }}\n",
                toml_string(&root.join("runtime"))
            )),
            _ => None,
        }
    }
}

/// Checks that `dir` holds rkb's sources, and returns it canonicalized.
fn checkout_root(dir: &Path) -> Result<PathBuf> {
    let hint = "pass the directory of an rkb clone (the one holding runtime/ and cli/), or leave out --rkb-source and RKB_SOURCE to use the published crates";
    let Ok(root) = std::fs::canonicalize(dir) else {
        bail!("--rkb-source {}: no such directory; {hint}", dir.display());
    };
    let manifest = root.join("runtime/Cargo.toml");
    let holds_runtime = std::fs::read_to_string(&manifest)
        .is_ok_and(|text| text.lines().any(|l| l.trim() == "name = \"rkb-runtime\""));
    if !holds_runtime {
        bail!(
            "--rkb-source {}: not an rkb checkout ({} is not the rkb-runtime crate); {hint}",
            dir.display(),
            manifest.display()
        );
    }
    Ok(root)
}

/// The rkb source tree this binary was built from, when it is still there.
fn built_from_source() -> Option<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()?
        .to_path_buf();
    root.join("runtime/Cargo.toml").is_file().then_some(root)
}

/// A TOML basic string holding `path` (backslashes and quotes escaped, for Windows paths too).
fn toml_string(path: &Path) -> String {
    let text = path.display().to_string();
    format!("\"{}\"", text.replace('\\', "\\\\").replace('"', "\\\""))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn requirement_is_major_minor() {
        let req = version_requirement();
        assert_eq!(req.matches('.').count(), 1, "{req}");
        assert!(env!("CARGO_PKG_VERSION").starts_with(&format!("{req}.")));
    }

    #[test]
    fn a_directory_without_the_runtime_is_refused() {
        let tmp = tempfile::tempdir().unwrap();
        let err = RuntimeSource::choose(tmp.path(), Some(tmp.path()))
            .unwrap_err()
            .to_string();
        assert!(err.contains("not an rkb checkout"), "{err}");
        let err = RuntimeSource::choose(tmp.path(), Some(Path::new("/nonexistent")))
            .unwrap_err()
            .to_string();
        assert!(
            err.starts_with("--rkb-source /nonexistent: no such directory"),
            "{err}"
        );
    }

    #[test]
    fn dev_config_patches_the_runtime_with_an_escaped_path() {
        let source = RuntimeSource::Checkout {
            root: PathBuf::from("/src/my \"rkb\""),
            inside: false,
        };
        let config = source.dev_config().unwrap();
        assert!(config.contains("[patch.crates-io]\n"), "{config}");
        assert!(
            config.contains(r#"rkb-runtime = { path = "/src/my \"rkb\"/runtime" }"#),
            "{config}"
        );
        let inside = RuntimeSource::Checkout {
            root: PathBuf::from("/src"),
            inside: true,
        };
        assert_eq!(inside.dev_config(), None);
        assert_eq!(RuntimeSource::Published.dev_config(), None);
    }
}
