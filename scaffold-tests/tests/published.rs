//! The published form, proven before publishing: rkb's crates go through `cargo package` into a loopback registry
//! (src/registry.rs), and projects scaffolded without an rkb source take them from there, as they would from
//! crates.io. Nothing in a project is edited: the registry is configured in a parent directory's .cargo/.
//!
//! - A fresh project builds and passes its controller test on envtest.
//! - Its Docker build context stands alone: a clean directory gets exactly what the Dockerfile COPYs, and the
//!   Dockerfile's own RUN steps (cargo fetch --locked, cargo build --release --locked) run there. No Docker
//!   daemon is needed; the toolchain step (rustup target add for musl, apt-get) is the image's and is skipped,
//!   so the build is for the host target.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

use rkb_scaffold_tests::registry::LocalRegistry;
use rkb_scaffold_tests::{
    CREATE_DEMO_API, cargo, rkb_published, run, seed_lock, succeeded, target_dir,
};

fn registry() -> &'static LocalRegistry {
    static REGISTRY: OnceLock<LocalRegistry> = OnceLock::new();
    REGISTRY.get_or_init(LocalRegistry::publish_workspace)
}

/// A directory whose .cargo/config.toml takes rkb's crates from the registry, and the quickstart scaffolded in
/// `<it>/demo` by an rkb that knows no source tree.
fn published_quickstart(root: &Path) -> PathBuf {
    std::fs::create_dir_all(root.join(".cargo")).unwrap();
    std::fs::write(root.join(".cargo/config.toml"), registry().cargo_config()).unwrap();
    let dir = root.join("demo");
    std::fs::create_dir(&dir).unwrap();
    let init = rkb_published(&dir, &["init", "--domain", "my.domain"]);
    let note = String::from_utf8_lossy(&init.stderr).into_owned();
    succeeded(&["init"], init);
    assert!(
        note.contains("rkb-runtime 0.1 comes from crates.io"),
        "init does not say which mode it chose: {note}"
    );
    succeeded(&CREATE_DEMO_API, rkb_published(&dir, &CREATE_DEMO_API));
    succeeded(&["manifests"], rkb_published(&dir, &["manifests"]));
    dir
}

#[test]
fn a_project_on_the_published_crates_builds_and_passes_its_tests() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = published_quickstart(tmp.path());
    let manifest = std::fs::read_to_string(dir.join("Cargo.toml")).unwrap();
    assert!(
        manifest.contains("\nrkb-runtime = { version = \"0.1\", features = [\"mimalloc\"] }\n"),
        "{manifest}"
    );
    assert!(
        manifest.contains("\nrkb-runtime = { version = \"0.1\", features = [\"envtest\"] }\n"),
        "{manifest}"
    );
    assert!(!manifest.contains("path ="), "{manifest}");
    assert!(
        !dir.join(".cargo").exists(),
        "a published-mode project has no dev-mode override"
    );

    seed_lock(&dir);
    cargo(&dir, &["build", "--all-targets"]);
    let lock = std::fs::read_to_string(dir.join("Cargo.lock")).unwrap();
    for c in &registry().crates {
        if c.name == "rkb" || c.name == "rkb-templates" {
            continue; // the CLI's crates: no operator links them
        }
        let entry = format!(
            "name = \"{}\"\nversion = \"{}\"\nsource = \"sparse+http://127.0.0.1:",
            c.name, c.version
        );
        assert!(
            lock.contains(&entry),
            "{} was not taken from the registry:\n{lock}",
            c.name
        );
    }
    let tests = cargo(&dir, &["test"]);
    assert!(
        tests.contains("test reconciles_a_demomicroservice_from_creation_to_deletion ... ok"),
        "{tests}"
    );
}

/// The lines of the builder stage (up to the second FROM), continuation lines joined.
fn builder_stage(dockerfile: &str) -> Vec<String> {
    let joined = dockerfile.replace("\\\n", " ");
    joined
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .enumerate()
        .take_while(|(i, l)| *i == 0 || !l.starts_with("FROM "))
        .map(|(_, l)| l.to_string())
        .collect()
}

/// Copies `src` (a file, or a directory's contents) to `dest` below `context`, as Docker's COPY does.
fn docker_copy(project: &Path, context: &Path, sources: &[&str], dest: &str) {
    for source in sources {
        let from = project.join(source);
        assert!(
            from.exists(),
            "the Dockerfile COPYs {source}, which the project does not have"
        );
        let to = if dest.ends_with('/') && from.is_file() {
            context.join(dest).join(source)
        } else {
            context.join(dest)
        };
        run(Command::new("mkdir").arg("-p").arg(if from.is_dir() {
            &to
        } else {
            to.parent().unwrap()
        }));
        if from.is_dir() {
            run(Command::new("cp").arg("-rT").arg(&from).arg(&to));
        } else {
            run(Command::new("cp").arg(&from).arg(&to));
        }
    }
}

#[test]
fn the_docker_context_builds_alone() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = published_quickstart(tmp.path());
    // `make docker-build` writes the lock file first when the project has none.
    std::fs::remove_file(dir.join("Cargo.lock")).ok();
    let plan = run(Command::new("make")
        .args(["--dry-run", "docker-build"])
        .current_dir(&dir));
    let lock_at = plan.find("generate-lockfile").expect(&plan);
    assert!(lock_at < plan.find("docker build").expect(&plan), "{plan}");
    seed_lock(&dir);
    cargo(&dir, &["fetch"]); // settles the seeded lock on the registry's rkb crates

    let dockerfile = std::fs::read_to_string(dir.join("Dockerfile")).unwrap();
    let host = run(Command::new("rustc").arg("-vV"))
        .lines()
        .find_map(|l| l.strip_prefix("host: "))
        .expect("rustc names its host")
        .to_string();
    let context = tmp.path().join("context");
    std::fs::create_dir(&context).unwrap();
    // The build's target/ is the shared one, so dependencies compiled by earlier runs are reused.
    std::os::unix::fs::symlink(target_dir(), context.join("target")).unwrap();
    let mut past_workdir = false;
    for line in builder_stage(&dockerfile) {
        let (instruction, rest) = line.split_once(' ').unwrap_or((&line, ""));
        match instruction {
            "WORKDIR" => past_workdir = true,
            "COPY" => {
                let words: Vec<&str> = rest.split_whitespace().collect();
                let (dest, sources) = words.split_last().expect("COPY has a destination");
                docker_copy(&dir, &context, sources, dest);
            }
            // Before WORKDIR: the image's toolchain (musl target, musl-tools), which the host has its own of.
            "RUN" if past_workdir => {
                assert!(rest.contains("$(cat /rust-target)"), "{rest}");
                let script = rest
                    .replace("$(cat /rust-target)", &host)
                    .replace(" /manager", " ./manager");
                run(Command::new("bash")
                    .args(["-ec", &script])
                    .current_dir(&context));
            }
            _ => {}
        }
    }
    let help = run(Command::new(context.join("manager")).arg("--help"));
    assert!(help.contains("--leader-elect"), "{help}");
}
