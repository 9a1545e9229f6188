//! Every command explains itself with examples, and the version and completion commands work without a project.

use rkb_scaffold_tests::{rkb, rkb_ok};

#[test]
fn every_command_has_examples_in_its_help() {
    let tmp = tempfile::tempdir().unwrap();
    for command in [
        &[][..],
        &["init"],
        &["create"],
        &["create", "api"],
        &["manifests"],
        &["version"],
        &["completion"],
    ] {
        let args: Vec<&str> = command.iter().copied().chain(["--help"]).collect();
        let help = rkb_ok(tmp.path(), &args);
        assert!(
            help.contains("Examples:") || help.contains("Typical workflow:"),
            "rkb {args:?} has no examples:\n{help}"
        );
    }
}

#[test]
fn version_and_completions() {
    let tmp = tempfile::tempdir().unwrap();
    let version = rkb_ok(tmp.path(), &["version"]);
    assert!(
        version.starts_with(&format!("rkb {}\ncommit: ", env!("CARGO_PKG_VERSION"))),
        "{version}"
    );
    let commit = version
        .lines()
        .nth(1)
        .unwrap()
        .trim_start_matches("commit: ");
    assert!(
        commit.len() == 40 && commit.chars().all(|c| c.is_ascii_hexdigit()),
        "built from a git checkout, rkb knows its commit: {version}"
    );
    assert!(version.contains("\nbuilt: 20"), "{version}");
    assert!(
        version.contains("\nplatform: linux/amd64\n")
            || !cfg!(all(target_os = "linux", target_arch = "x86_64")),
        "{version}"
    );
    // Inside a project on another release line, it warns (and still succeeds).
    std::fs::write(tmp.path().join("PROJECT"), "version: '3'\n").unwrap();
    std::fs::write(
        tmp.path().join("Cargo.toml"),
        "[dependencies]\nrkb-runtime = { version = \"99.1\", features = [\"mimalloc\"] }\n",
    )
    .unwrap();
    let out = rkb(tmp.path(), &["version"]);
    assert!(out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.starts_with("warning: this project uses rkb-runtime 99.1 (Cargo.toml)"),
        "{stderr}"
    );
    std::fs::remove_file(tmp.path().join("PROJECT")).unwrap();
    for shell in ["bash", "zsh", "fish", "powershell"] {
        let script = rkb_ok(tmp.path(), &["completion", shell]);
        assert!(
            script.contains("create") && script.contains("manifests"),
            "{shell} completion lacks subcommands"
        );
    }
    assert!(!rkb(tmp.path(), &["completion", "tcsh"]).status.success());
}
