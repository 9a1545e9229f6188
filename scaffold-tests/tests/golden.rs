//! `rkb init` + `rkb create api` (+ `rkb create webhook`) produce exactly the golden tree (RKB_UPDATE_GOLDEN=1
//! refreshes it).

use rkb_scaffold_tests::{CREATE_DEMO_API, CREATE_DEMO_WEBHOOKS, assert_golden, kinds, rkb_ok};

#[test]
fn quickstart_matches_golden_tree() {
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
    assert_golden("quickstart", &dir);
}

#[test]
fn namespaced_manager_without_license_matches_golden_tree() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("app-operator");
    std::fs::create_dir(&dir).unwrap();
    rkb_ok(
        &dir,
        &[
            "init",
            "--domain",
            "example.com",
            "--namespaced",
            "--license",
            "none",
        ],
    );
    rkb_ok(
        &dir,
        &[
            "create",
            "api",
            "--group",
            "batch",
            "--version",
            "v1alpha1",
            "--kind",
            "AppService",
        ],
    );
    assert_golden("namespaced-manager", &dir);
}

#[test]
fn webhooks_match_golden_tree() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("demo");
    std::fs::create_dir(&dir).unwrap();
    rkb_ok(&dir, &["init", "--domain", "my.domain"]);
    rkb_ok(&dir, &CREATE_DEMO_API);
    rkb_ok(&dir, &CREATE_DEMO_WEBHOOKS);
    assert_golden("webhooks", &dir);
}

/// A second, named controller of the quickstart's kind, a controller of Kubernetes' Deployment and a defaulting
/// webhook of the core group's Pod (scaffold-tests/src/kinds.rs).
#[test]
fn core_kinds_and_named_controllers_match_golden_tree() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("kinds");
    std::fs::create_dir(&dir).unwrap();
    kinds::scaffold(&dir);
    assert_golden("kinds", &dir);
}

/// An external kind (kubebuilder's cert-manager Certificate): PROJECT records it as kubebuilder does (`external`,
/// `path`, `domain`, and the crate as `module`), the crate joins Cargo.toml, and the controller's RBAC markers
/// name the external group.
#[test]
fn an_external_kind_is_recorded_and_its_crate_added() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("certs");
    std::fs::create_dir(&dir).unwrap();
    rkb_ok(&dir, &["init", "--domain", "my.domain"]);
    let args = [
        "create",
        "api",
        "--group",
        "cert-manager",
        "--version",
        "v1",
        "--kind",
        "Certificate",
        "--controller",
        "--resource=false",
        "--external-api-path",
        "cert_manager_crds::v1",
        "--external-api-crate",
        "cert-manager-crds@0.3",
        "--external-api-domain",
        "io",
    ];
    rkb_ok(&dir, &args);
    let project = std::fs::read_to_string(dir.join("PROJECT")).unwrap();
    let entry = "resources:\n\
                 - controller: true\n  \
                 domain: io\n  \
                 external: true\n  \
                 group: cert-manager\n  \
                 kind: Certificate\n  \
                 module: cert-manager-crds@0.3\n  \
                 path: cert_manager_crds::v1\n  \
                 version: v1\n";
    assert!(project.contains(entry), "{project}");
    let manifest = std::fs::read_to_string(dir.join("Cargo.toml")).unwrap();
    assert!(
        manifest.contains("anyhow = \"1\"\ncert-manager-crds = \"0.3\"\n"),
        "{manifest}"
    );
    let controller =
        std::fs::read_to_string(dir.join("src/controller/certificate_controller.rs")).unwrap();
    for line in [
        "use cert_manager_crds::v1::Certificate;",
        "/// +kubebuilder:rbac:groups=cert-manager.io,resources=certificates,verbs=get;list;watch;create;update;patch;delete",
    ] {
        assert!(controller.contains(line), "{line} missing:\n{controller}");
    }
    // A webhook for the kind PROJECT now records needs no --external-api-* flags again.
    let webhook = [
        "create",
        "webhook",
        "--group",
        "cert-manager",
        "--version",
        "v1",
        "--kind",
        "Certificate",
        "--programmatic-validation",
    ];
    rkb_ok(&dir, &webhook);
    let hooks = std::fs::read_to_string(dir.join("src/webhook/v1/certificate_webhook.rs")).unwrap();
    assert!(
        hooks.contains("path=/validate-cert-manager-io-v1-certificate,mutating=false,failurePolicy=fail,sideEffects=None,groups=cert-manager.io,resources=certificates,"),
        "{hooks}"
    );
}

/// A further, named controller of a kind (`--resource=false --controller-name`) keeps what PROJECT says of the
/// kind's API: its plural and its cluster scope are not reset to the flags' defaults (`rkb alpha generate` replays
/// PROJECT, so a lost plural would rename the CRD).
#[test]
fn a_named_controller_keeps_what_project_says_of_the_api() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("demo");
    std::fs::create_dir(&dir).unwrap();
    rkb_ok(&dir, &["init", "--domain", "my.domain"]);
    let kind = ["--group", "devops", "--version", "v1", "--kind", "Gadget"];
    rkb_ok(
        &dir,
        &[
            &["create", "api"][..],
            &kind,
            &["--plural", "gadgetry", "--namespaced=false"],
        ]
        .concat(),
    );
    let before = std::fs::read_to_string(dir.join("PROJECT")).unwrap();
    let api = "- api:\n    crdVersion: v1\n  controller: true\n";
    assert!(
        before.contains(api) && before.contains("  plural: gadgetry\n"),
        "{before}"
    );
    rkb_ok(
        &dir,
        &[
            &["create", "api"][..],
            &kind,
            &["--resource=false", "--controller-name", "gadget-backup"],
        ]
        .concat(),
    );
    let after = std::fs::read_to_string(dir.join("PROJECT")).unwrap();
    assert!(
        after.contains("- api:\n    crdVersion: v1\n") && !after.contains("namespaced: true"),
        "{after}"
    );
    assert!(after.contains("  plural: gadgetry\n"), "{after}");
}
