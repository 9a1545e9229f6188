//! Every refused command exits non-zero with a one-line error naming the problem and the fix, and changes nothing.

use std::path::Path;

use rkb_scaffold_tests::{CREATE_DEMO_API, init_multigroup_fleet, rkb, rkb_ok, snapshot};

/// Runs rkb expecting failure; asserts the message and that the tree is byte-for-byte unchanged.
fn refused(dir: &Path, args: &[&str], expected: &[&str]) {
    let before = snapshot(dir);
    let out = rkb(dir, args);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        !out.status.success(),
        "rkb {args:?} succeeded but should fail"
    );
    assert_eq!(out.status.code(), Some(1), "rkb {args:?}: {stderr}");
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
    assert!(
        snapshot(dir) == before,
        "rkb {args:?} changed files although it failed"
    );
}

fn project() -> tempfile::TempDir {
    let tmp = tempfile::tempdir().unwrap();
    rkb_ok(
        tmp.path(),
        &["init", "--domain", "my.domain", "--project-name", "demo"],
    );
    rkb_ok(tmp.path(), &CREATE_DEMO_API);
    tmp
}

/// `rkb manifests` writes every file or none. Each failure below comes with a change that would rewrite the CRD, so
/// a writer that wrote files one by one would leave it half-written.
#[test]
fn a_failing_manifests_run_writes_nothing() {
    let p = project();
    rkb_ok(p.path(), &["manifests"]);
    let types = p.path().join("src/api/v1/demomicroservice_types.rs");
    let original = std::fs::read_to_string(&types).unwrap();
    let with_field = original.replace(
        "    pub foo: Option<String>,\n",
        "    pub foo: Option<String>,\n    /// replicas is new.\n    pub replicas: i32,\n",
    );
    assert_ne!(with_field, original);

    // A marker error in the same run as the new field.
    let broken = with_field.replace(
        "    /// replicas is new.\n",
        "    /// replicas is new.\n    /// +kubebuilder:validation:Maximum=many\n",
    );
    std::fs::write(&types, &broken).unwrap();
    let before = snapshot(p.path());
    let out = rkb(p.path(), &["manifests"]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(stderr.contains("Maximum"), "{stderr}");
    assert!(
        snapshot(p.path()) == before,
        "a run with an error wrote files"
    );

    // A write that fails after the CRD was staged: role.yaml changes too (a new rbac marker), and its temporary
    // file cannot be created (a directory holds the name). A writer that wrote files one by one would have
    // written the CRD already.
    std::fs::write(&types, &with_field).unwrap();
    let controller = p
        .path()
        .join("src/controller/demomicroservice_controller.rs");
    let code = std::fs::read_to_string(&controller).unwrap();
    let with_rule = code.replacen(
        "/// +kubebuilder:rbac:",
        "/// +kubebuilder:rbac:groups=apps,resources=deployments,verbs=get\n/// +kubebuilder:rbac:",
        1,
    );
    assert_ne!(with_rule, code);
    std::fs::write(&controller, &with_rule).unwrap();
    let obstacle = p.path().join("config/rbac/.role.yaml.rkb-tmp");
    std::fs::create_dir(&obstacle).unwrap();
    let before = snapshot(p.path());
    let out = rkb(p.path(), &["manifests"]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(stderr.contains(".role.yaml.rkb-tmp"), "{stderr}");
    assert!(
        snapshot(p.path()) == before,
        "a run that failed to write role.yaml wrote the CRD"
    );

    // With the obstacle gone the same run succeeds and writes the new field.
    std::fs::remove_dir(&obstacle).unwrap();
    rkb_ok(p.path(), &["manifests"]);
    let crd = std::fs::read_to_string(
        p.path()
            .join("config/crd/bases/devops.my.domain_demomicroservices.yaml"),
    )
    .unwrap();
    assert!(crd.contains("replicas:"), "{crd}");
    let role = std::fs::read_to_string(p.path().join("config/rbac/role.yaml")).unwrap();
    assert!(role.contains("- deployments"), "{role}");
}

#[test]
fn init_twice_is_refused() {
    let p = project();
    refused(
        p.path(),
        &["init", "--domain", "my.domain"],
        &["already an rkb project", "rkb create api"],
    );
}

#[test]
fn init_over_a_cargo_project_is_refused() {
    let tmp = tempfile::tempdir().unwrap();
    std::fs::write(tmp.path().join("Cargo.toml"), "[package]\n").unwrap();
    refused(
        tmp.path(),
        &["init", "--project-name", "x"],
        &["already holds Cargo.toml"],
    );
}

#[test]
fn init_refuses_an_rkb_source_that_is_not_an_rkb_checkout() {
    let tmp = tempfile::tempdir().unwrap();
    refused(
        tmp.path(),
        &[
            "init",
            "--project-name",
            "x",
            "--rkb-source",
            "/nonexistent",
        ],
        &["--rkb-source /nonexistent: no such directory", "rkb clone"],
    );
    let elsewhere = tempfile::tempdir().unwrap();
    let elsewhere = elsewhere.path().to_str().unwrap();
    refused(
        tmp.path(),
        &["init", "--project-name", "x", "--rkb-source", elsewhere],
        &[
            "not an rkb checkout",
            "runtime/Cargo.toml",
            "published crates",
        ],
    );
}

#[test]
fn init_keeps_a_forge_readme_but_refuses_other_existing_files() {
    let tmp = tempfile::tempdir().unwrap();
    std::fs::write(tmp.path().join("README.md"), "# mine\n").unwrap();
    std::fs::write(tmp.path().join("Makefile"), "all:\n").unwrap();
    refused(
        tmp.path(),
        &["init", "--project-name", "x"],
        &["Makefile already exists", "empty directory"],
    );
    std::fs::remove_file(tmp.path().join("Makefile")).unwrap();
    let out = rkb_ok(tmp.path(), &["init", "--project-name", "x"]);
    assert!(out.contains("kept the existing README.md"), "{out}");
    assert_eq!(
        std::fs::read_to_string(tmp.path().join("README.md")).unwrap(),
        "# mine\n"
    );
    assert!(tmp.path().join("PROJECT").is_file());
}

#[test]
fn invalid_names_are_refused() {
    let tmp = tempfile::tempdir().unwrap();
    refused(
        tmp.path(),
        &["init", "--domain", "My_Domain", "--project-name", "x"],
        &["invalid --domain \"My_Domain\""],
    );
    refused(
        tmp.path(),
        &["init", "--project-name", "Bad_Name"],
        &["invalid project name \"Bad_Name\""],
    );
    assert!(
        snapshot(tmp.path()).is_empty(),
        "a refused init left files behind"
    );

    let p = project();
    let api = [
        "create",
        "api",
        "--group",
        "devops",
        "--version",
        "v1",
        "--kind",
    ];
    refused(
        p.path(),
        &[&api[..], &["demoThing"]].concat(),
        &["upper-case", "did you mean --kind DemoThing"],
    );
    refused(
        p.path(),
        &[
            "create",
            "api",
            "--group",
            "Dev_Ops",
            "--version",
            "v1",
            "--kind",
            "Thing",
        ],
        &["invalid --group \"Dev_Ops\"", "DNS-1123"],
    );
    refused(
        p.path(),
        &[
            "create",
            "api",
            "--group",
            "devops",
            "--version",
            "1",
            "--kind",
            "Thing",
        ],
        &["invalid --version \"1\"", "v1alpha1"],
    );
    refused(
        p.path(),
        &[
            "create",
            "api",
            "--group",
            "devops",
            "--version",
            "v1",
            "--kind",
            "Thing",
            "--plural",
            "Things",
        ],
        &["invalid --plural"],
    );
}

#[test]
fn existing_kind_needs_force() {
    let p = project();
    refused(
        p.path(),
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
        &["already exists", "--force"],
    );
    // With --force the files are scaffolded again (the user's edit is overwritten) and nothing else changes.
    let types = p.path().join("src/api/v1/demomicroservice_types.rs");
    let original = std::fs::read_to_string(&types).unwrap();
    std::fs::write(&types, "// edited\n").unwrap();
    rkb_ok(
        p.path(),
        &[
            "create",
            "api",
            "--group",
            "devops",
            "--version",
            "v1",
            "--kind",
            "DemoMicroService",
            "--force",
        ],
    );
    assert_eq!(std::fs::read_to_string(&types).unwrap(), original);
}

#[test]
fn second_group_needs_multigroup() {
    let p = project();
    refused(
        p.path(),
        &[
            "create",
            "api",
            "--group",
            "ops",
            "--version",
            "v1",
            "--kind",
            "Thing",
        ],
        &["multigroup", "rkb init --multigroup"],
    );
}

#[test]
fn create_api_outside_a_project_is_refused() {
    let tmp = tempfile::tempdir().unwrap();
    refused(
        tmp.path(),
        &[
            "create",
            "api",
            "--group",
            "devops",
            "--version",
            "v1",
            "--kind",
            "Thing",
        ],
        &["not an rkb project", "rkb init"],
    );
}

#[test]
fn a_missing_scaffold_marker_aborts_without_partial_writes() {
    let p = project();
    let main = p.path().join("src/main.rs");
    let text = std::fs::read_to_string(&main)
        .unwrap()
        .replace("// rkb:scaffold:controllers", "");
    std::fs::write(&main, text).unwrap();
    // Types, samples and roles would be written before main.rs is touched; none of them may appear.
    refused(
        p.path(),
        &[
            "create",
            "api",
            "--group",
            "devops",
            "--version",
            "v1",
            "--kind",
            "Other",
        ],
        &["src/main.rs", "rkb:scaffold:controllers"],
    );
}

fn create_api<'a>(group: &'a str, version: &'a str, kind: &'a str) -> Vec<&'a str> {
    vec![
        "create",
        "api",
        "--group",
        group,
        "--version",
        version,
        "--kind",
        kind,
    ]
}

