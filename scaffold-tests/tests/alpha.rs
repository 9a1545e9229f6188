//! `rkb alpha update` and `rkb alpha generate`.
//!
//! The older rkb release is real and cheap: fixtures/alpha/old-rkb.sh is "rkb 0.0.9", the current rkb whose output
//! the script rewrites into the older templates' form (the controller without the comment above
//! `Controller::for_kind`, PROJECT's cliVersion 0.0.9). The user's project is scaffolded with it and committed, the
//! user edits it, and `rkb alpha update --from-rkb old-rkb.sh` merges the current scaffold in.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use rkb_scaffold_tests::{
    CREATE_DEMO_API, SOURCE_DATE_EPOCH, cargo, directories, git_commit_all, project_dir, refused,
    replace_in, rkb_bin, rkb_ok, run, scaffold_incremental_webhooks, seed_lock, snapshot,
    workspace_root,
};

const CONTROLLER: &str = "src/controller/demomicroservice_controller.rs";
const TYPES: &str = "src/api/v1/demomicroservice_types.rs";
/// The template line the older release lacks.
const NEW_TEMPLATE_LINE: &str = "    // Add `.owns::<Deployment>()` and the like for the objects this controller creates, so their\n";
/// The user's field in the spec, after the scaffold's example field.
const USER_FIELD: &str = "    pub foo: Option<String>,\n    /// replicas is how many copies to run.\n    pub replicas: i32,\n";
/// The user's requeue in `apply`, where the scaffold returns `await_change`.
const USER_REQUEUE: &str =
    "    // in `cleanup`.\n    Ok(Action::requeue(std::time::Duration::from_secs(300)))";

/// The older release as an executable in `tmp` (a copy, so its mode does not depend on the checkout).
fn old_rkb(tmp: &Path) -> PathBuf {
    let script = tmp.join("old-rkb.sh");
    std::fs::copy(
        workspace_root().join("scaffold-tests/fixtures/alpha/old-rkb.sh"),
        &script,
    )
    .unwrap();
    run(Command::new("chmod").arg("+x").arg(&script));
    script
}

/// `command` with the environment every run here shares: the pinned date, this checkout as rkb's source, the current
/// rkb for the old-release script, and a git identity for the merge commit.
fn with_env(command: &mut Command) -> &mut Command {
    command
        .env("SOURCE_DATE_EPOCH", SOURCE_DATE_EPOCH)
        .env("RKB_SOURCE", workspace_root())
        .env("RKB_CURRENT", rkb_bin())
        .env("GIT_AUTHOR_NAME", "user")
        .env("GIT_AUTHOR_EMAIL", "user@example.com")
        .env("GIT_COMMITTER_NAME", "user")
        .env("GIT_COMMITTER_EMAIL", "user@example.com")
}

fn update(dir: &Path, old: &Path) -> Output {
    with_env(
        Command::new(rkb_bin())
            .args(["alpha", "update", "--from-rkb"])
            .arg(old)
            .current_dir(dir),
    )
    .output()
    .unwrap()
}

fn git(dir: &Path, args: &[&str]) -> String {
    run(with_env(Command::new("git").args(args).current_dir(dir)))
}

/// A new directory `demo` in `tmp`, for a project.
fn demo_dir(tmp: &Path) -> PathBuf {
    let dir = tmp.join("demo");
    std::fs::create_dir(&dir).unwrap();
    dir
}

/// The quickstart project as the older release scaffolds it, committed on main.
fn old_project(tmp: &Path, old: &Path) -> PathBuf {
    let dir = demo_dir(tmp);
    for args in [
        &["init", "--domain", "my.domain"][..],
        &CREATE_DEMO_API,
        &["manifests"],
    ] {
        run(with_env(
            Command::new(old).args(args).arg("--dir").arg(&dir),
        ));
    }
    let controller = std::fs::read_to_string(dir.join(CONTROLLER)).unwrap();
    assert!(
        !controller.contains(NEW_TEMPLATE_LINE),
        "the old release's controller:\n{controller}"
    );
    git_commit_all(&dir);
    dir
}

