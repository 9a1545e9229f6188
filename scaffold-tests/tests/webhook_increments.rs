//! `rkb create webhook` on a kind that has webhooks adds the types it lacks to the existing files at their scaffold
//! lines and keeps the user's code; a missing scaffold line refuses the run with the tree unchanged; `--force`
//! scaffolds the files again and names what it overwrote. And the custom webhook paths (`--defaulting-path`,
//! `--validation-path`).

use std::path::Path;

use rkb_scaffold_tests::{
    CREATE_DEMO_API, CREATE_DEMO_V2, USER_ASSERTION, USER_DEFAULTER, assert_golden,
    create_demo_webhook, refused, replace_in, rkb, rkb_ok, scaffold_incremental_webhooks, snapshot,
};

const WEBHOOK: &str = "src/webhook/v1/demomicroservice_webhook.rs";
const TEST: &str = "tests/v1_demomicroservice_webhook.rs";

fn project(tmp: &Path) -> std::path::PathBuf {
    let dir = tmp.join("demo");
    std::fs::create_dir(&dir).unwrap();
    rkb_ok(&dir, &["init", "--domain", "my.domain"]);
    rkb_ok(&dir, &CREATE_DEMO_API);
    dir
}

fn read(dir: &Path, rel: &str) -> String {
    std::fs::read_to_string(dir.join(rel)).unwrap()
}

/// Defaulting, user code, validation, conversion: the golden tree holds the user's defaulter and assertion with
/// every type added around them.
#[test]
fn webhook_types_added_one_by_one_keep_user_code_and_match_golden_tree() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("demo");
    std::fs::create_dir(&dir).unwrap();
    scaffold_incremental_webhooks(&dir);
    let webhook = read(&dir, WEBHOOK);
    assert!(webhook.contains(USER_DEFAULTER), "{webhook}");
    assert!(read(&dir, TEST).contains(USER_ASSERTION));
    assert_golden("webhooks-incremental", &dir);
}

/// Adding validation to a kind with defaulting gives the tree one run with both gives: the pieces are the same,
/// and rustfmt lays them out alike.
#[test]
fn adding_validation_later_gives_the_tree_both_at_once_gives() {
    let (one_by_one, at_once) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let dir = project(one_by_one.path());
    rkb_ok(&dir, &create_demo_webhook(&["--defaulting"]));
    rkb_ok(&dir, &create_demo_webhook(&["--programmatic-validation"]));
    let both = project(at_once.path());
    rkb_ok(
        &both,
        &create_demo_webhook(&["--defaulting", "--programmatic-validation"]),
    );
    assert!(snapshot(&dir) == snapshot(&both));
}

/// Each scaffold line a new webhook type needs, edited away: the run is refused, naming the file, the line and
/// where it goes, and nothing is written.
#[test]
fn a_missing_webhook_scaffold_line_is_named_and_nothing_is_written() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = project(tmp.path());
    rkb_ok(&dir, &create_demo_webhook(&["--defaulting"]));
    rkb_ok(&dir, &CREATE_DEMO_V2);
    let cases = [
        (
            WEBHOOK,
            &["rkb:scaffold:webhook-imports"][..],
            &["--programmatic-validation"][..],
            "error: src/webhook/v1/demomicroservice_webhook.rs lacks the scaffold line rkb adds the new webhook at, so nothing was written: put `// rkb:scaffold:webhook-imports` below the file's `use rkb_runtime::webhook::...` lines and run again",
        ),
        (
            WEBHOOK,
            &["rkb:scaffold:webhook-builders"][..],
            &["--conversion", "--spoke", "v2"][..],
            "error: src/webhook/v1/demomicroservice_webhook.rs lacks the scaffold line rkb adds the new webhook at, so nothing was written: put `// rkb:scaffold:webhook-builders` as the last line of the `Webhooks::new()` chain in `webhooks()` and run again",
        ),
        (
            WEBHOOK,
            &["rkb:scaffold:webhook-impls"][..],
            &["--programmatic-validation"][..],
            "error: src/webhook/v1/demomicroservice_webhook.rs lacks the scaffold line rkb adds the new webhook at, so nothing was written: put `// rkb:scaffold:webhook-impls` at the end of the file and run again",
        ),
        (
            TEST,
            &[
                "rkb:scaffold:webhook-test-conversion",
                "rkb:scaffold:webhook-test-reads",
            ][..],
            &["--conversion", "--spoke", "v2"][..],
            "error: tests/v1_demomicroservice_webhook.rs lacks the scaffold line rkb adds the new webhook at, so nothing was written: put `// rkb:scaffold:webhook-test-conversion` right below the test's `let server = env.install_webhooks(..)` line, and `// rkb:scaffold:webhook-test-reads` right above the test's `running.stop().await?;` line and run again",
        ),
    ];
    for (file, markers, flags, expected) in cases {
        let path = dir.join(file);
        let original = std::fs::read_to_string(&path).unwrap();
        let edited: String = original
            .lines()
            .filter(|l| !markers.iter().any(|marker| l.contains(marker)))
            .map(|l| format!("{l}\n"))
            .collect();
        std::fs::write(&path, edited).unwrap();
        refused(&dir, &create_demo_webhook(flags), &[expected]);
        std::fs::write(&path, original).unwrap();
    }
}