#[test]
fn kinds_that_would_not_compile_are_refused() {
    let p = project();
    refused(
        p.path(),
        &create_api("devops", "v1", "Self"),
        &["invalid --kind \"Self\"", "Rust keyword", "--kind MySelf"],
    );
    // Names the scaffolded types, controller and test import or take from the prelude.
    for kind in [
        "Condition",
        "ObjectMeta",
        "Serialize",
        "Deserialize",
        "Event",
        "Vec",
    ] {
        refused(
            p.path(),
            &create_api("devops", "v1", kind),
            &[
                &format!("invalid --kind \"{kind}\""),
                &format!("already uses the name {kind}"),
                &format!("--kind My{kind}"),
            ],
        );
    }
    // Beside DemoMicroService: its own types, and a file name that differs only in case.
    refused(
        p.path(),
        &create_api("devops", "v1", "DemoMicroServiceSpec"),
        &["kind DemoMicroService", "type named DemoMicroServiceSpec"],
    );
    refused(
        p.path(),
        &create_api("devops", "v2", "DEMOMicroService"),
        &["already has kind DemoMicroService", "letter case"],
    );
}

#[test]
fn groups_that_cannot_name_a_rust_module_are_refused_in_multigroup_projects() {
    let tmp = tempfile::tempdir().unwrap();
    init_multigroup_fleet(tmp.path());
    refused(
        tmp.path(),
        &create_api("type", "v1", "Thing"),
        &[
            "invalid --group \"type\"",
            "Rust keyword",
            "--group my-type",
        ],
    );
    refused(
        tmp.path(),
        &create_api("1st", "v1", "Thing"),
        &["invalid --group \"1st\"", "digit", "--group my-1st"],
    );
    // dev-ops and dev.ops would share the module dev_ops.
    rkb_ok(tmp.path(), &create_api("dev-ops", "v1", "Thing"));
    refused(
        tmp.path(),
        &create_api("dev.ops", "v1", "Other"),
        &[
            "invalid --group \"dev.ops\"",
            "src/api/dev_ops/",
            "\"dev-ops\"",
        ],
    );
}

