//! `rkb init` + `rkb create api` (+ `rkb create webhook`) produce exactly the golden tree (RKB_UPDATE_GOLDEN=1
//! refreshes it).

use rkb_scaffold_tests::{CREATE_DEMO_API, CREATE_DEMO_WEBHOOKS, assert_golden, rkb_ok};

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
