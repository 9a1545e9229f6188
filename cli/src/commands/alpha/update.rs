//! `rkb alpha update`: kubebuilder's three-way merge of scaffolds on git.
//!
//! - ancestor: the scaffold the project's recorded rkb release (PROJECT's `cliVersion`) makes from PROJECT, run as
//!   `--from-rkb <binary>` or installed with `cargo install rkb --version =<cliVersion>` into rkb's cache;
//! - upgrade: the scaffold this rkb makes from the same PROJECT;
//! - original: the user's current commit.
//!
//! Both scaffolds are built in a staging directory and written to the repository as commits (the ancestor's parent
//! is HEAD, the other two are children of the ancestor), so git's merge base is the old scaffold. rkb then makes
//! the output branch at the upgrade commit, checks it out and merges the original into it: the user's changes to the
//! old scaffold are replayed on the new one. A clean merge, with PROJECT's `cliVersion` set to this rkb and `rkb
//! manifests` run, becomes one commit on the user's HEAD (kubebuilder's default squash); conflicts are left as git
//! conflicts (the merge in progress, its parents the scaffold commits) and listed, exit 1. Nothing
//! is written before the scaffolds are built, and the command refuses to start on a dirty tree or outside the top of
//! a git repository, so every failure before the merge leaves the tree (and the branches) as they were.

use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode};

use anyhow::{Context as _, Result, bail};

use super::{git, replay};
use crate::args::AlphaUpdateArgs;
use crate::commands::version;
use crate::project_config::{self, ProjectConfig};

/// Who the scaffold commits are by: they are rkb's output, not the user's work.
const SCAFFOLD_AUTHOR: [(&str, &str); 4] = [
    ("GIT_AUTHOR_NAME", "rkb alpha update"),
    ("GIT_AUTHOR_EMAIL", "rkb@localhost"),
    ("GIT_COMMITTER_NAME", "rkb alpha update"),
    ("GIT_COMMITTER_EMAIL", "rkb@localhost"),
];

pub fn run(args: &AlphaUpdateArgs) -> Result<ExitCode> {
    let dir = &args.dir;
    let config = ProjectConfig::load(dir)?;
    require_repository_top(dir)?;
    git::require_clean(dir, "rkb alpha update")?;
    let (from, to) = (config.cli_version.clone(), version::SHORT.to_string());
    let branch = args
        .output_branch
        .clone()
        .unwrap_or_else(|| format!("rkb-update-from-{from}-to-{to}"));
    refuse_taken_branch(dir, &branch)?;
    let rkb = std::env::current_exe().context("cannot find the running rkb binary")?;
    let old_rkb = ancestor_rkb(args.from_rkb.as_deref(), &from, &to)?;
    let staging = tempfile::Builder::new()
        .prefix("rkb-alpha-update-")
        .tempdir()?;
    let boilerplate = std::fs::read_to_string(dir.join(replay::BOILERPLATE)).ok();
    let (ancestor_dir, upgrade_dir) = (
        staging.path().join("ancestor"),
        staging.path().join("upgrade"),
    );
    replay::scaffold(&old_rkb, &config, boilerplate.as_deref(), &ancestor_dir)
        .with_context(|| format!("cannot build rkb {from}'s scaffold (the merge's ancestor)"))?;
    replay::scaffold(&rkb, &config, boilerplate.as_deref(), &upgrade_dir)
        .with_context(|| format!("cannot build rkb {to}'s scaffold"))?;

    let index = staging.path().join("index");
    let head = git::run(dir, &["rev-parse", "HEAD"])?;
    let (original, upgrade) =
        scaffold_commits(dir, (&ancestor_dir, &upgrade_dir), &index, (&from, &to))?;
    git::run(dir, &["branch", &branch, &upgrade])?;
    git::run(dir, &["checkout", "--quiet", &branch])?;
    merge(dir, &original, &branch, (&from, &to), &head)
}

/// Refuses an output branch git would not create, before anything is written.
fn refuse_taken_branch(dir: &Path, branch: &str) -> Result<()> {
    if git::run(dir, &["check-ref-format", "--branch", branch]).is_err() {
        bail!("--output-branch {branch:?} is not a valid git branch name");
    }
    let reference = format!("refs/heads/{branch}");
    if git::run(dir, &["rev-parse", "--verify", "--quiet", &reference]).is_ok() {
        bail!("branch {branch} exists already: delete it, or pass --output-branch <another name>");
    }
    Ok(())
}

