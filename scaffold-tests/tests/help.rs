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
    assert!(
        rkb_ok(tmp.path(), &["version"]).starts_with(&format!("rkb {}", env!("CARGO_PKG_VERSION")))
    );
    for shell in ["bash", "zsh", "fish"] {
        let script = rkb_ok(tmp.path(), &["completion", shell]);
        assert!(
            script.contains("create") && script.contains("manifests"),
            "{shell} completion lacks subcommands"
        );
    }
    assert!(!rkb(tmp.path(), &["completion", "tcsh"]).status.success());
}
