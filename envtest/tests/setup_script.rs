//! hack/setup-envtest.sh (also scaffolded into every project): which directory it settles on without
//! building anything. Fake asset trees stand in for the binaries; PATH has no Go, so a case that would
//! build fails loudly instead of spending minutes.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

const BINARIES: [&str; 3] = ["etcd", "kube-apiserver", "kube-controller-manager"];

fn script() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../hack/setup-envtest.sh")
}

/// An executable placeholder for each of `names` in `dir`.
fn fake_binaries(dir: &Path, names: &[&str]) {
    use std::os::unix::fs::PermissionsExt;
    std::fs::create_dir_all(dir).unwrap();
    for name in names {
        let path = dir.join(name);
        std::fs::write(&path, "#!/bin/sh\n").unwrap();
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
    }
}

/// Runs the script with its cache under `root`, a PATH without Go, and `assets` as KUBEBUILDER_ASSETS.
fn run(root: &Path, assets: Option<&Path>) -> Output {
    let mut cmd = Command::new("bash");
    cmd.arg(script())
        .env_clear()
        .env("PATH", "/usr/bin:/bin")
        .env("HOME", root)
        .env("RKB_ENVTEST_ROOT", root.join("envtest"))
        .env("RKB_ENVTEST_WORK", root.join("work"));
    if let Some(a) = assets {
        cmd.env("KUBEBUILDER_ASSETS", a);
    }
    cmd.output().unwrap()
}

fn last_line(out: &Output) -> String {
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .last()
        .unwrap_or_default()
        .to_string()
}

/// The directory the script builds into and its stamp, read from the script so the test follows a version bump.
fn pinned_dir_and_stamp(root: &Path) -> (PathBuf, String) {
    let text = std::fs::read_to_string(script()).unwrap();
    let default_of = |var: &str| {
        let line = text
            .lines()
            .find(|l| l.starts_with(&format!("{var}=")))
            .unwrap();
        let start = line.find(":-").unwrap() + 2;
        line[start..line[start..].find('}').unwrap() + start].to_string()
    };
    let (k8s, etcd) = (default_of("K8S_VERSION"), default_of("ETCD_VERSION"));
    (
        root.join(format!("envtest/k8s/{k8s}-linux-amd64")),
        format!("k8s=v{k8s} etcd=v{etcd}"),
    )
}

/// The pinned directory as a finished build leaves it: every binary, and the stamp of the pinned versions.
fn built_control_plane(root: &Path) -> PathBuf {
    let (dest, stamp) = pinned_dir_and_stamp(root);
    fake_binaries(&dest, &BINARIES);
    std::fs::write(dest.join(".rkb-stamp"), format!("{stamp}\n")).unwrap();
    dest
}

#[test]
fn a_matching_stamp_reuses_the_cache_and_prints_it_last() {
    let root = tempfile::tempdir().unwrap();
    let dest = built_control_plane(root.path());
    let out = run(root.path(), None);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(last_line(&out), dest.to_str().unwrap());
}

#[test]
fn a_stale_stamp_rebuilds_and_without_go_says_how_to_get_it() {
    let root = tempfile::tempdir().unwrap();
    let (dest, _) = pinned_dir_and_stamp(root.path());
    fake_binaries(&dest, &BINARIES);
    std::fs::write(dest.join(".rkb-stamp"), "k8s=v1.0.0 etcd=v3.0.0\n").unwrap();
    let out = run(root.path(), None);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success());
    assert!(stderr.contains("Go is needed"), "{stderr}");
}

#[test]
fn complete_kubebuilder_assets_are_used_as_they_are() {
    let root = tempfile::tempdir().unwrap();
    let assets = root.path().join("mine");
    fake_binaries(&assets, &BINARIES);
    let out = run(root.path(), Some(&assets));
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(last_line(&out), assets.to_str().unwrap());
}

#[test]
fn kubebuilder_assets_without_a_controller_manager_fall_back_to_the_built_control_plane() {
    let root = tempfile::tempdir().unwrap();
    let assets = root.path().join("setup-envtest-download");
    fake_binaries(&assets, &["etcd", "kube-apiserver"]);
    let dest = built_control_plane(root.path());
    let out = run(root.path(), Some(&assets));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    assert!(stderr.contains("lacks one of"), "{stderr}");
    assert_eq!(last_line(&out), dest.to_str().unwrap());
}
