//! Scaffolded files agree with each other and with what `rkb manifests` writes. Fast: nothing is compiled.

use std::path::{Path, PathBuf};

use rkb_scaffold_tests::{init_multigroup_fleet, rkb_ok, snapshot, workspace_root};

fn read(path: impl AsRef<Path>) -> String {
    let path = path.as_ref();
    std::fs::read_to_string(path).unwrap_or_else(|e| panic!("cannot read {}: {e}", path.display()))
}

fn create_api(dir: &Path, group: &str, kind: &str, extra: &[&str]) {
    let args = [
        &[
            "create",
            "api",
            "--group",
            group,
            "--version",
            "v1",
            "--kind",
            kind,
        ][..],
        extra,
    ]
    .concat();
    rkb_ok(dir, &args);
}

/// The `- bases/<file>` entries of config/crd/kustomization.yaml.
fn crd_entries(dir: &Path) -> Vec<String> {
    read(dir.join("config/crd/kustomization.yaml"))
        .lines()
        .filter_map(|l| l.trim().strip_prefix("- bases/"))
        .map(str::to_string)
        .collect()
}

#[test]
fn a_custom_plural_reaches_the_crd_its_kustomization_and_rbac() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    rkb_ok(
        dir,
        &["init", "--domain", "my.domain", "--project-name", "pond"],
    );
    create_api(dir, "devops", "Frog", &["--plural", "frogz"]);
    create_api(
        dir,
        "devops",
        "Toad",
        &["--plural", "toadz", "--namespaced=false"],
    );
    // The default plural writes no marker: kubebuilder's output, and the goldens, stay as they are.
    create_api(dir, "devops", "Newt", &[]);
    rkb_ok(dir, &["manifests"]);

    let types = read(dir.join("src/api/v1/frog_types.rs"));
    assert!(
        types.contains("/// +kubebuilder:resource:path=frogz\n"),
        "{types}"
    );
    let toad = read(dir.join("src/api/v1/toad_types.rs"));
    assert!(
        toad.contains("/// +kubebuilder:resource:path=toadz,scope=Cluster\n"),
        "{toad}"
    );
    assert!(!read(dir.join("src/api/v1/newt_types.rs")).contains("resource:path"));

    let entries = crd_entries(dir);
    assert_eq!(
        entries,
        [
            "devops.my.domain_frogz.yaml",
            "devops.my.domain_toadz.yaml",
            "devops.my.domain_newts.yaml"
        ]
    );
    let mut written: Vec<String> = std::fs::read_dir(dir.join("config/crd/bases"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    written.sort();
    let mut listed = entries.clone();
    listed.sort();
    assert_eq!(
        written, listed,
        "rkb manifests and config/crd/kustomization.yaml disagree"
    );
    let frog = read(dir.join("config/crd/bases/devops.my.domain_frogz.yaml"));
    assert!(
        frog.contains("plural: frogz") && frog.contains("name: frogz.devops.my.domain"),
        "{frog}"
    );
    assert!(
        read(dir.join("config/crd/bases/devops.my.domain_toadz.yaml")).contains("scope: Cluster")
    );

    // The manager's role (from the controller's markers) and the per-kind roles name the same resources.
    let role = read(dir.join("config/rbac/role.yaml"));
    for resource in ["frogz", "frogz/status", "frogz/finalizers", "toadz"] {
        assert!(
            role.contains(&format!("- {resource}\n")),
            "{resource} missing:\n{role}"
        );
    }
    assert!(read(dir.join("config/rbac/frog_editor_role.yaml")).contains("- frogz\n"));
    for (file, bytes) in snapshot(&dir.join("config")) {
        let text = String::from_utf8(bytes).unwrap();
        assert!(
            !text.contains("frogs") && !text.contains("toads"),
            "config/{} still names the default plural",
            file.display()
        );
    }
}

#[test]
fn one_kind_in_two_groups_gets_roles_named_by_group() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    init_multigroup_fleet(dir);
    create_api(dir, "devops", "Thing", &[]);
    create_api(dir, "ship", "Thing", &[]);

    let kustomization = read(dir.join("config/rbac/kustomization.yaml"));
    for group in ["devops", "ship"] {
        for role in ["admin", "editor", "viewer"] {
            let file = format!("{group}_thing_{role}_role.yaml");
            assert!(
                kustomization.contains(&format!("- {file}\n")),
                "{file} not listed:\n{kustomization}"
            );
            let text = read(dir.join("config/rbac").join(&file));
            let name = format!("name: {group}-thing-{role}-role");
            assert!(text.contains(&name), "{file} lacks {name}:\n{text}");
            assert!(text.contains(&format!("- {group}.my.domain\n")), "{text}");
        }
    }
    // Every role in config/rbac has its own name, or kustomize refuses the tree.
    let mut roles = Vec::new();
    for (file, bytes) in snapshot(&dir.join("config/rbac")) {
        let text = String::from_utf8(bytes).unwrap();
        for doc in text.split("\n---\n") {
            let doc: serde_json::Value =
                serde_saphyr::from_str(doc).unwrap_or_else(|e| panic!("{}: {e}", file.display()));
            let kind = doc.get("kind").and_then(|k| k.as_str()).unwrap_or_default();
            if kind.ends_with("Role") {
                let name = doc["metadata"]["name"].as_str().unwrap_or_default();
                roles.push(format!("{kind}/{name}"));
            }
        }
    }
    let count = roles.len();
    roles.sort();
    roles.dedup();
    assert_eq!(roles.len(), count, "duplicate role names among {roles:?}");
    assert!(roles.contains(&"ClusterRole/ship-thing-viewer-role".to_string()));
}

