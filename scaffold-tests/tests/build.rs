//! Scaffolded projects are real projects: they build, pass clippy -D warnings and rustfmt --check, run their
//! controller tests on the envtest control plane, and render with `kubectl kustomize`, generated manifests included.

use std::path::Path;
use std::process::Command;

use rkb_scaffold_tests::{rkb_ok, run, target_dir, workspace_root};

/// cargo in a scaffolded project, building into the workspace's target dir so dependencies compile once.
fn cargo(dir: &Path, args: &[&str]) -> String {
    run(Command::new(env!("CARGO"))
        .args(args)
        .current_dir(dir)
        .env("CARGO_TARGET_DIR", target_dir()))
}

/// Seeds the project with the workspace's lock file, so it resolves the versions the workspace already built.
fn seed_lock(dir: &Path) {
    std::fs::copy(workspace_root().join("Cargo.lock"), dir.join("Cargo.lock")).unwrap();
}

#[test]
fn quickstart_builds_lints_tests_and_renders() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("demo");
    std::fs::create_dir(&dir).unwrap();
    rkb_ok(&dir, &["init", "--domain", "my.domain"]);
    rkb_ok(
        &dir,
        &[
            "create",
            "api",
            "--group",
            "devops",
            "--version",
            "v1",
            "--kind",
            "DemoMicroService",
        ],
    );
    rkb_ok(&dir, &["manifests"]);
    seed_lock(&dir);

    cargo(&dir, &["build", "--all-targets"]);
    cargo(&dir, &["clippy", "--all-targets", "--", "-D", "warnings"]);
    cargo(&dir, &["fmt", "--", "--check"]);
    // The controller test starts a real kube-apiserver (KUBEBUILDER_ASSETS or the setup-envtest directory).
    let tests = cargo(&dir, &["test"]);
    assert!(
        tests.contains("test reconciles_a_demomicroservice_from_creation_to_deletion ... ok"),
        "{tests}"
    );

    let rendered = run(Command::new("kubectl")
        .args(["kustomize", "config/default"])
        .current_dir(&dir));
    assert!(
        rendered.contains("name: demomicroservices.devops.my.domain"),
        "CRD missing from render:\n{rendered}"
    );
    assert!(
        rendered.contains("name: demo-manager-role"),
        "manager role missing from render"
    );
    assert!(
        rendered.contains("- demomicroservices/finalizers"),
        "RBAC from markers missing from render"
    );
    assert!(
        rendered.contains("namespace: demo-system"),
        "namespace missing from render"
    );
    // A second run of manifests changes nothing: the committed files are what the markers say.
    rkb_ok(&dir, &["manifests", "--check"]);
}

#[test]
fn multigroup_second_kind_second_version_second_group() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("fleet");
    std::fs::create_dir(&dir).unwrap();
    rkb_ok(&dir, &["init", "--domain", "my.domain", "--multigroup"]);
    rkb_ok(
        &dir,
        &[
            "create",
            "api",
            "--group",
            "devops",
            "--version",
            "v1",
            "--kind",
            "DemoMicroService",
        ],
    );
    rkb_ok(
        &dir,
        &[
            "create",
            "api",
            "--group",
            "devops",
            "--version",
            "v1",
            "--kind",
            "Canary",
        ],
    );
    rkb_ok(
        &dir,
        &[
            "create",
            "api",
            "--group",
            "devops",
            "--version",
            "v2",
            "--kind",
            "DemoMicroService",
            "--controller=false",
        ],
    );
    rkb_ok(
        &dir,
        &[
            "create",
            "api",
            "--group",
            "ship",
            "--version",
            "v1beta1",
            "--kind",
            "Frigate",
            "--namespaced=false",
        ],
    );
    rkb_ok(&dir, &["manifests"]);

    // The older version keeps the data: it was marked as the storage version when v2 arrived.
    let v1 =
        std::fs::read_to_string(dir.join("src/api/devops/v1/demomicroservice_types.rs")).unwrap();
    assert!(v1.contains("/// +kubebuilder:storageversion"), "{v1}");
    let crd = std::fs::read_to_string(
        dir.join("config/crd/bases/devops.my.domain_demomicroservices.yaml"),
    )
    .unwrap();
    assert!(
        crd.contains("name: v1") && crd.contains("name: v2"),
        "{crd}"
    );
    let frigate =
        std::fs::read_to_string(dir.join("config/crd/bases/ship.my.domain_frigates.yaml")).unwrap();
    assert!(frigate.contains("scope: Cluster"), "{frigate}");

    seed_lock(&dir);
    cargo(&dir, &["clippy", "--all-targets", "--", "-D", "warnings"]);
    cargo(&dir, &["fmt", "--", "--check"]);
    run(Command::new("kubectl")
        .args(["kustomize", "config/default"])
        .current_dir(&dir));
}