/// The user's edits: a spec field and a requeue in the controller's `apply`.
fn edit_types_and_controller(dir: &Path) {
    replace_in(
        &dir.join(TYPES),
        "    pub foo: Option<String>,\n",
        USER_FIELD,
    );
    replace_in(
        &dir.join(CONTROLLER),
        "    // in `cleanup`.\n    Ok(Action::await_change())",
        USER_REQUEUE,
    );
}

/// The user's edits, with the CRD they change, committed.
fn user_edits(dir: &Path) {
    edit_types_and_controller(dir);
    rkb_ok(dir, &["manifests"]);
    git(dir, &["commit", "-qam", "replicas"]);
}

fn current_version(dir: &Path) -> String {
    let out = rkb_ok(dir, &["version"]);
    out.lines()
        .next()
        .unwrap()
        .strip_prefix("rkb ")
        .unwrap()
        .to_string()
}

#[test]
fn update_brings_the_new_template_and_keeps_the_users_code() {
    let tmp = tempfile::tempdir().unwrap();
    let old = old_rkb(tmp.path());
    let dir = old_project(tmp.path(), &old);
    user_edits(&dir);
    let version = current_version(&dir);

    let out = update(&dir, &old);
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{stdout}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let branch = format!("rkb-update-from-0.0.9-to-{version}");
    assert!(
        stdout.starts_with(&format!(
            "rkb alpha update: merged rkb {version}'s scaffold into the project on branch {branch} (no conflicts).\n"
        )),
        "{stdout}"
    );
    assert_eq!(
        git(&dir, &["rev-parse", "--abbrev-ref", "HEAD"]).trim(),
        branch
    );
    assert_eq!(
        git(&dir, &["status", "--porcelain"]),
        "",
        "the merge is committed"
    );
    assert_eq!(
        git(&dir, &["rev-parse", "HEAD^"]),
        git(&dir, &["rev-parse", "main"]),
        "one commit on the user's branch"
    );

    // (1) the template change reached the project; (2) the user's code is still there.
    let controller = std::fs::read_to_string(dir.join(CONTROLLER)).unwrap();
    assert!(controller.contains(NEW_TEMPLATE_LINE), "{controller}");
    assert!(controller.contains(USER_REQUEUE), "{controller}");
    let types = std::fs::read_to_string(dir.join(TYPES)).unwrap();
    assert!(types.contains(USER_FIELD), "{types}");
    let crd = std::fs::read_to_string(
        dir.join("config/crd/bases/devops.my.domain_demomicroservices.yaml"),
    )
    .unwrap();
    assert!(crd.contains("replicas:"), "{crd}");
    let project = std::fs::read_to_string(dir.join("PROJECT")).unwrap();
    assert!(
        project.contains(&format!("\ncliVersion: {version}\n")),
        "{project}"
    );
    // main is untouched.
    let main_controller = git(&dir, &["show", &format!("main:{CONTROLLER}")]);
    assert!(!main_controller.contains(NEW_TEMPLATE_LINE));
}

/// (3) The user wrote a comment where the new template writes one (above `Controller::for_kind`, with a watch of
/// owned ConfigMaps): git cannot merge both, so the conflict is
/// left in the file, listed, and the command exits 1 on the output branch with the merge in progress.
#[test]
fn update_leaves_a_conflicting_edit_as_a_git_conflict_and_lists_it() {
    let tmp = tempfile::tempdir().unwrap();
    let old = old_rkb(tmp.path());
    let dir = old_project(tmp.path(), &old);
    user_edits(&dir);
    replace_in(
        &dir.join(CONTROLLER),
        "    Controller::for_kind::<DemoMicroService>(&ctx)\n",
        "    // The ConfigMaps it writes wake it up too.\n    Controller::for_kind::<DemoMicroService>(&ctx)\n        .owns::<ConfigMap>()\n",
    );
    git(&dir, &["commit", "-qam", "chained"]);
    let version = current_version(&dir);

    let out = update(&dir, &old);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    let branch = format!("rkb-update-from-0.0.9-to-{version}");
    assert_eq!(
        stderr,
        format!(
            "rkb alpha update: merged rkb {version}'s scaffold into the project on branch {branch}, with conflicts in 1 file:\n  \
             {CONTROLLER}\n\
             Resolve them (the merge is in progress: `git status`), run `rkb manifests`, then `git commit`; \
             `git merge --abort` and `git checkout -` give the project back as it was.\n"
        )
    );
    assert_eq!(
        git(&dir, &["diff", "--name-only", "--diff-filter=U"]),
        format!("{CONTROLLER}\n")
    );
    let controller = std::fs::read_to_string(dir.join(CONTROLLER)).unwrap();
    assert!(
        controller.contains("<<<<<<<") && controller.contains(">>>>>>>"),
        "{controller}"
    );
    assert!(
        controller.contains(USER_REQUEUE),
        "the rest merged: {controller}"
    );
    let types = std::fs::read_to_string(dir.join(TYPES)).unwrap();
    assert!(types.contains(USER_FIELD), "{types}");
}

