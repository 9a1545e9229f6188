//! Every refused command exits non-zero with a one-line error naming the problem and the fix, and changes nothing
//! (a user's file rkb cannot parse or read is reported with the tool's own located report, as rustc's errors are).
//! What rkb accepts with a warning (a kind PROJECT lists that lost its type) is here too.

use std::path::Path;

use rkb_scaffold_tests::{
    CREATE_DEMO_API, create_args, failed_unchanged, init_multigroup_fleet, refused, rkb, rkb_ok,
    snapshot,
};

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
    // written the CRD already. The error names the file the user has, not the staging file.
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
    // A directory where role.yaml goes (staging names are not obstacles: the writer takes the next free one).
    let obstacle = p.path().join("config/rbac/role.yaml");
    let _ = std::fs::remove_file(&obstacle);
    std::fs::create_dir(&obstacle).unwrap();
    let before = snapshot(p.path());
    let out = rkb(p.path(), &["manifests"]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.contains("config/rbac/role.yaml") && !stderr.contains(".rkb-tmp"),
        "{stderr}"
    );
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
    // With --force the files are scaffolded again (the user's edit is overwritten, and named) and nothing else
    // changes: the files --force rewrote with the same contents are not listed.
    let types = p.path().join("src/api/v1/demomicroservice_types.rs");
    let original = std::fs::read_to_string(&types).unwrap();
    std::fs::write(&types, "// edited\n").unwrap();
    let out = rkb(
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
    assert!(out.status.success(), "{out:?}");
    assert_eq!(
        String::from_utf8_lossy(&out.stderr),
        "warning: overwrote src/api/v1/demomicroservice_types.rs (--force)\n"
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
        &[
            "error: this project's APIs are in group \"devops\"; a second group (\"ops\") needs a multigroup project (src/api/<group>/<version>/): run `rkb edit --multigroup` first (it moves the \"devops\" APIs under src/api/devops/)",
        ],
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
    create_args("api", group, version, kind)
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
    // A type the kind has is refused, alone or beside one it lacks, --force named (it scaffolds the files again).
    for flags in [
        &["--defaulting"][..],
        &["--defaulting", "--programmatic-validation"],
    ] {
        refused(
            p.path(),
            &create_webhook("DemoMicroService", flags),
            &[
                "error: DemoMicroService devops/v1 already has what --defaulting scaffolds (PROJECT lists its defaulting webhooks): pass only what it lacks, or pass --force to scaffold its webhook file and test again (carry your code over)",
            ],
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
    let create_version =
        |version| rkb_ok(p.path(), &another_version("DemoMicroService", version, &[]));
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

/// `create api` of a further version of a kind of group devops, without a controller (the kind has one).
fn another_version<'a>(kind: &'a str, version: &'a str, flags: &[&'a str]) -> Vec<&'a str> {
    let mut args = create_api("devops", version, kind);
    args.push("--controller=false");
    args.extend_from_slice(flags);
    args
}

/// Rewrites the file at `path` with `change`, which must change it.
fn edit(path: &Path, change: impl FnOnce(&str) -> String) {
    let text = std::fs::read_to_string(path).unwrap();
    let changed = change(&text);
    assert_ne!(
        changed,
        text,
        "the edit of {} changed nothing",
        path.display()
    );
    std::fs::write(path, changed).unwrap();
}

/// The plural names the CRD (`<plural>.<group>`): a second kind of the group with the same plural would share
/// the first one's CRD, so `create api` refuses it, whichever of the two spells the plural.
#[test]
fn a_plural_another_kind_of_the_group_has_is_refused() {
    let p = project();
    rkb_ok(
        p.path(),
        &[
            &create_api("devops", "v1", "Foo")[..],
            &["--plural", "bars"],
        ]
        .concat(),
    );
    refused(
        p.path(),
        &create_api("devops", "v1", "Bar"),
        &[
            "error: kind Bar would have the plural \"bars\" (its default plural), which kind Foo of group devops.my.domain already has (PROJECT); the plural names the CRD (bars.devops.my.domain), so each kind needs its own: give Bar another with --plural <plural>",
        ],
    );
    // In another version too, and through --plural: the default plural is free, so dropping --plural is the fix.
    refused(
        p.path(),
        &[
            &create_api("devops", "v2", "Frigate")[..],
            &["--plural", "demomicroservices"],
        ]
        .concat(),
        &[
            "error: kind Frigate would have the plural \"demomicroservices\" (from --plural), which kind DemoMicroService of group devops.my.domain already has (PROJECT)",
            "drop --plural to use Frigate's default plural \"frigates\"",
        ],
    );
    rkb_ok(
        p.path(),
        &[
            &create_api("devops", "v1", "Bar")[..],
            &["--plural", "barkeeps"],
        ]
        .concat(),
    );
}

/// All versions of a kind are one CRD with one scope and one plural: a further version must keep both, and the
/// error names the versions that have them and the flag that matches.
#[test]
fn a_version_must_keep_the_scope_and_plural_of_the_kinds_other_versions() {
    let p = project();
    refused(
        p.path(),
        &another_version("DemoMicroService", "v2", &["--namespaced=false"]),
        &[
            "error: kind DemoMicroService is namespaced in v1 (PROJECT), but --namespaced=false would make v2 cluster-scoped; the versions of a kind share one CRD and its scope: pass --namespaced=true",
        ],
    );
    refused(
        p.path(),
        &another_version("DemoMicroService", "v2", &["--plural", "dms"]),
        &[
            "error: kind DemoMicroService has the plural \"demomicroservices\" in v1 (PROJECT), but v2 would get \"dms\" from --plural dms; the versions of a kind share one CRD, named demomicroservices.devops.my.domain by the plural: pass --plural demomicroservices",
        ],
    );

    // A cluster-scoped kind with its own plural: PROJECT records no `namespaced` for it (rkb writes the key only
    // when true), which is read as cluster-scoped.
    rkb_ok(
        p.path(),
        &[
            &create_api("devops", "v1", "Frigate")[..],
            &["--namespaced=false", "--plural", "fleet"],
        ]
        .concat(),
    );
    let config = std::fs::read_to_string(p.path().join("PROJECT")).unwrap();
    assert!(
        config.contains("- api:\n    crdVersion: v1\n  controller: true\n  domain: my.domain\n  group: devops\n  kind: Frigate\n"),
        "{config}"
    );
    refused(
        p.path(),
        &another_version("Frigate", "v2", &["--plural", "fleet"]),
        &[
            "error: kind Frigate is cluster-scoped in v1 (PROJECT), but --namespaced=true would make v2 namespaced",
            "pass --namespaced=false",
        ],
    );
    refused(
        p.path(),
        &another_version("Frigate", "v2", &["--namespaced=false"]),
        &[
            "error: kind Frigate has the plural \"fleet\" in v1 (PROJECT), but v2 would get \"frigates\" from the default plural",
            "pass --plural fleet",
        ],
    );
    rkb_ok(
        p.path(),
        &another_version(
            "Frigate",
            "v2",
            &["--namespaced=false", "--plural", "fleet"],
        ),
    );
}

/// A file where a scaffolding command creates a directory: the write fails, naming that path, and what was
/// staged or put in place before it is undone. (A read-only directory is the other way a write fails, but these
/// tests run as root here, and root writes there.)
#[test]
fn a_file_in_place_of_a_directory_leaves_the_tree_as_it_was() {
    let tmp = tempfile::tempdir().unwrap();
    std::fs::write(tmp.path().join("config"), "").unwrap();
    refused(
        tmp.path(),
        &["init", "--project-name", "x"],
        &["error: cannot write config: not a directory: a file is in the way"],
    );

    let p = project();
    let tests = p.path().join("tests");
    std::fs::remove_dir_all(&tests).unwrap();
    std::fs::write(&tests, "").unwrap();
    refused(
        p.path(),
        &create_api("devops", "v1", "Frigate"),
        &["error: cannot write tests: not a directory: a file is in the way"],
    );

    let p = project();
    std::fs::write(p.path().join("config/webhook"), "").unwrap();
    refused(
        p.path(),
        &create_webhook("DemoMicroService", &["--defaulting"]),
        &["error: cannot write config/webhook: not a directory: a file is in the way"],
    );
}

/// A directory where `--force` rewrites a file: the files put in place before it (tests/ sorts last) are put back,
/// the user's edit of the types included.
#[test]
fn a_directory_in_place_of_a_file_leaves_the_tree_as_it_was() {
    let p = project();
    std::fs::write(
        p.path().join("src/api/v1/demomicroservice_types.rs"),
        "// edited\n",
    )
    .unwrap();
    let test = p.path().join("tests/demomicroservice_controller.rs");
    std::fs::remove_file(&test).unwrap();
    std::fs::create_dir(&test).unwrap();
    refused(
        p.path(),
        &[&CREATE_DEMO_API[..], &["--force"]].concat(),
        &[
            "error: cannot write tests/demomicroservice_controller.rs: a directory is in the way of this file",
        ],
    );
}

/// rkb formats every Rust file it changes: one of the user's that does not parse is named as theirs (not as a
/// template bug), with rustfmt's report, and nothing is written.
#[test]
fn a_rust_file_to_add_to_that_does_not_parse_is_the_users_to_fix() {
    let p = project();
    edit(&p.path().join("src/main.rs"), |text| {
        format!("{text}\nfn broken( {{\n")
    });
    let stderr = failed_unchanged(p.path(), &create_api("devops", "v1", "Frigate"));
    assert_eq!(
        stderr.lines().next(),
        Some(
            "error: rkb adds to src/main.rs, but rustfmt cannot parse it, and rkb formats every Rust file it changes: fix the errors below and run again"
        ),
        "{stderr}"
    );
    assert!(stderr.contains("--> src/main.rs:"), "{stderr}");
}

/// A rustfmt.toml rustfmt cannot read fails every run: reported as the project's setup, not as a template bug.
#[test]
fn a_rustfmt_toml_rustfmt_refuses_is_the_projects_to_fix() {
    let p = project();
    std::fs::write(p.path().join("rustfmt.toml"), "max_width = \"wide\"\n").unwrap();
    let stderr = failed_unchanged(p.path(), &create_api("devops", "v1", "Frigate"));
    assert_eq!(
        stderr.lines().next(),
        Some(
            "error: rustfmt fails before formatting the scaffolded Rust files (the project's rustfmt.toml?): fix what it reports and run again"
        ),
        "{stderr}"
    );
    assert!(
        stderr.contains("The file `rustfmt.toml` failed to parse."),
        "{stderr}"
    );
}

/// PROJECT that serde cannot read is a located error at its line, for every command that reads it.
#[test]
fn an_unreadable_project_file_is_a_located_error() {
    let p = project();
    edit(&p.path().join("PROJECT"), |text| {
        text.replacen("    namespaced: true\n", "    namespaced: yes\n", 1)
    });
    for args in [
        create_api("devops", "v1", "Frigate"),
        create_webhook("DemoMicroService", &["--defaulting"]),
    ] {
        let stderr = failed_unchanged(p.path(), &args);
        assert_eq!(
            stderr,
            "error: PROJECT is not a valid PROJECT file: resources[0].api.namespaced: invalid boolean (true or false expected)
  --> PROJECT:13:17
   |
13 |     namespaced: yes
   |                 ^^^
   = help: PROJECT records what rkb scaffolded, and later commands read it: fix this line, or restore the file from version control
"
        );
    }
}

#[test]
fn a_file_to_add_to_that_is_not_utf8_is_named() {
    let p = project();
    let module = p.path().join("src/api/v1/mod.rs");
    let mut bytes = std::fs::read(&module).unwrap();
    bytes.extend_from_slice(b"// \xff\n");
    std::fs::write(&module, bytes).unwrap();
    refused(
        p.path(),
        &create_api("devops", "v1", "Frigate"),
        &["error: cannot read src/api/v1/mod.rs: stream did not contain valid UTF-8"],
    );
}

/// The lines `create webhook` adds after (or before) in the user's files: each one missing stops the run, naming
/// the file and the line, before anything is written.
#[test]
fn create_webhook_refuses_files_without_their_insertion_points() {
    let p = project();
    let cases = [
        (
            "src/lib.rs",
            "pub mod controller;\n",
            "error: src/lib.rs has no `pub mod controller;` line to add `pub mod webhook;` after; add `pub mod webhook;` to it yourself and run again",
        ),
        (
            "src/main.rs",
            "// rkb:scaffold:controllers",
            "error: src/main.rs has no `rkb:scaffold:controllers` line, so rkb cannot add to it; restore the line where new entries belong",
        ),
        (
            "config/default/kustomization.yaml",
            "- ../manager\n",
            "error: config/default/kustomization.yaml has no `- ../manager` resource to add the webhook resources after; add `- ../webhook` and `- ../certmanager` yourself",
        ),
        (
            "config/network-policy/kustomization.yaml",
            "resources:\n",
            "error: config/network-policy/kustomization.yaml has no `resources:` line to add `- allow-webhook-traffic.yaml` after; add `- allow-webhook-traffic.yaml` to it yourself and run again",
        ),
    ];
    for (file, line, expected) in cases {
        let path = p.path().join(file);
        let original = std::fs::read_to_string(&path).unwrap();
        edit(&path, |text| text.replacen(line, "", 1));
        refused(
            p.path(),
            &create_webhook("DemoMicroService", &["--defaulting"]),
            &[expected],
        );
        std::fs::write(&path, original).unwrap();
    }

    // A conversion adds its spoke's module to the spoke version's mod.rs.
    rkb_ok(p.path(), &another_version("DemoMicroService", "v2", &[]));
    edit(&p.path().join("src/api/v2/mod.rs"), |text| {
        text.replace("// rkb:scaffold:types", "")
    });
    refused(
        p.path(),
        &create_webhook("DemoMicroService", &["--conversion", "--spoke", "v2"]),
        &[
            "error: src/api/v2/mod.rs has no `rkb:scaffold:types` line, so rkb cannot add to it; restore the line where new entries belong",
        ],
    );
}

/// src/webhook/mod.rs declares `storage_migration()` but its scaffold marker was edited away: a second kind's
/// conversion is refused with the marker named, rather than given a second `storage_migration()` that would not
/// compile, and nothing is written.
#[test]
fn a_conversion_needs_the_storage_migration_marker() {
    let p = project();
    rkb_ok(p.path(), &another_version("DemoMicroService", "v2", &[]));
    rkb_ok(
        p.path(),
        &create_webhook("DemoMicroService", &["--conversion", "--spoke", "v2"]),
    );
    rkb_ok(p.path(), &create_api("devops", "v1", "Canary"));
    rkb_ok(p.path(), &another_version("Canary", "v2", &[]));
    edit(&p.path().join("src/webhook/mod.rs"), |text| {
        let marker = text
            .lines()
            .find(|l| l.contains("rkb:scaffold:storage-migration"))
            .expect("the marker, scaffolded with the first conversion");
        text.replace(&format!("{marker}\n"), "")
    });
    refused(
        p.path(),
        &create_webhook("Canary", &["--conversion", "--spoke", "v2"]),
        &[
            "error: src/webhook/mod.rs has no `rkb:scaffold:storage-migration` line, so rkb cannot add to it; restore the line where new entries belong",
        ],
    );
}

/// A kind needs no root marker when it has TypeMeta and ObjectMeta, so a second version marks the first as the
/// storage version among the kind's doc lines, root marker or not.
#[test]
fn a_second_version_marks_the_storage_version_without_a_root_marker() {
    let p = project();
    let types = p.path().join("src/api/v1/demomicroservice_types.rs");
    edit(&types, |text| {
        text.replace(
            "/// +kubebuilder:object:root=true\n/// +kubebuilder:subresource:status\n",
            "/// +kubebuilder:subresource:status\n",
        )
    });
    rkb_ok(p.path(), &another_version("DemoMicroService", "v2", &[]));
    let marked = std::fs::read_to_string(&types).unwrap();
    assert!(
        marked.contains(
            "/// +kubebuilder:subresource:status\n/// +kubebuilder:storageversion\n#[derive("
        ),
        "{marked}"
    );
}

/// Removes a version's types as a user retiring them would: the file, and its `mod`/`pub use` lines.
fn remove_types(project: &Path, version: &str) {
    let dir = project.join("src/api").join(version);
    std::fs::remove_file(dir.join("demomicroservice_types.rs")).unwrap();
    edit(&dir.join("mod.rs"), |text| {
        text.lines()
            .filter(|l| !l.contains("demomicroservice_types"))
            .map(|l| format!("{l}\n"))
            .collect()
    });
}

/// `rkb manifests`' stderr, after asserting that it succeeded.
fn manifests_warnings(project: &Path) -> String {
    let out = rkb(project, &["manifests"]);
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(out.status.success(), "{stderr}");
    stderr
}

/// A kind PROJECT lists that yields no CRD, or no version of its CRD, is warned about at its PROJECT line, naming
/// the file PROJECT's path points at. The run goes on (exit 0): removing a kind is also how a user retires it; the
/// upgrade gate adds that the version the files on disk serve is gone (a warning until `--check`).
#[test]
fn a_listed_kind_without_its_crd_is_warned_about_at_its_project_line() {
    let p = project();
    rkb_ok(p.path(), &another_version("DemoMicroService", "v2", &[]));
    rkb_ok(p.path(), &["manifests"]);
    remove_types(p.path(), "v2");
    assert_eq!(
        manifests_warnings(p.path()),
        "warning: kind DemoMicroService (devops.my.domain) is listed in PROJECT with version v2, but its CRD has no version v2
  --> PROJECT:25:9
   |
25 |   kind: DemoMicroService
   |         ^^^^^^^^^^^^^^^^
   = help: PROJECT's path `demo::api::v2` points at src/api/v2/demomicroservice_types.rs, which does not exist: restore the type, or remove the entry from PROJECT if the kind (or this version) is gone

warning: [served-version-removed] served version v2 of DemoMicroService is removed without being deprecated first (against config/crd/bases/devops.my.domain_demomicroservices.yaml)
  --> src/api/v1/demomicroservice_types.rs:61:12
   |
61 | pub struct DemoMicroService {
   |            ^^^^^^^^^^^^^^^^
   = help: clients that use it get 404 Not Found, without a warning beforehand. Instead: first release it deprecated (`+kubebuilder:deprecatedversion`), so clients are warned; stop serving it in a later release; or, if the break is intended, acknowledge it with `+rkb:compat:allow:rule=served-version-removed,version=v2,reason=\"...\"` on the kind

warning: 1 breaking CRD change against the files on disk, written anyway (`rkb manifests --check --against <release tag>` refuses them once released)
"
    );

    remove_types(p.path(), "v1");
    let stderr = manifests_warnings(p.path());
    assert!(
        stderr.starts_with(
            "warning: kind DemoMicroService (devops.my.domain/v1) is listed in PROJECT, but no CRD was generated for it
  --> PROJECT:17:9
   |
17 |   kind: DemoMicroService
   |         ^^^^^^^^^^^^^^^^
   = help: PROJECT's path `demo::api::v1` points at src/api/v1/demomicroservice_types.rs, which does not exist: restore the type, or remove the entry from PROJECT if the kind (or this version) is gone
"
        ),
        "{stderr}"
    );
    assert!(
        stderr.contains(
            "warning: kind DemoMicroService (devops.my.domain/v2) is listed in PROJECT, but no CRD was generated for it\n  --> PROJECT:25:9\n"
        ),
        "{stderr}"
    );
}

/// A types file that is still there but yields the kind no more (its struct renamed) is named as such.
#[test]
fn a_listed_kind_whose_file_yields_no_kind_names_the_file() {
    let p = project();
    edit(
        &p.path().join("src/api/v1/demomicroservice_types.rs"),
        |text| text.replace("DemoMicroService", "Renamed"),
    );
    let stderr = manifests_warnings(p.path());
    assert!(
        stderr.contains(
            "= help: PROJECT's path `demo::api::v1` points at src/api/v1/demomicroservice_types.rs, which yields no kind DemoMicroService (its struct is gone, not reached by `mod`, or no longer a kind): restore the type, or remove the entry from PROJECT if the kind (or this version) is gone"
        ),
        "{stderr}"
    );
}

/// The sources count as `rkb manifests` reads them: a marker changed by hand after rkb scaffolded the kind, or a
/// kind written by hand, is checked as well as PROJECT, so `create api` never scaffolds what the next
/// `rkb manifests` would refuse.
#[test]
fn create_api_checks_the_sources_as_well_as_project() {
    let p = project();
    let types = p.path().join("src/api/v1/demomicroservice_types.rs");
    let text = std::fs::read_to_string(&types).unwrap();
    let clustered = text.replace(
        "/// +kubebuilder:subresource:status\n",
        "/// +kubebuilder:subresource:status\n/// +kubebuilder:resource:scope=Cluster\n",
    );
    assert_ne!(clustered, text);
    std::fs::write(&types, &clustered).unwrap();
    refused(
        p.path(),
        &another_version("DemoMicroService", "v2", &[]),
        &[
            "error: kind DemoMicroService v1 is cluster-scoped by its markers (api::v1::DemoMicroService), but PROJECT records it namespaced: make its `+kubebuilder:resource:scope` agree with PROJECT before adding v2",
        ],
    );
    std::fs::write(&types, &text).unwrap();

    // A kind written by hand, unknown to PROJECT, holding the plural the new kind would take.
    std::fs::write(
        p.path().join("src/api/v1/gadget_types.rs"),
        "use rkb_runtime::k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;
use rkb_runtime::TypeMeta;
/// +kubebuilder:resource:path=bars
pub struct Gadget {
    #[serde(flatten)]
    pub type_meta: TypeMeta,
    #[serde(default)]
    pub metadata: ObjectMeta,
}
",
    )
    .unwrap();
    let module = p.path().join("src/api/v1/mod.rs");
    let declared = std::fs::read_to_string(&module).unwrap() + "mod gadget_types;\n";
    std::fs::write(&module, declared).unwrap();
    refused(
        p.path(),
        &create_api("devops", "v1", "Bar"),
        &[
            "error: kind Bar would have the plural \"bars\", which kind Gadget of group devops.my.domain already has (Gadget v1 says so in api::v1::Gadget)",
        ],
    );
}

/// `create api --resource=false` and `create webhook` for kinds the project does not define: a kind or version a
/// Kubernetes group lacks, a group that is neither Kubernetes' nor given `--external-api-path`, external flags that
/// do not fit, and controller names that are not DNS-1035 labels or are taken.
#[test]
fn foreign_kinds_and_controller_names_are_checked() {
    let p = project();
    let foreign =
        |group: &'static str, version: &'static str, kind: &'static str, flags: &[&'static str]| {
            let mut args = create_api(group, version, kind);
            args.push("--resource=false");
            args.extend_from_slice(flags);
            args
        };
    refused(
        p.path(),
        &foreign("apps", "v1", "Deploymnet", &[]),
        &[
            "invalid --kind \"Deploymnet\": Kubernetes group apps v1 has no kind Deploymnet",
            "ControllerRevision, DaemonSet, Deployment, ReplicaSet, StatefulSet",
            "--external-api-path",
        ],
    );
    refused(
        p.path(),
        &foreign("apps", "v1beta1", "Deployment", &[]),
        &[
            "invalid --version \"v1beta1\": Kubernetes serves kind Deployment of group apps in v1, not v1beta1",
        ],
    );
    refused(
        p.path(),
        &foreign("cert-manager", "v1", "Certificate", &[]),
        &[
            "invalid --group \"cert-manager\": no kind Certificate of group cert-manager is defined in this project",
            "is not one of Kubernetes' groups (admissionregistration, apps,",
            "pass --external-api-path <rust module path>",
        ],
    );
    refused(
        p.path(),
        &foreign("rbac", "v1", "Role", &[]),
        &["Kubernetes' group \"rbac.authorization.k8s.io\" is `--group rbac.authorization`"],
    );
    refused(
        p.path(),
        &foreign(
            "cert-manager",
            "v1",
            "Certificate",
            &["--external-api-path", "cert-manager/v1"],
        ),
        &[
            "invalid --external-api-path \"cert-manager/v1\": a Rust module path such as `cert_manager::v1`",
        ],
    );
    refused(
        p.path(),
        &foreign(
            "cert-manager",
            "v1",
            "Certificate",
            &["--external-api-path", "cert_manager::v1"],
        ),
        &[
            "Cargo.toml has no dependency cert_manager; pass --external-api-crate <crate>[@<version>] to add it",
        ],
    );
    refused(
        p.path(),
        &foreign(
            "cert-manager",
            "v1",
            "Certificate",
            &[
                "--external-api-path",
                "cert_manager::v1",
                "--external-api-crate",
                "cert-manager@",
            ],
        ),
        &["invalid --external-api-crate \"cert-manager@\""],
    );
    let mut with_api = create_api("cert-manager", "v1", "Certificate");
    with_api.extend(["--external-api-path", "cert_manager::v1"]);
    refused(
        p.path(),
        &with_api,
        &["whose API is not scaffolded here: pass --resource=false"],
    );
    refused(
        p.path(),
        &foreign(
            "devops",
            "v1",
            "DemoMicroService",
            &["--controller-name", "Backup_1"],
        ),
        &["invalid --controller-name \"Backup_1\": a controller name is a DNS-1035 label"],
    );
    refused(
        p.path(),
        &foreign(
            "devops",
            "v1",
            "DemoMicroService",
            &["--controller-name", "demomicroservice"],
        ),
        &["kind DemoMicroService devops/v1 already has a controller named \"demomicroservice\""],
    );
    refused(
        p.path(),
        &foreign("devops", "v1", "DemoMicroService", &[]),
        &[
            "already has a controller (demomicroservice); pass --controller-name <name> for another one",
        ],
    );
    rkb_ok(p.path(), &foreign("apps", "v1", "Deployment", &[]));
    refused(
        p.path(),
        &foreign("apps", "v1", "Deployment", &[]),
        &["kind Deployment apps/v1 already has a controller (deployment); pass --controller-name"],
    );
    let mut pod_webhook = create_webhook("Pod", &["--conversion", "--spoke", "v2"]);
    pod_webhook[3] = "core";
    refused(
        p.path(),
        &pod_webhook,
        &[
            "--conversion converts between versions of a CRD this project defines; Pod core/v1 is not defined here",
        ],
    );
    let mut unknown = create_webhook("Pdo", &["--defaulting"]);
    unknown[3] = "core";
    refused(
        p.path(),
        &unknown,
        &["Kubernetes group core v1 has no kind Pdo"],
    );
}