/// The rkb binary that makes the ancestor scaffold: `--from-rkb`, else the release PROJECT records.
fn ancestor_rkb(from_rkb: Option<&Path>, from: &str, to: &str) -> Result<PathBuf> {
    match from_rkb {
        Some(path) if path.is_file() => Ok(std::path::absolute(path)?),
        Some(path) => bail!("--from-rkb {}: no such file", path.display()),
        None if from == to => bail!(
            "PROJECT records rkb {from}, the release running: there is no newer scaffold to merge (pass --from-rkb \
             <an rkb binary> to merge from the scaffold another rkb build makes)"
        ),
        None => install_release(from),
    }
}

/// The merge's commits: the ancestor scaffold on HEAD, and on it the user's tree (the original) and the new
/// scaffold (the upgrade); returns the original's and the upgrade's ids.
fn scaffold_commits(
    dir: &Path,
    (ancestor_dir, upgrade_dir): (&Path, &Path),
    index: &Path,
    (from, to): (&str, &str),
) -> Result<(String, String)> {
    let head = git::run(dir, &["rev-parse", "HEAD"])?;
    let message = format!("rkb {from}'s scaffold of PROJECT");
    let ancestor = commit_dir(dir, ancestor_dir, index, &head, &message)?;
    let original_tree = git::run(dir, &["rev-parse", "HEAD^{tree}"])?;
    let original = commit_tree(dir, &original_tree, &ancestor, "the project as it is")?;
    let message = format!("rkb {to}'s scaffold of PROJECT");
    let upgrade = commit_dir(dir, upgrade_dir, index, &ancestor, &message)?;
    Ok((original, upgrade))
}

/// Merges the user's commit into the new scaffold on the checked-out branch and reports.
fn merge(
    dir: &Path,
    original: &str,
    branch: &str,
    (from, to): (&str, &str),
    head: &str,
) -> Result<ExitCode> {
    let message =
        format!("rkb alpha update: the project moved from rkb {from}'s scaffold to rkb {to}'s");
    let merged = git::capture(
        Command::new("git")
            .args(["merge", "--no-ff", "--no-commit", original])
            .current_dir(dir),
    )?;
    let conflicts = git::run(dir, &["diff", "--name-only", "--diff-filter=U"])?;
    if !conflicts.is_empty() {
        let files: Vec<&str> = conflicts.lines().collect();
        eprintln!(
            "rkb alpha update: merged rkb {to}'s scaffold into the project on branch {branch}, with conflicts in {} file{}:",
            files.len(),
            if files.len() == 1 { "" } else { "s" }
        );
        for file in &files {
            eprintln!("  {file}");
        }
        eprintln!(
            "Resolve them (the merge is in progress: `git status`), run `rkb manifests`, then `git commit`; \
             `git merge --abort` and `git checkout -` give the project back as it was."
        );
        return Ok(ExitCode::FAILURE);
    }
    if !merged.status.success() {
        bail!(
            "`git merge` failed on branch {branch}: {}",
            String::from_utf8_lossy(&merged.stderr).trim()
        );
    }
    record_cli_version(dir)?;
    let rkb = std::env::current_exe()?;
    replay::run_rkb(&rkb, &["manifests".to_string()], dir).with_context(|| {
        format!("the merge is on branch {branch}, not committed yet: fix the sources, run `rkb manifests`, then `git commit`")
    })?;
    // kubebuilder's default: the result as one commit on the user's, without the scaffold commits. A reset to it
    // ends the merge (its index is the merged tree, which the work tree holds).
    git::run(dir, &["add", "--all"])?;
    let tree = git::run(dir, &["write-tree"])?;
    let squashed = git::run(dir, &["commit-tree", &tree, "-p", head, "-m", &message])?;
    git::run(dir, &["reset", "--quiet", &squashed])?;
    println!(
        "rkb alpha update: merged rkb {to}'s scaffold into the project on branch {branch} (no conflicts)."
    );
    println!(
        "Review it (`git diff {}` shows what changed), build and test, then merge the branch.",
        &head[..head.len().min(12)]
    );
    Ok(ExitCode::SUCCESS)
}