#[test]
fn project_names_that_cannot_name_a_crate_are_refused() {
    let tmp = tempfile::tempdir().unwrap();
    refused(
        tmp.path(),
        &["init", "--project-name", "1password"],
        &[
            "invalid project name \"1password\"",
            "digit",
            "--project-name",
        ],
    );
    refused(
        tmp.path(),
        &["init", "--project-name", "type"],
        &["invalid project name \"type\"", "Rust keyword"],
    );
    let dir = tmp.path().join("2048");
    std::fs::create_dir(&dir).unwrap();
    refused(
        &dir,
        &["init"],
        &["directory name \"2048\"", "--project-name"],
    );
}

fn create_webhook<'a>(kind: &'a str, flags: &[&'a str]) -> Vec<&'a str> {
    let mut args = vec![
        "create",
        "webhook",
        "--group",
        "devops",
        "--version",
        "v1",
        "--kind",
        kind,
    ];
    args.extend_from_slice(flags);
    args
}

#[test]
fn create_webhook_refuses_what_it_cannot_scaffold() {
    let p = project();
    refused(
        p.path(),
        &create_webhook("Frigate", &["--defaulting"]),
        &[
            "no kind Frigate in devops/v1",
            "rkb create api --group devops --version v1 --kind Frigate",
        ],
    );
    refused(
        p.path(),
        &create_webhook("DemoMicroService", &[]),
        &[
            "nothing to scaffold",
            "--defaulting",
            "--programmatic-validation",
        ],
    );
    refused(
        p.path(),
        &create_webhook("DemoMicroService", &["--conversion"]),
        &["--conversion needs --spoke"],
    );
    refused(
        p.path(),
        &create_webhook("DemoMicroService", &["--conversion", "--spoke", "v2"]),
        &[
            "--spoke v2 is not a version of DemoMicroService",
            "rkb create api --group devops --version v2 --kind DemoMicroService --controller=false",
        ],
    );
    refused(
        p.path(),
        &create_webhook("DemoMicroService", &["--conversion", "--spoke", "v1"]),
        &["--spoke v1 is the hub itself"],
    );
    refused(
        p.path(),
        &create_webhook("DemoMicroService", &["--defaulting", "--spoke", "v2"]),
        &["--spoke names the versions of a conversion: pass --conversion too"],
    );
    rkb_ok(
        p.path(),
        &create_webhook("DemoMicroService", &["--defaulting"]),
    );
    // A second run, for the same or another webhook type, rewrites the kind's webhook file: only with --force.
    for flag in ["--defaulting", "--programmatic-validation"] {
        refused(
            p.path(),
            &create_webhook("DemoMicroService", &[flag]),
            &["already has defaulting webhooks", "--force"],
        );
    }
    let webhook = p.path().join("src/webhook/v1/demomicroservice_webhook.rs");
    std::fs::write(&webhook, "// edited\n").unwrap();
    rkb_ok(
        p.path(),
        &create_webhook(
            "DemoMicroService",
            &["--programmatic-validation", "--force"],
        ),
    );
    let text = std::fs::read_to_string(&webhook).unwrap();
    assert!(
        text.contains("impl Defaulter<DemoMicroService>")
            && text.contains("impl Validator<DemoMicroService>"),
        "--force scaffolds both types the kind now has:\n{text}"
    );
    let project_file = std::fs::read_to_string(p.path().join("PROJECT")).unwrap();
    assert!(
        project_file.contains(
            "  webhooks:\n    defaulting: true\n    validation: true\n    webhookVersion: v1\n"
        ),
        "{project_file}"
    );
}

/// A kind with a conversion serves a further version that the conversion leaves out: `rkb manifests` names the
/// version and the fix, exits non-zero and writes nothing (the CRD would send that version to a webhook that cannot
/// convert it).
#[test]
fn manifests_refuse_a_version_the_conversion_leaves_out() {
    let p = project();
    let create_version = |version| {
        let mut args = CREATE_DEMO_API.to_vec();
        let at = args.iter().position(|a| *a == "v1").unwrap();
        args[at] = version;
        args.push("--controller=false");
        rkb_ok(p.path(), &args);
    };
    create_version("v2");
    rkb_ok(
        p.path(),
        &create_webhook("DemoMicroService", &["--conversion", "--spoke", "v2"]),
    );
    rkb_ok(p.path(), &["manifests"]);
    create_version("v3");
    let before = snapshot(p.path());
    let out = rkb(p.path(), &["manifests"]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    for needle in [
        "error: DemoMicroService (devops.my.domain) serves v3, which has no conversion: PROJECT records conversion through hub v1 for spokes [v2] only",
        "= help: register `.conversion::<v1::DemoMicroService, v3::DemoMicroService>()`",
        "error: nothing written",
    ] {
        assert!(stderr.contains(needle), "expected {needle:?} in:\n{stderr}");
    }
    assert!(
        snapshot(p.path()) == before,
        "a refused manifests run changed files"
    );
}
