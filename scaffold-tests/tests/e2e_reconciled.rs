//! The e2e test waits only for the samples of kinds with a controller: `rkb create api` lists a kind in
//! `RECONCILED_KINDS` (tests/e2e/main.rs) when it scaffolds the kind's controller, and not for `--controller=false`,
//! whose sample nothing in the project reconciles. Also what happens to e2e tests that lack the list: one written
//! before it existed is left as it is, with a note; one that lost the list's marker line is refused.

use std::path::Path;

use rkb_scaffold_tests::{
    CREATE_DEMO_API, cargo, create_args, project_dir, refused, rkb, rkb_ok, seed_lock,
    workspace_root,
};

const E2E: &str = "tests/e2e/main.rs";

/// The entries of `RECONCILED_KINDS` in the project's e2e test, one per line as rkb writes them.
fn reconciled_kinds(dir: &Path) -> Vec<String> {
    let source = std::fs::read_to_string(dir.join(E2E)).unwrap();
    let list = source
        .split_once("const RECONCILED_KINDS: &[GroupKind] = &[\n")
        .and_then(|(_, rest)| rest.split_once("\n];"))
        .map(|(list, _)| list)
        .unwrap_or_else(|| panic!("no RECONCILED_KINDS list in {E2E}:\n{source}"));
    let (entries, marker): (Vec<&str>, Vec<&str>) = list
        .lines()
        .map(str::trim)
        .partition(|line| !line.starts_with("// rkb:scaffold:e2e-reconciled"));
    assert_eq!(marker.len(), 1, "the list ends with its marker:\n{list}");
    entries.into_iter().map(str::to_string).collect()
}

#[test]
fn only_kinds_scaffolded_with_a_controller_are_waited_for_and_the_project_lints() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = project_dir(tmp.path(), "reconciled");
    rkb_ok(&dir, &["init", "--domain", "my.domain"]);
    assert_eq!(reconciled_kinds(&dir), Vec::<String>::new());

    rkb_ok(&dir, &CREATE_DEMO_API);
    let mut canary = create_args("api", "devops", "v1", "Canary");
    canary.push("--controller=false");
    rkb_ok(&dir, &canary);
    // A further version and a further, named controller of the listed kind list it no second time; a controller of
    // Kubernetes' Deployment has no sample here and adds no finalizer, so it is not listed.
    let mut v2 = create_args("api", "devops", "v2", "DemoMicroService");
    v2.push("--controller=false");
    rkb_ok(&dir, &v2);
    let mut backup = create_args("api", "devops", "v1", "DemoMicroService");
    backup.extend(["--resource=false", "--controller-name", "demo-backup"]);
    rkb_ok(&dir, &backup);
    let mut deployment = create_args("api", "apps", "v1", "Deployment");
    deployment.extend(["--controller", "--resource=false"]);
    rkb_ok(&dir, &deployment);
    let demo = r#"GroupKind { group: "devops.my.domain", kind: "DemoMicroService" },"#;
    assert_eq!(reconciled_kinds(&dir), [demo]);

    // The generated list and the check that reads it compile without warnings and are rustfmt-clean.
    rkb_ok(&dir, &["manifests"]);
    seed_lock(&dir);
    cargo(&dir, &["clippy", "--all-targets", "--", "-D", "warnings"]);
    cargo(&dir, &["fmt", "--", "--check"]);

    // A controller scaffolded later for the kind lists it then.
    let mut canary_controller = create_args("api", "devops", "v1", "Canary");
    canary_controller.push("--resource=false");
    rkb_ok(&dir, &canary_controller);
    let canary = r#"GroupKind { group: "devops.my.domain", kind: "Canary" },"#;
    assert_eq!(reconciled_kinds(&dir), [demo, canary]);
}

/// An e2e test scaffolded before the list existed (the quickstart's, fixtures/e2e-before-reconciled-kinds) waits
/// for every sample and has no line to add to: `create api` still scaffolds the kind, leaves that file byte for
/// byte, and says why. Without any e2e test, it says that there is none.
#[test]
fn an_e2e_test_without_the_list_is_left_as_it_is_with_a_note() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = project_dir(tmp.path(), "before-the-list");
    rkb_ok(&dir, &["init", "--domain", "my.domain"]);
    let before =
        workspace_root().join("scaffold-tests/fixtures/e2e-before-reconciled-kinds/main.rs");
    std::fs::copy(&before, dir.join(E2E)).unwrap();

    let out = rkb(&dir, &CREATE_DEMO_API);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    assert!(
        dir.join("src/controller/demomicroservice_controller.rs")
            .exists(),
        "{stderr}"
    );
    assert_eq!(
        std::fs::read(dir.join(E2E)).unwrap(),
        std::fs::read(&before).unwrap()
    );
    let note = "note: tests/e2e/main.rs predates its list of reconciled kinds (RECONCILED_KINDS), so \
                DemoMicroService was not added to one: its check waits for every sample in config/samples, also \
                those of kinds without a controller (`rkb create api --controller=false`). To get the list, copy \
                GroupKind, RECONCILED_KINDS and samples_are_reconciled from the tests/e2e/main.rs of a new `rkb \
                init`, or merge the new scaffold in with `rkb alpha update`\n";
    assert!(stderr.ends_with(note), "{stderr}");

    std::fs::remove_file(dir.join(E2E)).unwrap();
    let out = rkb(&dir, &create_args("api", "devops", "v1", "Canary"));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    let note = "note: there is no tests/e2e/main.rs, so no e2e test waits for the samples of Canary to be \
                reconciled\n";
    assert!(stderr.ends_with(note), "{stderr}");
}

/// A list that lost its marker line cannot take the kind: leaving it out would stop the check from waiting for the
/// kind's samples without a word, so `create api` refuses and writes nothing.
#[test]
fn a_list_without_its_marker_line_is_refused() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = project_dir(tmp.path(), "marker-lost");
    rkb_ok(&dir, &["init", "--domain", "my.domain"]);
    let e2e = dir.join(E2E);
    let source = std::fs::read_to_string(&e2e).unwrap();
    let without_marker: String = source
        .lines()
        .filter(|line| !line.contains("rkb:scaffold:e2e-reconciled"))
        .map(|line| format!("{line}\n"))
        .collect();
    assert_ne!(without_marker, source);
    std::fs::write(&e2e, without_marker).unwrap();

    refused(
        &dir,
        &CREATE_DEMO_API,
        &[
            "error: tests/e2e/main.rs has no `rkb:scaffold:e2e-reconciled` line, so rkb cannot add to it; restore the line where new entries belong",
        ],
    );
}
