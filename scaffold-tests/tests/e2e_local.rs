//! The e2e suite every scaffold carries (tests/e2e), run in its local mode: no Kind cluster exists in this
//! repository's CI, so the scaffold's own test starts envtest's control plane, applies config/default, runs the
//! manager binary as its ServiceAccount, and checks that a sample is reconciled and that /metrics wants a token
//! bound to the metrics-reader role. One project with a kind and its admission webhooks, built once: the webhook
//! configurations are part of what local mode installs. A second kind without a controller (`--controller=false`)
//! has a sample that nothing reconciles: the suite applies it but does not wait for it.
//!
//! Needs KUBEBUILDER_ASSETS (or setup-envtest's directory), kubectl and curl, as the scaffold's `make
//! test-e2e-local` does.

use std::path::Path;

use rkb_scaffold_tests::{
    CREATE_DEMO_API, CREATE_DEMO_WEBHOOKS, cargo_outcome, create_args, project_dir, rkb_ok,
    seed_lock,
};

/// The scaffold's e2e test name, as cargo reports it.
const E2E_TEST: &str = "the_deployed_manager_reconciles_the_samples_and_serves_metrics";

#[test]
fn the_scaffolded_e2e_suite_passes_locally_and_fails_when_the_controller_does_not_reconcile() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = project_dir(tmp.path(), "endtoend");
    rkb_ok(&dir, &["init", "--domain", "my.domain"]);
    rkb_ok(&dir, &CREATE_DEMO_API);
    rkb_ok(&dir, &CREATE_DEMO_WEBHOOKS);
    let mut without_controller = create_args("api", "devops", "v1", "Canary");
    without_controller.push("--controller=false");
    rkb_ok(&dir, &without_controller);
    rkb_ok(&dir, &["manifests"]);
    seed_lock(&dir);

    let (passed, report) = run_e2e_locally(&dir);
    assert!(passed, "the e2e suite failed:\n{report}");
    for step in [
        &format!("test {E2E_TEST} ... ok"),
        "demomicroservice.devops.my.domain/demomicroservice-sample reconciled",
        "canary.devops.my.domain/canary-sample applied, not waited for: its kind is not in RECONCILED_KINDS",
        "STEP: reading /metrics with the ServiceAccount's token",
    ] {
        assert!(report.contains(step), "{step:?} missing from:\n{report}");
    }

    a_controller_that_adds_no_finalizer_fails_the_suite(&dir);
}

/// The suite's sample check is what a user relies on: with the controller's finalizer gone (a controller that
/// reconciles nothing observable), it fails, naming the sample it waited for.
fn a_controller_that_adds_no_finalizer_fails_the_suite(dir: &Path) {
    let controller = dir.join("src/controller/demomicroservice_controller.rs");
    let source = std::fs::read_to_string(&controller).unwrap();
    let finalizer = "pub const FINALIZER: &str = \"demomicroservice.finalizers.devops.my.domain\";";
    assert!(source.contains(finalizer), "{source}");
    let elsewhere = "pub const FINALIZER: &str = \"demomicroservice.finalizers.example.com\";";
    std::fs::write(&controller, source.replace(finalizer, elsewhere)).unwrap();

    let (passed, report) = run_e2e_locally(dir);
    assert!(
        !passed,
        "passed with the finalizer of another group:\n{report}"
    );
    for needle in [
        format!("test {E2E_TEST} ... FAILED"),
        "waiting until demomicroservice.devops.my.domain/demomicroservice-sample has its controller's finalizer"
            .to_string(),
        r#"its finalizers are "[\"demomicroservice.finalizers.example.com\"]""#.to_string(),
    ] {
        assert!(report.contains(&needle), "{needle:?} missing from:\n{report}");
    }
}

/// `cargo test --test e2e -- --ignored` with E2E_MODE=local, as the scaffold's `make test-e2e-local` runs it (the
/// Makefile would also run `rkb manifests`, done above, and setup-envtest, whose directory the environment has).
/// Returns whether it passed, and its output.
fn run_e2e_locally(dir: &Path) -> (bool, String) {
    cargo_outcome(
        dir,
        &["test", "--test", "e2e", "--", "--ignored", "--nocapture"],
        &[("E2E_MODE", "local")],
    )
}