/// (4) Uncommitted changes: refused before anything is written, the tree and .git byte-identical.
#[test]
fn update_refuses_a_dirty_tree_and_changes_nothing() {
    let tmp = tempfile::tempdir().unwrap();
    let old = old_rkb(tmp.path());
    let dir = old_project(tmp.path(), &old);
    replace_in(
        &dir.join(TYPES),
        "    pub foo: Option<String>,\n",
        USER_FIELD,
    );
    let old_arg = old.display().to_string();
    refused(
        &dir,
        &["alpha", "update", "--from-rkb", &old_arg],
        &[&format!(
            "error: . has changes git does not hold ({TYPES}): commit or stash them first, rkb alpha update needs a clean tree"
        )],
    );
}

/// A project with APIs, webhooks of every type, a named controller, a core kind's controller and a core kind's
/// webhook at a custom path, and user code in types, controller, webhook and tests, plus a module and a dependency
/// of the user's own.
fn project_with_user_code(dir: &Path) {
    scaffold_incremental_webhooks(dir);
    let named = [
        "--resource=false",
        "--controller-name",
        "demomicroservice-backup",
    ];
    rkb_ok(dir, &[&CREATE_DEMO_API[..], &named].concat());
    rkb_ok(
        dir,
        &[
            "create",
            "api",
            "--group",
            "apps",
            "--version",
            "v1",
            "--kind",
            "Deployment",
            "--resource=false",
        ],
    );
    let pod = ["--group", "core", "--version", "v1", "--kind", "Pod"];
    let custom_path = ["--defaulting", "--defaulting-path", "/mutate-pods"];
    rkb_ok(
        dir,
        &[&["create", "webhook"][..], &pod, &custom_path].concat(),
    );
    edit_types_and_controller(dir);
    replace_in(
        &dir.join("Cargo.toml"),
        "anyhow = \"1\"\n",
        "anyhow = \"1\"\nwalkdir = \"2\"\n",
    );
    std::fs::write(
        dir.join("src/naming.rs"),
        "//! The user's own module.\n\npub const PREFIX: &str = \"demo\";\n",
    )
    .unwrap();
    rkb_ok(dir, &["manifests"]);
}

/// Regenerated in place, the project is the same tree: the scaffold's files come out as they were, the user's are
/// carried over, and `cargo check` builds it.
#[test]
fn generate_in_place_gives_the_same_tree_with_the_users_files_and_it_builds() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = project_dir(tmp.path(), "alpha-generate");
    project_with_user_code(&dir);
    git_commit_all(&dir);
    let before = snapshot(&dir);

    let out = rkb_ok(&dir, &["alpha", "generate"]);
    assert_eq!(
        out,
        format!(
            "Regenerated alpha-generate from PROJECT with rkb {} in .\n",
            current_version(&dir)
        )
    );
    assert!(
        snapshot(&dir) == before,
        "{:?}",
        git(&dir, &["status", "--porcelain"])
    );
    seed_lock(&dir);
    cargo(&dir, &["check", "--all-targets"]);
}