#[test]
fn groups_with_dashes_and_dots_map_to_one_rust_module_name() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    init_multigroup_fleet(dir);
    create_api(dir, "dev-ops", "Thing", &[]);
    create_api(dir, "ship.fleet", "Boat", &[]);

    let api = read(dir.join("src/api/mod.rs"));
    assert!(
        api.contains("pub mod dev_ops;") && api.contains("pub mod ship_fleet;"),
        "{api}"
    );
    let controllers = read(dir.join("src/controller/mod.rs"));
    assert!(controllers.contains("pub mod dev_ops;"), "{controllers}");
    assert!(dir.join("src/api/dev_ops/v1/thing_types.rs").is_file());
    assert!(
        dir.join("src/controller/ship_fleet/boat_controller.rs")
            .is_file()
    );
    let main = read(dir.join("src/main.rs"));
    assert!(
        main.contains("controller::dev_ops::thing_controller::controller"),
        "{main}"
    );
    let test = read(dir.join("tests/dev_ops_thing_controller.rs"));
    assert!(test.contains("::api::dev_ops::v1::Thing;"), "{test}");
    let project = read(dir.join("PROJECT"));
    assert!(
        project.contains("group: dev-ops\n") && project.contains("::api::dev_ops::v1\n"),
        "{project}"
    );
    // The API group itself keeps its name.
    rkb_ok(dir, &["manifests"]);
    assert!(
        dir.join("config/crd/bases/dev-ops.my.domain_things.yaml")
            .is_file()
    );
    assert!(
        read(dir.join("config/rbac/dev-ops_thing_admin_role.yaml"))
            .contains("name: dev-ops-thing-admin-role")
    );

    // A second version of a dashed group finds the first version's types to mark the storage version.
    rkb_ok(
        dir,
        &[
            "create",
            "api",
            "--group",
            "dev-ops",
            "--version",
            "v2",
            "--kind",
            "Thing",
            "--controller=false",
        ],
    );
    assert!(
        read(dir.join("src/api/dev_ops/v1/thing_types.rs")).contains("+kubebuilder:storageversion")
    );
}