/// A test scaffolded for a conversion only installs no admission webhooks; adding defaulting replaces that line,
/// and only when it reads as rkb wrote it.
#[test]
fn the_test_install_line_is_replaced_only_as_rkb_wrote_it() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = project(tmp.path());
    rkb_ok(&dir, &CREATE_DEMO_V2);
    rkb_ok(
        &dir,
        &create_demo_webhook(&["--conversion", "--spoke", "v2"]),
    );
    replace_in(
        &dir.join(TEST),
        "let server = env.install_webhooks(\"\").await?;",
        "let server = env.install_webhooks(\"# mine\").await?;",
    );
    refused(
        &dir,
        &create_demo_webhook(&["--defaulting"]),
        &[
            "error: tests/v1_demomicroservice_webhook.rs: the line below `// rkb:scaffold:webhook-test-manifests` is not `let server = env.install_webhooks(\"\").await?;`, the line rkb replaces with the install of config/webhook/manifests.yaml; put it back (or install the manifests there yourself and delete the marker line) and run again",
        ],
    );
    replace_in(
        &dir.join(TEST),
        "let server = env.install_webhooks(\"# mine\").await?;",
        "let server = env.install_webhooks(\"\").await?;",
    );
    rkb_ok(&dir, &create_demo_webhook(&["--defaulting"]));
    let test = read(&dir, TEST);
    assert!(
        test.contains("let server = env.install_webhooks(&manifests).await?;")
            && !test.contains("rkb:scaffold:webhook-test-manifests"),
        "{test}"
    );
    // A spoke the conversion has is refused, not skipped.
    refused(
        &dir,
        &create_demo_webhook(&["--conversion", "--spoke", "v2"]),
        &[
            "error: DemoMicroService devops/v1 already has what --conversion --spoke v2 scaffolds (PROJECT lists its defaulting and conversion webhooks): pass only what it lacks, or pass --force to scaffold its webhook file and test again (carry your code over)",
        ],
    );
}

/// `--force` scaffolds the kind's files again and names each one whose contents it replaced.
#[test]
fn force_rescaffolds_and_lists_what_it_overwrote() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = project(tmp.path());
    rkb_ok(&dir, &create_demo_webhook(&["--defaulting"]));
    replace_in(
        &dir.join(WEBHOOK),
        "let _ = demomicroservice;\n        Ok(())",
        &format!("{USER_DEFAULTER}\n        Ok(())"),
    );
    let out = rkb(&dir, &create_demo_webhook(&["--defaulting", "--force"]));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    assert!(
        stderr.contains(&format!("warning: overwrote {WEBHOOK} (--force)\n"))
            && !stderr.contains(&format!("overwrote {TEST}")),
        "only the edited file is listed:\n{stderr}"
    );
    assert!(!read(&dir, WEBHOOK).contains(USER_DEFAULTER));
}

/// `--defaulting-path` and `--validation-path` name the paths in the markers (hence in manifests.yaml), where
/// webhooks() serves them, and in PROJECT, as kubebuilder records them.
#[test]
fn custom_webhook_paths_reach_the_markers_the_registration_and_project() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = project(tmp.path());
    rkb_ok(
        &dir,
        &create_demo_webhook(&["--defaulting", "--defaulting-path", "/my-mutate"]),
    );
    rkb_ok(
        &dir,
        &create_demo_webhook(&[
            "--programmatic-validation",
            "--validation-path=/my-validate",
        ]),
    );
    let webhook = read(&dir, WEBHOOK);
    for needle in [
        "// +kubebuilder:webhook:path=/my-mutate,mutating=true,",
        "// +kubebuilder:webhook:path=/my-validate,mutating=false,",
        ".defaulter_at::<DemoMicroService, _>(\"/my-mutate\", DemoMicroServiceCustomDefaulter)",
        ".validator_at::<DemoMicroService, _>(\"/my-validate\", DemoMicroServiceCustomValidator)",
    ] {
        assert!(webhook.contains(needle), "{needle:?} in:\n{webhook}");
    }
    let project_file = read(&dir, "PROJECT");
    assert!(
        project_file.contains(
            "  webhooks:\n    defaulting: true\n    defaultingPath: /my-mutate\n    validation: true\n    validationPath: /my-validate\n    webhookVersion: v1\n"
        ),
        "{project_file}"
    );
    // A path for a type the kind has: refused (its marker and registration are the user's code now).
    refused(
        &dir,
        &create_demo_webhook(&["--defaulting", "--defaulting-path", "/other"]),
        &[
            "error: DemoMicroService devops/v1 already has its defaulting webhook: --defaulting-path applies to a new one; change the path in its `+kubebuilder:webhook` marker and in webhooks() yourself, or pass --force to scaffold its webhook file and test again (carry your code over)",
        ],
    );
}

#[test]
fn bad_webhook_paths_are_refused() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = project(tmp.path());
    for (flags, expected) in [
        (
            &["--defaulting", "--defaulting-path", "my-mutate"][..],
            "error: --defaulting-path \"my-mutate\" must start with `/`: it is the URL path the API server calls, e.g. /my-defaulting-path",
        ),
        (
            &["--programmatic-validation", "--validation-path", "/a,b"][..],
            "error: --validation-path \"/a,b\" has ',': a webhook path is made of letters, digits and `/-._~`",
        ),
        (
            &["--programmatic-validation", "--defaulting-path", "/m"][..],
            "error: --defaulting-path names where the defaulting webhook is served: pass --defaulting too",
        ),
        (
            &["--defaulting", "--defaulting-path", "/convert"][..],
            "error: --defaulting-path /convert is where the conversion webhook is served; choose another path",
        ),
    ] {
        refused(&dir, &create_demo_webhook(flags), &[expected]);
    }
}
