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

/// A second version of the quickstart's kind, without a controller (the spoke of a conversion).
pub const CREATE_DEMO_V2: [&str; 9] = [
    "create",
    "api",
    "--group",
    "devops",
    "--version",
    "v2",
    "--kind",
    "DemoMicroService",
    "--controller=false",
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

/// The arguments of `rkb create <what> --group G --version V --kind K` (`what`: "api" or "webhook"); a test adds its
/// flags.
pub fn create_args<'a>(
    what: &'a str,
    group: &'a str,
    version: &'a str,
    kind: &'a str,
) -> Vec<&'a str> {
    vec![
        "create",
        what,
        "--group",
        group,
        "--version",
        version,
        "--kind",
        kind,
    ]
}

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

/// cargo in a scaffolded project, building into the workspace's target dir so dependencies compile once, or into
/// RKB_PROJECT_TARGET_DIR when set (a git worktree of rkb builds rkb itself apart, because cargo would mix up the
/// worktrees' same-named workspace crates, yet shares the dependencies' builds with the main checkout).
pub fn cargo(dir: &Path, args: &[&str]) -> String {
    run(&mut project_cargo(dir, args))
}

/// cargo in a scaffolded project (same target dir as [`cargo`]) where failing is an outcome the test judges
/// rather than a broken setup: whether it succeeded, and its stdout followed by its stderr. `envs` are set on top
/// of the inherited environment.
pub fn cargo_outcome(dir: &Path, args: &[&str], envs: &[(&str, &str)]) -> (bool, String) {
    let out = project_cargo(dir, args)
        .envs(envs.iter().copied())
        .output()
        .expect("cargo runs");
    let report = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    (out.status.success(), report)
}

/// The cargo command [`cargo`] and [`cargo_outcome`] run, with its target dir chosen as [`cargo`] describes.
fn project_cargo(dir: &Path, args: &[&str]) -> Command {
    let target = std::env::var_os("RKB_PROJECT_TARGET_DIR").map_or_else(target_dir, PathBuf::from);
    let mut cmd = Command::new(env!("CARGO"));
    cmd.args(args)
        .current_dir(dir)
        .env("CARGO_TARGET_DIR", target);
    cmd
}

/// `kubectl kustomize config/default` in a project: the rendered YAML, failing the test when it does not render.
pub fn kustomize_default(dir: &Path) -> String {
    run(Command::new("kubectl")
        .args(["kustomize", "config/default"])
        .current_dir(dir))
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

/// Runs rkb expecting failure; asserts the message and that the tree is byte-for-byte unchanged.
pub fn refused(dir: &Path, args: &[&str], expected: &[&str]) {
    let stderr = failed_unchanged(dir, args);
    let first = stderr.lines().next().unwrap_or_default();
    assert!(first.starts_with("error: "), "rkb {args:?}: {stderr}");
    assert_eq!(
        stderr.lines().count(),
        1,
        "rkb {args:?}: the error must be one line:\n{stderr}"
    );
    for needle in expected {
        assert!(
            stderr.contains(needle),
            "rkb {args:?}: expected {needle:?} in:\n{stderr}"
        );
    }
}

/// Runs rkb expecting exit 1; asserts that the tree is unchanged, directories included, and returns stderr.
pub fn failed_unchanged(dir: &Path, args: &[&str]) -> String {
    let before = (snapshot(dir), directories(dir));
    let out = rkb(dir, args);
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(
        !out.status.success(),
        "rkb {args:?} succeeded but should fail"
    );
    assert_eq!(out.status.code(), Some(1), "rkb {args:?}: {stderr}");
    assert!(
        (snapshot(dir), directories(dir)) == before,
        "rkb {args:?} changed files although it failed:\n{stderr}"
    );
    stderr
}

/// Every directory below `dir` (`snapshot` holds files only, so a directory left behind would go unseen).
pub fn directories(dir: &Path) -> Vec<PathBuf> {
    walkdir::WalkDir::new(dir)
        .sort_by_file_name()
        .into_iter()
        .filter_map(Result::ok)
        .filter(|e| e.file_type().is_dir())
        .map(|e| e.into_path())
        .collect()
}

/// `rkb create webhook` for DemoMicroService v1 with `flags`.
pub fn create_demo_webhook<'a>(flags: &[&'a str]) -> Vec<&'a str> {
    let mut args = CREATE_DEMO_WEBHOOKS[..8].to_vec();
    args.extend_from_slice(flags);
    args
}

/// The user's defaulter: a label on every DemoMicroService, written where the scaffold's TODO is.
pub const USER_DEFAULTER: &str = "demomicroservice
            .metadata
            .labels
            .get_or_insert_with(Default::default)
            .insert(\"defaulted\".into(), \"true\".into());";

/// The user's assertion of that label in the webhook test.
pub const USER_ASSERTION: &str = "assert_eq!(
        created
            .metadata
            .labels
            .as_ref()
            .and_then(|l| l.get(\"defaulted\"))
            .map(String::as_str),
        Some(\"true\")
    );";

/// A project whose DemoMicroService v1 gets its webhooks one type at a time, with user code in between: defaulting
/// (then the user writes the defaulter and asserts it in the test), validation, then conversion to and from v2.
pub fn scaffold_incremental_webhooks(dir: &Path) {
    rkb_ok(dir, &["init", "--domain", "my.domain"]);
    rkb_ok(dir, &CREATE_DEMO_API);
    rkb_ok(dir, &CREATE_DEMO_V2);
    rkb_ok(dir, &create_demo_webhook(&["--defaulting"]));
    replace_in(
        &dir.join("src/webhook/v1/demomicroservice_webhook.rs"),
        "let _ = demomicroservice;\n        Ok(())",
        &format!("{USER_DEFAULTER}\n        Ok(())"),
    );
    replace_in(
        &dir.join("tests/v1_demomicroservice_webhook.rs"),
        "    // TODO(user): assert the defaults your defaulter sets, and that invalid objects are refused.\n",
        &format!("    {USER_ASSERTION}\n"),
    );
    rkb_ok(dir, &create_demo_webhook(&["--programmatic-validation"]));
    rkb_ok(
        dir,
        &create_demo_webhook(&["--conversion", "--spoke", "v2"]),
    );
}

/// Replaces `from` (which must be there) by `to` in the file at `path`.
pub fn replace_in(path: &Path, from: &str, to: &str) {
    let text = std::fs::read_to_string(path).expect("readable");
    assert!(
        text.contains(from),
        "{} has no {from:?}:\n{text}",
        path.display()
    );
    std::fs::write(path, text.replacen(from, to, 1)).expect("writable");
}

/// `git init` and a commit of everything in `dir`, as a project under version control is before `rkb edit`.
pub fn git_commit_all(dir: &Path) {
    for args in [
        &["init", "-q", "-b", "main"][..],
        &["add", "-A"],
        &[
            "-c",
            "user.name=rkb",
            "-c",
            "user.email=rkb@example.com",
            "commit",
            "-q",
            "-m",
            "scaffold",
        ],
    ] {
        run(Command::new("git").args(args).current_dir(dir));
    }
}