/// Every `${{` opens a GitHub Actions expression that must close with `}}` on its line before the next one
/// opens; `${{{` is a handlebars escape gone wrong. The file must be YAML with jobs.
fn check_workflow(text: &str) -> Result<(), String> {
    if text.contains("${{{") {
        return Err("`${{{` (a handlebars escape gone wrong)".to_string());
    }
    let mut rest = text;
    while let Some(open) = rest.find("${{") {
        let after = &rest[open + 3..];
        let close = after.find("}}").ok_or("`${{` without a closing `}}`")?;
        let inside = &after[..close];
        if inside.contains("${{") || inside.contains('\n') {
            return Err(format!(
                "`${{{{` without a closing `}}}}` on its line: {inside:?}"
            ));
        }
        rest = &after[close + 2..];
    }
    let yaml: serde_json::Value =
        serde_saphyr::from_str(text).map_err(|e| format!("not YAML: {e}"))?;
    if yaml.get("jobs").is_none() {
        return Err("no jobs".to_string());
    }
    Ok(())
}

fn workflows(dir: &Path) -> Vec<PathBuf> {
    let dir = dir.join(".github/workflows");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "yml"))
        .collect();
    files.sort();
    files
}

#[test]
fn workflows_are_yaml_with_balanced_expressions() {
    let tmp = tempfile::tempdir().unwrap();
    rkb_ok(
        tmp.path(),
        &["init", "--domain", "my.domain", "--project-name", "demo"],
    );
    let mut checked = 0;
    // The scaffold, and the examples' copies of it.
    let mut dirs = vec![tmp.path().to_path_buf()];
    for example in std::fs::read_dir(workspace_root().join("examples")).unwrap() {
        dirs.push(example.unwrap().path());
    }
    for dir in dirs {
        let files = workflows(&dir);
        assert!(files.len() >= 2, "{} lacks its workflows", dir.display());
        for file in files {
            if let Err(e) = check_workflow(&read(&file)) {
                panic!("{}: {e}", file.display());
            }
            checked += 1;
        }
    }
    let test = read(tmp.path().join(".github/workflows/test.yml"));
    let release = format!(
        "cargo install --locked rkb --version {}\n",
        env!("CARGO_PKG_VERSION")
    );
    assert!(
        test.contains(&release)
            && test.contains("cargo install --locked --git \"$RKB_GIT\" rkb")
            && test.contains("RKB_GIT: ${{ vars.RKB_GIT }}"),
        "rkb is installed from crates.io at the scaffolding release, or from RKB_GIT when set:\n{test}"
    );
    assert!(checked >= 2);
}

#[test]
fn the_workflow_check_catches_broken_expressions() {
    for broken in [
        "jobs:\n  a:\n    key: x-${{{ hashFiles('a') }}\n",
        "jobs:\n  a:\n    key: x-${{ hashFiles('a')\n",
        "jobs:\n  a:\n    key: x-${{ a ${{ b }}\n",
        "jobs:\n  a:\n    key: x-${{ a\n      }}\n",
        "jobs: [a\n",
        "on: push\n",
    ] {
        assert!(check_workflow(broken).is_err(), "not caught: {broken}");
    }
    assert_eq!(
        check_workflow("jobs:\n  a:\n    key: x-${{ hashFiles('a') }}-${{ b }}\n"),
        Ok(())
    );
}

/// The boolean flags of `create api` read as kubebuilder's (Go's pflag): bare means true and `=false` turns one off;
/// a separate `false` is not taken as the value (it would be in clap's default), so it is refused.
#[test]
fn boolean_flags_read_like_kubebuilders() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    rkb_ok(
        dir,
        &["init", "--domain", "my.domain", "--project-name", "pond"],
    );
    create_api(
        dir,
        "devops",
        "Frog",
        &["--resource", "--controller", "--namespaced"],
    );
    assert!(dir.join("src/controller/frog_controller.rs").exists());
    create_api(
        dir,
        "devops",
        "Toad",
        &["--controller=false", "--namespaced=false"],
    );
    assert!(!dir.join("src/controller/toad_controller.rs").exists());
    assert!(
        read(dir.join("src/api/v1/toad_types.rs")).contains("+kubebuilder:resource:scope=Cluster")
    );
    let out = rkb_scaffold_tests::rkb(
        dir,
        &[
            "create",
            "api",
            "--group",
            "devops",
            "--version",
            "v1",
            "--kind",
            "Newt",
            "--resource",
            "false",
        ],
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        !out.status.success() && stderr.contains("unexpected argument 'false'"),
        "{stderr}"
    );
}