/// With --output-dir the project stays as it is and the new directory holds the same tree (without .git).
#[test]
fn generate_into_an_output_dir_leaves_the_input_alone() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = demo_dir(tmp.path());
    project_with_user_code(&dir);
    let before = snapshot(&dir);
    rkb_ok(&dir, &["alpha", "generate", "--output-dir", "../fresh"]);
    assert!(snapshot(&dir) == before);
    assert!(snapshot(&tmp.path().join("fresh")) == before);
}

/// In place outside git, in a dirty tree, or into a non-empty directory: refused, nothing written.
#[test]
fn generate_refuses_what_it_cannot_undo() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = demo_dir(tmp.path());
    rkb_ok(&dir, &["init", "--domain", "my.domain"]);
    rkb_ok(&dir, &CREATE_DEMO_API);
    refused(
        &dir,
        &["alpha", "generate"],
        &["error: . is not in a git repository: rkb alpha generate rewrites the project in place"],
    );
    git_commit_all(&dir);
    replace_in(
        &dir.join(TYPES),
        "    pub foo: Option<String>,\n",
        USER_FIELD,
    );
    refused(
        &dir,
        &["alpha", "generate"],
        &[&format!(
            "error: . has changes git does not hold ({TYPES}): commit or stash them first"
        )],
    );
    refused(
        &dir,
        &["alpha", "generate", "--output-dir", "fresh"],
        &["error: --output-dir fresh is inside the project: pass a directory outside it"],
    );
    std::fs::create_dir(tmp.path().join("taken")).unwrap();
    std::fs::write(tmp.path().join("taken/notes.md"), "mine\n").unwrap();
    refused(
        &dir,
        &["alpha", "generate", "--output-dir", "../taken"],
        &[
            "error: ../taken is not empty: rkb alpha generate writes the regenerated project into a new or empty directory",
        ],
    );
}

/// Without --from-rkb the recorded release is installed with cargo; when that fails (here: a cargo that finds no such
/// release, as crates.io answers for an unpublished version), the error says so and names the flag, and nothing
/// is written.
#[test]
fn update_says_how_to_go_on_when_the_recorded_release_cannot_be_installed() {
    let tmp = tempfile::tempdir().unwrap();
    let old = old_rkb(tmp.path());
    let dir = old_project(tmp.path(), &old);
    let bin = tmp.path().join("bin");
    std::fs::create_dir(&bin).unwrap();
    std::fs::write(
        bin.join("cargo"),
        "#!/bin/sh\necho '    Updating crates.io index' >&2\n\
         echo 'error: could not find `rkb` in registry `crates-io` with version `=0.0.9`' >&2\nexit 101\n",
    )
    .unwrap();
    run(Command::new("chmod").arg("+x").arg(bin.join("cargo")));
    let cache = tmp.path().join("cache");
    let path = format!("{}:{}", bin.display(), std::env::var("PATH").unwrap());
    let before = (snapshot(&dir), directories(&dir));
    let out = with_env(
        Command::new(rkb_bin())
            .args(["alpha", "update"])
            .current_dir(&dir),
    )
    .env("PATH", path)
    .env("XDG_CACHE_HOME", &cache)
    .output()
    .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let root = cache.join("rkb/releases/0.0.9");
    let install = format!(
        "cargo install rkb --locked --version =0.0.9 --root {}",
        root.display()
    );
    assert_eq!(
        String::from_utf8_lossy(&out.stderr),
        format!(
            "rkb alpha update: installing rkb 0.0.9 (PROJECT's cliVersion): {install}\n\
             error: cannot install rkb 0.0.9, the release PROJECT records (cliVersion), with `{install}`: could not \
             find `rkb` in registry `crates-io` with version `=0.0.9`; if that release is not on crates.io, build it \
             from rkb's git tag and pass --from-rkb <path to its rkb binary>\n"
        )
    );
    assert!((snapshot(&dir), directories(&dir)) == before);
}

