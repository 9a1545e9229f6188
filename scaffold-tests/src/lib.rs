//! Helpers for the scaffold tests: the real `rkb` binary, tree snapshots and golden files.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::OnceLock;

pub mod kinds;
pub mod registry;

/// A fixed date for license headers, so golden files do not change with the calendar.
pub const SOURCE_DATE_EPOCH: &str = "1780000000"; // 2026-05-28

pub fn workspace_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("scaffold-tests sits in the workspace")
        .to_path_buf()
}

/// Where the workspace builds (and where scaffolded projects build too, sharing compiled dependencies).
pub fn target_dir() -> PathBuf {
    std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| workspace_root().join("target"))
}

/// The `rkb` binary, built once per test run with the same cargo that runs the tests. The target dir may be shared
/// with other checkouts of rkb (worktrees), whose builds replace `debug/rkb`; the tests run a hard link of this
/// checkout's build, named after the checkout, which keeps its contents when cargo links a new `debug/rkb`.
pub fn rkb_bin() -> &'static Path {
    static BIN: OnceLock<PathBuf> = OnceLock::new();
    BIN.get_or_init(|| {
        let status = Command::new(env!("CARGO"))
            .args(["build", "--quiet", "-p", "rkb", "--bin", "rkb"])
            .current_dir(workspace_root())
            .status()
            .expect("cargo runs");
        assert!(status.success(), "building rkb failed");
        let built = target_dir().join("debug").join("rkb");
        let checkout = workspace_root()
            .display()
            .to_string()
            .replace(|c: char| !c.is_ascii_alphanumeric(), "_");
        let pinned = target_dir()
            .join("debug")
            .join(format!("rkb-scaffold-tests{checkout}"));
        let _ = std::fs::remove_file(&pinned);
        match std::fs::hard_link(&built, &pinned) {
            Ok(()) => pinned,
            Err(_) => built,
        }
    })
}

/// Runs `rkb` in `dir` with a pinned date and this checkout as the rkb source (dev mode).
pub fn rkb(dir: &Path, args: &[&str]) -> Output {
    Command::new(rkb_bin())
        .args(args)
        .current_dir(dir)
        .env("SOURCE_DATE_EPOCH", SOURCE_DATE_EPOCH)
        .env("RKB_SOURCE", workspace_root())
        .output()
        .expect("rkb runs")
}

/// Runs `rkb` as a user of the published crates would: no rkb source, so projects take rkb from crates.io.
pub fn rkb_published(dir: &Path, args: &[&str]) -> Output {
    Command::new(rkb_bin())
        .args(args)
        .current_dir(dir)
        .env("SOURCE_DATE_EPOCH", SOURCE_DATE_EPOCH)
        .env_remove("RKB_SOURCE")
        .output()
        .expect("rkb runs")
}

/// Runs `rkb` and fails the test with its output when it does not succeed.
pub fn rkb_ok(dir: &Path, args: &[&str]) -> String {
    succeeded(args, rkb(dir, args))
}

