//! `rkb init --sharded`: the scaffold of an active-active manager builds and lints clean (clippy -D warnings
//! covers rustc's warnings), its controller test passes (`.sharded()` changes nothing without the manager's flag),
//! and config/default renders 3 replicas started with `--sharded` and the Lease rights of the shard ring.
//! Without `--sharded` the scaffold is byte-identical to before: the goldens (tests/golden.rs) hold that.

use rkb_scaffold_tests::{
    CREATE_DEMO_API, cargo, kustomize_default, project_dir, rkb_ok, seed_lock,
};
use serde_json::Value;

#[test]
fn a_sharded_scaffold_builds_and_renders_replicas_flag_and_lease_rights() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = project_dir(tmp.path(), "shardy");
    rkb_ok(&dir, &["init", "--domain", "my.domain", "--sharded"]);
    rkb_ok(&dir, &CREATE_DEMO_API);
    // A named controller too: the template's other branch.
    rkb_ok(
        &dir,
        &[
            &CREATE_DEMO_API[..],
            &["--resource=false", "--controller-name", "demo-backup"],
        ]
        .concat(),
    );
    rkb_ok(&dir, &["manifests"]);
    seed_lock(&dir);

    let project = std::fs::read_to_string(dir.join("PROJECT")).unwrap();
    assert!(project.contains("\nsharded: true\n"), "{project}");
    for controller in [
        "src/controller/demomicroservice_controller.rs",
        "src/controller/demo_backup_controller.rs",
    ] {
        let source = std::fs::read_to_string(dir.join(controller))
            .unwrap_or_else(|e| panic!("{controller}: {e}"));
        assert!(
            source.contains("        .sharded()\n        .run(reconcile)\n"),
            "{controller} does not call .sharded():\n{source}"
        );
    }

    cargo(&dir, &["clippy", "--all-targets", "--", "-D", "warnings"]);
    cargo(&dir, &["fmt", "--", "--check"]);
    let tests = cargo(&dir, &["test", "--test", "demomicroservice_controller"]);
    assert!(
        tests.contains("test reconciles_a_demomicroservice_from_creation_to_deletion ... ok"),
        "{tests}"
    );

    let rendered = kustomize_default(&dir);
    let docs: Vec<Value> = serde_saphyr::from_multiple(&rendered).expect("kustomize renders YAML");
    let find = |kind: &str, name: &str| {
        docs.iter()
            .find(|d| {
                d["kind"].as_str() == Some(kind) && d["metadata"]["name"].as_str() == Some(name)
            })
            .unwrap_or_else(|| panic!("no {kind} {name} in render:\n{rendered}"))
    };

    let deployment = find("Deployment", "shardy-controller-manager");
    assert_eq!(deployment["spec"]["replicas"], 3);
    let args = &deployment["spec"]["template"]["spec"]["containers"][0]["args"];
    assert_eq!(
        args,
        &serde_json::json!([
            "--metrics-bind-address=:8443",
            "--leader-elect",
            "--sharded",
            "--health-probe-bind-address=:8081"
        ]),
        "manager args"
    );

    let role = find("Role", "shardy-leader-election-role");
    assert_eq!(role["metadata"]["namespace"], "shardy-system");
    assert_eq!(
        role["rules"],
        serde_json::json!([{
            "apiGroups": ["coordination.k8s.io"],
            "resources": ["leases"],
            "verbs": ["get", "list", "watch", "create", "update", "patch", "delete"],
        }]),
        "leader election and shard Lease rights"
    );
    // The sharder writes its labels on the sharded kind: `patch` comes from the controller's marker.
    let manager_role =
        serde_json::to_string(&find("ClusterRole", "shardy-manager-role")["rules"]).unwrap();
    assert!(
        manager_role.contains(
            r#""resources":["demomicroservices"],"verbs":["create","delete","get","list","patch","update","watch"]"#
        ),
        "{manager_role}"
    );
    rkb_ok(&dir, &["manifests", "--check"]);
}
