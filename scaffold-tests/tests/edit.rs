//! `rkb edit`: `--multigroup` moves a committed single-group project's APIs, controllers, webhooks and tests under
//! their group (golden tree; the build test builds it) and `--multigroup=false` brings them back byte for byte;
//! `--namespaced` and back give the tree `init --namespaced` (or without) gives; what is not safe or not supported
//! is refused with the tree byte-identical.

use std::path::{Path, PathBuf};

use rkb_scaffold_tests::{
    CREATE_DEMO_API, assert_golden, git_commit_all, refused, replace_in, rkb_ok,
    scaffold_incremental_webhooks, snapshot,
};

fn project(tmp: &Path, init: &[&str]) -> PathBuf {
    let dir = tmp.join("demo");
    std::fs::create_dir(&dir).unwrap();
    rkb_ok(&dir, &[&["init", "--domain", "my.domain"], init].concat());
    rkb_ok(&dir, &CREATE_DEMO_API);
    rkb_ok(&dir, &["manifests"]);
    dir
}

/// The project with webhooks of every type (webhook_increments.rs), committed, then `rkb edit --multigroup`.
#[test]
fn multigroup_moves_every_module_under_the_group_and_matches_golden_tree() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("demo");
    std::fs::create_dir(&dir).unwrap();
    scaffold_incremental_webhooks(&dir);
    git_commit_all(&dir);
    let out = rkb_ok(&dir, &["edit", "--multigroup"]);
    assert_eq!(
        out,
        "moved the APIs, controllers and webhooks under their group (multigroup layout)\n"
    );
    std::fs::remove_dir_all(dir.join(".git")).unwrap();
    assert_golden("edit-multigroup", &dir);
}

/// `edit --namespaced` then `rkb manifests` is `init --namespaced`; `--namespaced=false` is the way back.
#[test]
fn namespaced_and_back_give_the_trees_init_gives() {
    let (cluster, namespaced) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let dir = project(cluster.path(), &[]);
    let original = snapshot(&dir);
    let scoped = project(namespaced.path(), &["--namespaced"]);
    rkb_ok(&dir, &["edit", "--namespaced"]);
    rkb_ok(&dir, &["manifests"]);
    assert!(snapshot(&dir) == snapshot(&scoped));
    rkb_ok(&dir, &["edit", "--namespaced=false"]);
    rkb_ok(&dir, &["manifests"]);
    assert!(snapshot(&dir) == original);
}

/// `edit --sharded` is `init --sharded` (manager, Lease rights, the controller's `.sharded()`); `--sharded=false`
/// is the way back.
#[test]
fn sharded_and_back_give_the_trees_init_gives() {
    let (plain, sharded) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let dir = project(plain.path(), &[]);
    let original = snapshot(&dir);
    let active_active = project(sharded.path(), &["--sharded"]);
    let out = rkb_ok(&dir, &["edit", "--sharded"]);
    assert_eq!(
        out,
        "made the manager sharded: 3 replicas run with --sharded, and the leader-election Role grants the shard ring's Leases\n"
    );
    assert!(snapshot(&dir) == snapshot(&active_active));
    rkb_ok(&dir, &["edit", "--sharded=false"]);
    assert!(snapshot(&dir) == original);
}

#[test]
fn what_is_not_safe_or_not_supported_is_refused() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = project(tmp.path(), &[]);
    refused(
        &dir,
        &["edit"],
        &[
            "error: nothing to edit: pass --multigroup, --namespaced, --sharded (each takes =false too) or --plugins grafana,helm (rkb edit --help lists what each changes)",
        ],
    );
    refused(
        &dir,
        &["edit", "--plugins", "helm/v1-alpha"],
        &[
            "error: --plugins helm/v1-alpha: rkb has no plugin `helm/v1-alpha`: `rkb edit` takes --plugins grafana (kubebuilder's grafana.kubebuilder.io/v1-alpha) and helm (helm.kubebuilder.io/v2-alpha); kubebuilder's helm/v1-alpha and deploy-image plugins are not ported",
        ],
    );
    refused(
        &dir,
        &["edit", "--multigroup"],
        &[
            "is not in a git work tree: rkb edit --multigroup moves files, and does so only where git holds them committed (so the move can be undone); run `git init`, commit the project, and run again",
        ],
    );
    git_commit_all(&dir);
    replace_in(
        &dir.join("src/api/v1/demomicroservice_types.rs"),
        "pub struct DemoMicroServiceSpec {",
        "pub struct DemoMicroServiceSpec {\n    pub replicas: i32,",
    );
    refused(
        &dir,
        &["edit", "--multigroup"],
        &[
            "error: rkb edit --multigroup would move files that are not committed as they are (src/api/v1/demomicroservice_types.rs); commit them (or stash the changes) and run again",
        ],
    );
    replace_in(
        &dir.join("config/manager/manager.yaml"),
        "  replicas: 1\n",
        "  replicas: 2\n",
    );
    refused(
        &dir,
        &["edit", "--sharded"],
        &[
            "error: config/manager/manager.yaml: cannot find the `app.kubernetes.io/name: demo` line rkb init wrote, so rkb cannot make the manager sharded; change `replicas: 1` below it to `replicas: 3` by hand and run again",
        ],
    );
    replace_in(
        &dir.join("config/manager/manager.yaml"),
        "        - --health-probe-bind-address=:8081\n",
        "        - --health-probe-bind-address=:9090\n",
    );
    refused(
        &dir,
        &["edit", "--namespaced"],
        &[
            "error: config/manager/manager.yaml: cannot find the `- --health-probe-bind-address=:8081` line rkb init wrote, so rkb cannot make the manager namespace-scoped; add `- --namespaced` (and what follows it in `rkb init --namespaced`) below it by hand and run again",
        ],
    );
}

/// `--multigroup=false` undoes `--multigroup`: the project comes back byte for byte.
#[test]
fn multigroup_and_back_give_the_tree_back() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("demo");
    std::fs::create_dir(&dir).unwrap();
    scaffold_incremental_webhooks(&dir);
    let original = snapshot(&dir);
    git_commit_all(&dir);
    rkb_ok(&dir, &["edit", "--multigroup"]);
    assert!(!dir.join("src/api/v1").exists(), "the move left src/api/v1");
    git_commit_all(&dir);
    let out = rkb_ok(&dir, &["edit", "--multigroup=false"]);
    assert_eq!(
        out,
        "moved the APIs, controllers and webhooks out of their group (single-group layout)\n"
    );
    std::fs::remove_dir_all(dir.join(".git")).unwrap();
    let back = snapshot(&dir);
    let differing: std::collections::BTreeSet<_> = (original.keys().chain(back.keys()))
        .filter(|path| original.get(*path) != back.get(*path))
        .collect();
    assert!(differing.is_empty(), "{differing:?}");
}

#[test]
fn multigroup_false_needs_a_single_group() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("fleet");
    std::fs::create_dir(&dir).unwrap();
    rkb_scaffold_tests::init_multigroup_fleet(&dir);
    rkb_ok(&dir, &CREATE_DEMO_API);
    let mut ops = CREATE_DEMO_API.to_vec();
    ops[3] = "ops";
    rkb_ok(&dir, &ops);
    refused(
        &dir,
        &["edit", "--multigroup=false"],
        &[
            "error: --multigroup=false: this project has APIs in 2 groups (devops, ops), and the single-group layout holds one",
        ],
    );
}