/// The stdout of an `rkb` run, failing the test with its output when it did not succeed.
pub fn succeeded(args: &[&str], out: Output) -> String {
    assert!(
        out.status.success(),
        "rkb {args:?} failed:\n{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

/// The arguments of the quickstart's `rkb create api` (seed 000, section 2).
pub const CREATE_DEMO_API: [&str; 8] = [
    "create",
    "api",
    "--group",
    "devops",
    "--version",
    "v1",
    "--kind",
    "DemoMicroService",
];

/// Both admission webhooks of the quickstart's kind.
pub const CREATE_DEMO_WEBHOOKS: [&str; 10] = [
    "create",
    "webhook",
    "--group",
    "devops",
    "--version",
    "v1",
    "--kind",
    "DemoMicroService",
    "--defaulting",
    "--programmatic-validation",
];

/// A directory for a scaffolded project named `name` inside `tmp`. Each project a test process builds needs a name
/// of its own: cargo names a path package's artifacts by its name, version and dependencies, not by its directory,
/// so two same-named projects building into the shared target dir at once link each other's library (the webhooks
/// test once compiled against the conversion test's crate, which has no `webhook` module). Panics on a reused name.
pub fn project_dir(tmp: &Path, name: &str) -> PathBuf {
    static NAMES: std::sync::Mutex<Vec<String>> = std::sync::Mutex::new(Vec::new());
    let mut names = NAMES
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner());
    assert!(
        !names.iter().any(|taken| taken == name),
        "two tests in one process scaffold a project named {name:?}; give each its own name"
    );
    names.push(name.to_string());
    let dir = tmp.join(name);
    std::fs::create_dir(&dir).expect("create the project directory");
    dir
}

/// cargo in a scaffolded project, building into the workspace's target dir so dependencies compile once.
pub fn cargo(dir: &Path, args: &[&str]) -> String {
    run(Command::new(env!("CARGO"))
        .args(args)
        .current_dir(dir)
        .env("CARGO_TARGET_DIR", target_dir()))
}

/// Seeds a scaffolded project with the workspace's lock file, so it resolves the versions the workspace already
/// built (crates the workspace has no entry for, such as rkb's own from a registry, are resolved afresh).
pub fn seed_lock(dir: &Path) {
    std::fs::copy(workspace_root().join("Cargo.lock"), dir.join("Cargo.lock"))
        .expect("copy Cargo.lock");
}

/// `rkb init` of a multigroup project named "fleet" in `dir`.
pub fn init_multigroup_fleet(dir: &Path) {
    rkb_ok(
        dir,
        &[
            "init",
            "--domain",
            "my.domain",
            "--multigroup",
            "--project-name",
            "fleet",
        ],
    );
}

/// Every file below `dir` (relative path -> bytes), skipping build output.
pub fn snapshot(dir: &Path) -> BTreeMap<PathBuf, Vec<u8>> {
    walkdir::WalkDir::new(dir)
        .sort_by_file_name()
        .into_iter()
        .filter_entry(|e| e.file_name() != "target")
        .filter_map(Result::ok)
        .filter(|e| e.file_type().is_file())
        .map(|e| {
            let rel = e.path().strip_prefix(dir).expect("below dir").to_path_buf();
            (rel, std::fs::read(e.path()).expect("readable"))
        })
        .collect()
}

/// Compares a scaffolded tree with `scaffold-tests/golden/<name>`; with RKB_UPDATE_GOLDEN=1, rewrites the
/// golden files instead. The checkout's path is replaced by `{{RKB_SOURCE}}` so goldens hold on any machine.
pub fn assert_golden(name: &str, dir: &Path) {
    let golden = workspace_root().join("scaffold-tests/golden").join(name);
    let source = workspace_root().display().to_string();
    let actual: BTreeMap<PathBuf, String> = snapshot(dir)
        .into_iter()
        .map(|(p, bytes)| {
            (
                p,
                String::from_utf8(bytes)
                    .expect("scaffolds are UTF-8")
                    .replace(&source, "{{RKB_SOURCE}}"),
            )
        })
        .collect();
    if std::env::var_os("RKB_UPDATE_GOLDEN").is_some() {
        let _ = std::fs::remove_dir_all(&golden);
        for (rel, text) in &actual {
            let path = golden.join(rel);
            std::fs::create_dir_all(path.parent().expect("parent")).expect("mkdir");
            std::fs::write(path, text).expect("write golden");
        }
        return;
    }
    let expected: BTreeMap<PathBuf, String> = snapshot(&golden)
        .into_iter()
        .map(|(p, bytes)| (p, String::from_utf8(bytes).expect("goldens are UTF-8")))
        .collect();
    let exp_paths: Vec<_> = expected.keys().collect();
    let act_paths: Vec<_> = actual.keys().collect();
    assert_eq!(
        act_paths,
        exp_paths,
        "scaffolded files differ from {} (RKB_UPDATE_GOLDEN=1 refreshes)",
        golden.display()
    );
    for (rel, text) in &actual {
        let want = &expected[rel];
        if text != want {
            let line = text
                .lines()
                .zip(want.lines())
                .position(|(a, b)| a != b)
                .unwrap_or(0);
            panic!(
                "{} differs from its golden file at line {}:\n  scaffolded: {:?}\n  golden:     {:?}\n(RKB_UPDATE_GOLDEN=1 refreshes)",
                rel.display(),
                line + 1,
                text.lines().nth(line),
                want.lines().nth(line)
            );
        }
    }
}

/// Runs a command to completion, failing the test with its output.
pub fn run(cmd: &mut Command) -> String {
    let out = cmd
        .output()
        .unwrap_or_else(|e| panic!("cannot run {cmd:?}: {e}"));
    assert!(
        out.status.success(),
        "{cmd:?} failed:\n{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}
