//! Stamps what `rkb version` prints about this build: the git commit (from the checkout, or from the
//! .cargo_vcs_info.json that `cargo package` writes into a published crate) and the build date.

#[path = "src/civil.rs"]
mod civil;

use std::path::Path;
use std::process::Command;

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    println!("cargo:rerun-if-env-changed=SOURCE_DATE_EPOCH");
    let commit = git_commit()
        .or_else(packaged_commit)
        .unwrap_or_else(|| "unknown".into());
    println!("cargo:rustc-env=RKB_GIT_COMMIT={commit}");
    println!(
        "cargo:rustc-env=RKB_BUILD_DATE={}",
        civil::rfc3339(civil::unix_now())
    );
}

fn git(args: &[&str]) -> Option<String> {
    let out = Command::new("git").args(args).output().ok()?;
    let text = String::from_utf8(out.stdout).ok()?;
    (out.status.success() && !text.trim().is_empty()).then(|| text.trim().to_string())
}

/// HEAD of the checkout being built; asks cargo to rerun when HEAD moves.
fn git_commit() -> Option<String> {
    let git_dir = git(&["rev-parse", "--absolute-git-dir"])?;
    let git_dir = Path::new(&git_dir);
    println!("cargo:rerun-if-changed={}", git_dir.join("HEAD").display());
    println!(
        "cargo:rerun-if-changed={}",
        git_dir.join("packed-refs").display()
    );
    if let Some(branch) = git(&["symbolic-ref", "-q", "HEAD"]) {
        println!("cargo:rerun-if-changed={}", git_dir.join(branch).display());
    }
    git(&["rev-parse", "HEAD"])
}

/// The commit `cargo package` recorded: `{"git": {"sha1": "..."}, ...}`.
fn packaged_commit() -> Option<String> {
    let info = std::fs::read_to_string(".cargo_vcs_info.json").ok()?;
    let rest = &info[info.find("\"sha1\"")? + "\"sha1\"".len()..];
    let start = rest.find('"')? + 1;
    let end = start + rest[start..].find('"')?;
    Some(rest[start..end].to_string())
}