/// Each example's committed CRDs, RBAC and webhook configurations are what `rkb manifests` writes for its sources
/// today (its tests install them, so stale ones would test something else).
#[test]
fn examples_manifests_are_current() {
    let mut checked = 0;
    for example in std::fs::read_dir(workspace_root().join("examples")).unwrap() {
        let dir = example.unwrap().path();
        let dir_arg = dir.to_string_lossy().into_owned();
        rkb_ok(&dir, &["manifests", "--check", "--dir", &dir_arg]);
        checked += 1;
    }
    assert!(checked >= 5, "examples/ lost its examples");
}

/// kubebuilder's promise, kept: `make build-installer` renders one file, dist/install.yaml, that the project commits
/// (git does not ignore it) and users `kubectl apply` from a raw URL; it holds the CRD and the manager at IMG.
#[test]
fn the_installer_is_rendered_with_the_image_and_committed() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    rkb_ok(
        dir,
        &["init", "--domain", "my.domain", "--project-name", "shipped"],
    );
    create_api(dir, "devops", "DemoMicroService", &[]);
    rkb_scaffold_tests::run(
        std::process::Command::new("make")
            .args(["build-installer", "IMG=registry.example/shipped:v0.3.1"])
            .arg(format!("RKB={}", rkb_scaffold_tests::rkb_bin().display()))
            .current_dir(dir),
    );

    let installer = read(dir.join("dist/install.yaml"));
    for expected in [
        "name: demomicroservices.devops.my.domain",
        "kind: Deployment",
        "image: registry.example/shipped:v0.3.1",
    ] {
        assert!(
            installer.contains(expected),
            "dist/install.yaml lacks {expected:?}:\n{installer}"
        );
    }
    rkb_scaffold_tests::run(
        std::process::Command::new("git")
            .arg("init")
            .arg("-q")
            .current_dir(dir),
    );
    let ignored = std::process::Command::new("git")
        .args(["check-ignore", "-q", "dist/install.yaml"])
        .current_dir(dir)
        .status()
        .expect("run git check-ignore");
    // check-ignore exits 1 when the path is not ignored, 0 when it is.
    assert_eq!(
        ignored.code(),
        Some(1),
        "the scaffold's .gitignore keeps dist/install.yaml out of git; users install from it"
    );
}

/// Right after `rkb init`, before any API exists, config/default renders: kustomize refuses an empty kustomization,
/// and config/crd has no CRD to list yet.
#[test]
fn config_default_renders_right_after_init() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    rkb_ok(
        dir,
        &["init", "--domain", "my.domain", "--project-name", "fresh"],
    );
    let rendered = rkb_scaffold_tests::kustomize_default(dir);
    assert!(
        rendered.contains("kind: Deployment")
            && rendered.contains("name: fresh-controller-manager"),
        "config/default renders the manager:\n{rendered}"
    );
}

/// `create webhook` describes the webhooks in the README at its scaffold markers (the golden trees show the text); a
/// README without them, such as one an older rkb scaffolded, is left as it is, and the command says so.
#[test]
fn a_readme_without_its_markers_is_left_alone_with_a_note() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    rkb_ok(
        dir,
        &["init", "--domain", "my.domain", "--project-name", "older"],
    );
    rkb_ok(dir, &rkb_scaffold_tests::CREATE_DEMO_API);
    let readme = "# older\n\nThe team's own README.\n";
    std::fs::write(dir.join("README.md"), readme).unwrap();
    let out = rkb_scaffold_tests::rkb(dir, &rkb_scaffold_tests::CREATE_DEMO_WEBHOOKS);
    assert!(out.status.success(), "{out:?}");
    assert_eq!(
        String::from_utf8_lossy(&out.stderr),
        "note: README.md has no `<!-- rkb:scaffold:readme-layout -->` and `<!-- rkb:scaffold:readme-deploy -->` lines, so rkb did not describe the webhooks there\n"
    );
    assert_eq!(read(dir.join("README.md")), readme);
}
