//! The project of issue 25's first and fifth items, shared by the golden, build and envtest tests: the quickstart's
//! kind with a second, named controller (kubebuilder's captain-backup), a controller for Kubernetes' Deployment, and
//! a defaulting webhook for the core group's Pod.

use std::path::Path;

use crate::{CREATE_DEMO_API, rkb_ok};

/// The commands, in order, after `rkb init --domain my.domain`.
pub const COMMANDS: [&[&str]; 4] = [
    &CREATE_DEMO_API,
    &[
        "create",
        "api",
        "--group",
        "devops",
        "--version",
        "v1",
        "--kind",
        "DemoMicroService",
        "--resource=false",
        "--controller-name",
        "demomicroservice-backup",
    ],
    &[
        "create",
        "api",
        "--group",
        "apps",
        "--version",
        "v1",
        "--kind",
        "Deployment",
        "--controller",
        "--resource=false",
    ],
    &[
        "create",
        "webhook",
        "--group",
        "core",
        "--version",
        "v1",
        "--kind",
        "Pod",
        "--defaulting",
    ],
];

/// Scaffolds the project in `dir` (an empty directory).
pub fn scaffold(dir: &Path) {
    rkb_ok(dir, &["init", "--domain", "my.domain"]);
    for args in COMMANDS {
        rkb_ok(dir, args);
    }
}
