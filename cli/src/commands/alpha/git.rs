//! The git commands `alpha generate` and `alpha update` run, with their failures turned into errors that name the
//! command and git's own message.

use std::path::Path;
use std::process::{Command, Output};

use anyhow::{Context as _, Result, bail};

/// `git <args>` in `dir`; its stdout, trimmed.
pub fn run(dir: &Path, args: &[&str]) -> Result<String> {
    let out = capture(Command::new("git").args(args).current_dir(dir))?;
    if !out.status.success() {
        bail!(
            "`git {}` failed in {}: {}",
            args.join(" "),
            dir.display(),
            String::from_utf8_lossy(&out.stderr).trim()
        );
    }
    Ok(String::from_utf8_lossy(&out.stdout).trim().to_string())
}

/// Runs `cmd` to completion, capturing its output; an error only when it cannot start.
pub fn capture(cmd: &mut Command) -> Result<Output> {
    cmd.output()
        .with_context(|| format!("cannot run {:?} (is git installed?)", cmd.get_program()))
}

/// Refuses a directory outside a git repository, or one with changes git does not hold yet (modified, staged or
/// untracked files below it): what the command replaces must be recoverable from git.
pub fn require_clean(dir: &Path, command: &str) -> Result<()> {
    let status = capture(
        Command::new("git")
            .args(["status", "--porcelain", "--untracked-files=all", "--", "."])
            // A status refreshes the index file when it can; a refusal must leave .git as it was.
            .env("GIT_OPTIONAL_LOCKS", "0")
            .current_dir(dir),
    )?;
    if !status.status.success() {
        bail!(
            "{} is not in a git repository: {command} rewrites the project in place, so it needs git to hold the \
             current files (`git init && git add -A && git commit`)",
            dir.display()
        );
    }
    let changes = String::from_utf8_lossy(&status.stdout);
    let paths: Vec<&str> = changes.lines().map(|l| l.get(3..).unwrap_or(l)).collect();
    if !paths.is_empty() {
        bail!(
            "{} has changes git does not hold ({}): commit or stash them first, {command} needs a clean tree",
            dir.display(),
            paths.join(", ")
        );
    }
    Ok(())
}