/// An older release that lacks a flag PROJECT needs (here `--controller-name`, as clap refuses an unknown flag):
/// the ancestor cannot be built, the error names the command, and the tree, its .git included, is unchanged.
#[test]
fn update_changes_nothing_when_the_older_release_cannot_replay_project() {
    let tmp = tempfile::tempdir().unwrap();
    let old = old_rkb(tmp.path());
    let dir = demo_dir(tmp.path());
    let named = [
        "--resource=false",
        "--controller-name",
        "demomicroservice-backup",
    ];
    for args in [
        &["init", "--domain", "my.domain"][..],
        &CREATE_DEMO_API,
        &[&CREATE_DEMO_API[..], &named].concat(),
    ] {
        run(with_env(
            Command::new(&old).args(args).arg("--dir").arg(&dir),
        ));
    }
    git_commit_all(&dir);
    let older = tmp.path().join("older-rkb.sh");
    std::fs::write(
        &older,
        "#!/bin/sh\nfor arg in \"$@\"; do\n    if [ \"$arg\" = --controller-name ]; then\n        \
         echo \"error: unexpected argument '--controller-name' found\" >&2\n        exit 2\n    fi\ndone\n\
         exec \"$RKB_CURRENT\" \"$@\"\n",
    )
    .unwrap();
    run(Command::new("chmod").arg("+x").arg(&older));
    let before = (snapshot(&dir), directories(&dir));
    let out = update(&dir, &older);
    assert_eq!(out.status.code(), Some(1));
    assert_eq!(
        String::from_utf8_lossy(&out.stderr),
        format!(
            "error: cannot build rkb 0.0.9's scaffold (the merge's ancestor)\n  caused by: `{} create api --group \
             devops --version v1 --kind DemoMicroService --resource=false --controller-name demomicroservice-backup` \
             failed: unexpected argument '--controller-name' found\n",
            older.display()
        )
    );
    assert!((snapshot(&dir), directories(&dir)) == before);
}

/// A PROJECT entry this rkb refuses to scaffold (a hand-edited kind): in place, the failed regeneration leaves the
/// tree byte-identical.
#[test]
fn generate_in_place_changes_nothing_when_project_cannot_be_replayed() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = demo_dir(tmp.path());
    rkb_ok(&dir, &["init", "--domain", "my.domain"]);
    rkb_ok(&dir, &CREATE_DEMO_API);
    replace_in(
        &dir.join("PROJECT"),
        "kind: DemoMicroService",
        "kind: demoMicroService",
    );
    git_commit_all(&dir);
    let stderr = rkb_scaffold_tests::failed_unchanged(&dir, &["alpha", "generate"]);
    assert!(
        stderr.starts_with("error: cannot re-scaffold the project from PROJECT\n  caused by: `")
            && stderr.contains(
                " create api --group devops --version v1 --kind demoMicroService` failed: "
            ),
        "{stderr}"
    );
}

/// Outside git, below the top of a repository, on this very release, or with the output branch taken: refused
/// before anything is written.
#[test]
fn update_refuses_what_it_cannot_merge() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = demo_dir(tmp.path());
    rkb_ok(&dir, &["init", "--domain", "my.domain"]);
    let version = current_version(&dir);
    refused(
        &dir,
        &["alpha", "update"],
        &["error: . is not in a git repository: rkb alpha update merges on git branches"],
    );
    git_commit_all(&dir);
    refused(
        &dir,
        &["alpha", "update"],
        &[&format!(
            "error: PROJECT records rkb {version}, the release running: there is no newer scaffold to merge"
        )],
    );
    refused(
        &dir,
        &["alpha", "update", "--output-branch", "two words"],
        &["error: --output-branch \"two words\" is not a valid git branch name"],
    );
    git(&dir, &["branch", "taken"]);
    refused(
        &dir,
        &["alpha", "update", "--output-branch", "taken"],
        &["error: branch taken exists already: delete it, or pass --output-branch <another name>"],
    );
    let outer = tmp.path().join("outer");
    std::fs::create_dir(&outer).unwrap();
    std::fs::rename(&dir, outer.join("demo")).unwrap();
    std::fs::remove_dir_all(outer.join("demo/.git")).unwrap();
    git_commit_all(&outer);
    refused(
        &outer.join("demo"),
        &["alpha", "update"],
        &["error: . is below the top of its git repository ("],
    );
}