/// PROJECT records this rkb after the merge, whatever the merge made of the line.
fn record_cli_version(dir: &Path) -> Result<()> {
    let mut config = ProjectConfig::load(dir)?;
    if config.cli_version != version::SHORT {
        config.cli_version = version::SHORT.to_string();
        std::fs::write(dir.join(project_config::FILE_NAME), config.render()?)?;
    }
    Ok(())
}

/// The merge works on the repository's whole tree, so the project must be all of it.
fn require_repository_top(dir: &Path) -> Result<()> {
    let top = git::run(dir, &["rev-parse", "--show-toplevel"]).map_err(|_| {
        anyhow::anyhow!(
            "{} is not in a git repository: rkb alpha update merges on git branches (`git init && git add -A && git commit`)",
            dir.display()
        )
    })?;
    let here = std::fs::canonicalize(dir)?;
    if std::fs::canonicalize(&top)? != here {
        bail!(
            "{} is below the top of its git repository ({top}): rkb alpha update needs the project at the top",
            dir.display()
        );
    }
    Ok(())
}

/// A commit of the files in `tree_dir` (its .gitignore applies), child of `parent`, through a private index.
fn commit_dir(
    repo: &Path,
    tree_dir: &Path,
    index: &Path,
    parent: &str,
    message: &str,
) -> Result<String> {
    let git_dir = git::run(repo, &["rev-parse", "--absolute-git-dir"])?;
    let _ = std::fs::remove_file(index);
    let in_tree = |args: &[&str]| -> Result<String> {
        let out = git::capture(
            Command::new("git")
                .args(args)
                .current_dir(tree_dir)
                .env("GIT_DIR", &git_dir)
                .env("GIT_WORK_TREE", tree_dir)
                .env("GIT_INDEX_FILE", index),
        )?;
        if !out.status.success() {
            bail!(
                "`git {}` failed: {}",
                args.join(" "),
                String::from_utf8_lossy(&out.stderr).trim()
            );
        }
        Ok(String::from_utf8_lossy(&out.stdout).trim().to_string())
    };
    in_tree(&["add", "--all"])?;
    let tree = in_tree(&["write-tree"])?;
    commit_tree(repo, &tree, parent, message)
}

fn commit_tree(repo: &Path, tree: &str, parent: &str, message: &str) -> Result<String> {
    let out = git::capture(
        Command::new("git")
            .args(["commit-tree", tree, "-p", parent, "-m", message])
            .current_dir(repo)
            .envs(SCAFFOLD_AUTHOR),
    )?;
    if !out.status.success() {
        bail!(
            "`git commit-tree` failed: {}",
            String::from_utf8_lossy(&out.stderr).trim()
        );
    }
    Ok(String::from_utf8_lossy(&out.stdout).trim().to_string())
}

/// The rkb binary of release `version`, installed by cargo into rkb's cache once.
fn install_release(version: &str) -> Result<PathBuf> {
    let cache = std::env::var_os("XDG_CACHE_HOME")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|home| PathBuf::from(home).join(".cache")))
        .context(
            "neither XDG_CACHE_HOME nor HOME is set: pass --from-rkb <path to an rkb binary>",
        )?;
    let root = cache.join("rkb").join("releases").join(version);
    let binary = root.join("bin").join("rkb");
    if binary.is_file() {
        return Ok(binary);
    }
    let root_text = root.display().to_string();
    let args = [
        "install",
        "rkb",
        "--locked",
        "--version",
        &format!("={version}"),
        "--root",
        &root_text,
    ];
    eprintln!(
        "rkb alpha update: installing rkb {version} (PROJECT's cliVersion): cargo {}",
        args.join(" ")
    );
    let out = git::capture(Command::new("cargo").args(args))?;
    if !out.status.success() || !binary.is_file() {
        let stderr = String::from_utf8_lossy(&out.stderr);
        let reason = stderr
            .lines()
            .rev()
            .find(|l| !l.trim().is_empty())
            .unwrap_or("no output");
        bail!(
            "cannot install rkb {version}, the release PROJECT records (cliVersion), with `cargo {}`: {}; \
             if that release is not on crates.io, build it from rkb's git tag and pass --from-rkb <path to its rkb binary>",
            args.join(" "),
            reason.trim().trim_start_matches("error: ")
        );
    }
    Ok(binary)
}
