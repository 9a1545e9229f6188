//! Scaffolded projects are real projects: they build, pass clippy -D warnings and rustfmt --check, run their
//! controller tests on the envtest control plane, and render with `kubectl kustomize`, generated manifests included.

use std::path::Path;

use rkb_scaffold_tests::{
    CREATE_DEMO_API, CREATE_DEMO_WEBHOOKS, cargo, cargo_outcome, create_args, git_commit_all,
    kinds, kustomize_default, project_dir, rkb_ok, scaffold_incremental_webhooks, seed_lock,
};

#[test]
fn quickstart_builds_lints_tests_and_renders() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = project_dir(tmp.path(), "demo");
    rkb_ok(&dir, &["init", "--domain", "my.domain"]);
    rkb_ok(&dir, &CREATE_DEMO_API);
    rkb_ok(&dir, &["manifests"]);
    seed_lock(&dir);

    cargo(&dir, &["build", "--all-targets"]);
    cargo(&dir, &["clippy", "--all-targets", "--", "-D", "warnings"]);
    cargo(&dir, &["fmt", "--", "--check"]);
    // The controller test starts a real kube-apiserver (KUBEBUILDER_ASSETS or the setup-envtest directory).
    let tests = cargo(&dir, &["test"]);
    assert!(
        tests.contains("test reconciles_a_demomicroservice_from_creation_to_deletion ... ok"),
        "{tests}"
    );

    let rendered = kustomize_default(&dir);
    assert!(
        rendered.contains("name: demomicroservices.devops.my.domain"),
        "CRD missing from render:\n{rendered}"
    );
    assert!(
        rendered.contains("name: demo-manager-role"),
        "manager role missing from render"
    );
    assert!(
        rendered.contains("- demomicroservices/finalizers"),
        "RBAC from markers missing from render"
    );
    assert!(
        rendered.contains("namespace: demo-system"),
        "namespace missing from render"
    );
    // A second run of manifests changes nothing: the committed files are what the markers say.
    rkb_ok(&dir, &["manifests", "--check"]);

    a_missing_rbac_marker_fails_the_controller_test_with_the_403(&dir);
}

/// The scaffolded controller test runs the manager with config/rbac/role.yaml only, so deleting the controller's
/// main `+kubebuilder:rbac` marker (and regenerating the role, as `make test` does) fails the test naming the
/// refused request, where the admin client passed it. Runs on the quickstart's build, which it reuses.
fn a_missing_rbac_marker_fails_the_controller_test_with_the_403(dir: &Path) {
    let controller = dir.join("src/controller/demomicroservice_controller.rs");
    let source = std::fs::read_to_string(&controller).unwrap();
    let marker = "/// +kubebuilder:rbac:groups=devops.my.domain,resources=demomicroservices,verbs=get;list;watch;create;update;patch;delete\n";
    assert!(source.contains(marker), "{source}");
    std::fs::write(&controller, source.replace(marker, "")).unwrap();
    rkb_ok(dir, &["manifests"]);

    let (passed, report) =
        cargo_outcome(dir, &["test", "--test", "demomicroservice_controller"], &[]);
    assert!(!passed, "passed without the marker:\n{report}");
    for needle in [
        "test reconciles_a_demomicroservice_from_creation_to_deletion ... FAILED",
        "403 Forbidden: the API server refused 1 request(s) of demo-controller-manager, which its RBAC roles do not \
         allow:\n    watch devops.my.domain/demomicroservices in all namespaces\n",
        // The first read is a streaming list (a watch); its list+watch fallback needs `list` too.
        "hint: grant each with a marker such as \
         `// +kubebuilder:rbac:groups=devops.my.domain,resources=demomicroservices,verbs=list;watch` on the controller",
    ] {
        assert!(
            report.contains(needle),
            "{needle:?} missing from:\n{report}"
        );
    }
}

/// The webhooks `rkb create webhook` scaffolds build and lint clean, their test passes through a real API server,
/// and config/default renders with the webhook configurations, the certificate, the CA injection and the
/// manager's webhook port.
#[test]
fn webhooks_build_lint_test_and_render() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = project_dir(tmp.path(), "hooks");
    rkb_ok(&dir, &["init", "--domain", "my.domain"]);
    rkb_ok(&dir, &CREATE_DEMO_API);
    rkb_ok(&dir, &CREATE_DEMO_WEBHOOKS);
    rkb_ok(&dir, &["manifests"]);
    seed_lock(&dir);

    cargo(&dir, &["clippy", "--all-targets", "--", "-D", "warnings"]);
    cargo(&dir, &["fmt", "--", "--check"]);
    let tests = cargo(&dir, &["test", "--test", "v1_demomicroservice_webhook"]);
    assert!(
        tests.contains("test the_api_server_calls_the_demomicroservice_webhooks ... ok"),
        "{tests}"
    );

    let rendered = kustomize_default(&dir);
    for needle in [
        "kind: MutatingWebhookConfiguration",
        "kind: ValidatingWebhookConfiguration",
        "cert-manager.io/inject-ca-from: hooks-system/hooks-serving-cert",
        "path: /mutate-devops-my-domain-v1-demomicroservice",
        "name: hooks-webhook-service",
        "- hooks-webhook-service.hooks-system.svc",
        "- --webhook-port=9443",
        "secretName: webhook-server-cert",
    ] {
        assert!(
            rendered.contains(needle),
            "{needle} missing from render:\n{rendered}"
        );
    }
}

/// A conversion webhook alone (no admission webhooks): the spoke's conversion file compiles, the scaffolded test
/// reads the sample in the spoke version through the API server, and the CRD renders with its conversion and CA.
#[test]
fn conversion_webhook_builds_converts_and_renders() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = project_dir(tmp.path(), "convert");
    rkb_ok(&dir, &["init", "--domain", "my.domain"]);
    rkb_ok(&dir, &CREATE_DEMO_API);
    let mut v2 = CREATE_DEMO_API.to_vec();
    v2[5] = "v2";
    v2.push("--controller=false");
    rkb_ok(&dir, &v2);
    let mut conversion = CREATE_DEMO_WEBHOOKS[..8].to_vec();
    conversion.extend(["--conversion", "--spoke", "v2"]);
    rkb_ok(&dir, &conversion);
    rkb_ok(&dir, &["manifests"]);
    assert!(
        !dir.join("config/webhook/manifests.yaml").exists(),
        "no admission webhook, no configurations"
    );
    seed_lock(&dir);

    cargo(&dir, &["clippy", "--all-targets", "--", "-D", "warnings"]);
    cargo(&dir, &["fmt", "--", "--check"]);
    let tests = cargo(&dir, &["test", "--test", "v1_demomicroservice_webhook"]);
    assert!(
        tests.contains("test the_api_server_calls_the_demomicroservice_webhooks ... ok"),
        "{tests}"
    );
    let main_rs = std::fs::read_to_string(dir.join("src/main.rs")).unwrap();
    assert!(
        main_rs.contains("mgr.add(|ctx| convert::webhook::storage_migration(&ctx).run());"),
        "{main_rs}"
    );
    let rendered = kustomize_default(&dir);
    for needle in [
        "strategy: Webhook",
        "path: /convert",
        "name: convert-webhook-service",
        "cert-manager.io/inject-ca-from: convert-system/convert-serving-cert",
        // The storage-version migrator's grants (src/webhook/mod.rs and the conversion file), main.rs runs it.
        "- customresourcedefinitions/status",
    ] {
        assert!(
            rendered.contains(needle),
            "{needle} missing from render:\n{rendered}"
        );
    }
}

/// `rkb create <what> --group G --version V --kind K <flags>` in `dir`.
fn create(dir: &Path, what: &str, (group, version, kind, flags): (&str, &str, &str, &[&str])) {
    let mut args = create_args(what, group, version, kind);
    args.extend_from_slice(flags);
    rkb_ok(dir, &args);
}

#[test]
fn multigroup_second_kind_second_version_second_group() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = project_dir(tmp.path(), "fleet");
    rkb_ok(&dir, &["init", "--domain", "my.domain", "--multigroup"]);
    // A second kind and a second version in one group, a cluster-scoped kind in another, and the same kind in a
    // group whose name is not a Rust identifier (dev-ops -> module dev_ops): its roles are named by group, so
    // kustomize below sees no duplicates.
    let apis: [(&str, &str, &str, &[&str]); 5] = [
        ("devops", "v1", "DemoMicroService", &[]),
        ("devops", "v1", "Canary", &[]),
        ("devops", "v2", "DemoMicroService", &["--controller=false"]),
        ("ship", "v1beta1", "Frigate", &["--namespaced=false"]),
        ("dev-ops", "v1", "Canary", &[]),
    ];
    for api in apis {
        create(&dir, "api", api);
    }
    // Webhooks in a multigroup project: a validating one for the dashed group's kind, a defaulting one for a
    // cluster-scoped kind (src/webhook/<group module>/<version>/).
    let webhooks: [(&str, &str, &str, &[&str]); 3] = [
        ("dev-ops", "v1", "Canary", &["--programmatic-validation"]),
        ("ship", "v1beta1", "Frigate", &["--defaulting"]),
        (
            "devops",
            "v1",
            "DemoMicroService",
            &["--conversion", "--spoke", "v2"],
        ),
    ];
    for webhook in webhooks {
        create(&dir, "webhook", webhook);
    }
    assert!(
        dir.join("src/api/devops/v2/demomicroservice_conversion.rs")
            .exists()
    );
    assert!(
        dir.join("src/webhook/dev_ops/v1/canary_webhook.rs")
            .exists()
    );
    assert!(dir.join("tests/ship_v1beta1_frigate_webhook.rs").exists());
    rkb_ok(&dir, &["manifests"]);

    // The older version keeps the data: it was marked as the storage version when v2 arrived.
    let v1 =
        std::fs::read_to_string(dir.join("src/api/devops/v1/demomicroservice_types.rs")).unwrap();
    assert!(v1.contains("/// +kubebuilder:storageversion"), "{v1}");
    let crd = std::fs::read_to_string(
        dir.join("config/crd/bases/devops.my.domain_demomicroservices.yaml"),
    )
    .unwrap();
    assert!(
        crd.contains("name: v1") && crd.contains("name: v2"),
        "{crd}"
    );
    let frigate =
        std::fs::read_to_string(dir.join("config/crd/bases/ship.my.domain_frigates.yaml")).unwrap();
    assert!(frigate.contains("scope: Cluster"), "{frigate}");

    seed_lock(&dir);
    cargo(&dir, &["clippy", "--all-targets", "--", "-D", "warnings"]);
    cargo(&dir, &["fmt", "--", "--check"]);
    let rendered = kustomize_default(&dir);
    for role in ["devops-canary-admin-role", "dev-ops-canary-admin-role"] {
        assert!(
            rendered.contains(&format!("name: fleet-{role}")),
            "{role} missing from render"
        );
    }
}

/// `rkb init --namespaced`: the manager gets a Role and RoleBinding in its namespace instead of cluster roles, and
/// its controller test passes holding only that Role (the manager watches the Role's namespace).
#[test]
fn namespaced_manager_builds_lints_and_renders() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = project_dir(tmp.path(), "app-operator");
    rkb_ok(&dir, &["init", "--domain", "example.com", "--namespaced"]);
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
    rkb_ok(&dir, &["manifests"]);
    seed_lock(&dir);

    cargo(&dir, &["build", "--all-targets"]);
    cargo(&dir, &["clippy", "--all-targets", "--", "-D", "warnings"]);
    cargo(&dir, &["fmt", "--", "--check"]);
    let tests = cargo(&dir, &["test", "--test", "appservice_controller"]);
    assert!(
        tests.contains("test reconciles_a_appservice_from_creation_to_deletion ... ok"),
        "{tests}"
    );

    let rendered = kustomize_default(&dir);
    let docs: Vec<serde_json::Value> =
        serde_saphyr::from_multiple(&rendered).expect("kustomize renders YAML");
    let find = |kind: &str, name: &str| {
        docs.iter().find(|d| {
            d["kind"].as_str() == Some(kind) && d["metadata"]["name"].as_str() == Some(name)
        })
    };
    let role = find("Role", "app-operator-manager-role")
        .unwrap_or_else(|| panic!("no namespaced manager Role in render:\n{rendered}"));
    assert_eq!(
        role["metadata"]["namespace"].as_str(),
        Some("app-operator-system")
    );
    let rules = serde_json::to_string_pretty(&role["rules"]).unwrap();
    assert!(
        rules.contains("appservices/finalizers") && rules.contains("events.k8s.io"),
        "RBAC from markers missing from the Role:\n{rules}"
    );
    let binding = find("RoleBinding", "app-operator-manager-rolebinding")
        .unwrap_or_else(|| panic!("no manager RoleBinding in render:\n{rendered}"));
    assert_eq!(binding["roleRef"]["kind"].as_str(), Some("Role"));
    assert_eq!(
        binding["roleRef"]["name"].as_str(),
        Some("app-operator-manager-role")
    );
    assert!(
        find("ClusterRole", "app-operator-manager-role").is_none(),
        "a namespaced manager must not get a manager ClusterRole"
    );
    rkb_ok(&dir, &["manifests", "--check"]);
}

/// Webhook types added one at a time with the user's code in between (defaulting, the user's defaulter and its
/// assertion, validation, conversion to v2), then `rkb edit --multigroup`: the project lints clean (clippy
/// -D warnings covers rustc's warnings) and is fmt-clean, its controller test and its webhook test pass on the
/// API server (the user's defaulter runs there, and v2 reads convert), and config/default renders.
#[test]
fn incremental_webhooks_then_multigroup_build_lint_and_test() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = project_dir(tmp.path(), "increments");
    scaffold_incremental_webhooks(&dir);
    git_commit_all(&dir);
    rkb_ok(&dir, &["edit", "--multigroup"]);
    rkb_ok(&dir, &["manifests"]);
    seed_lock(&dir);

    cargo(&dir, &["clippy", "--all-targets", "--", "-D", "warnings"]);
    cargo(&dir, &["fmt", "--", "--check"]);
    let tests = cargo(
        &dir,
        &[
            "test",
            "--test",
            "devops_v1_demomicroservice_webhook",
            "--test",
            "devops_demomicroservice_controller",
        ],
    );
    for passed in [
        "test the_api_server_calls_the_demomicroservice_webhooks ... ok",
        "test reconciles_a_demomicroservice_from_creation_to_deletion ... ok",
    ] {
        assert!(tests.contains(passed), "{passed} in:\n{tests}");
    }
    let rendered = kustomize_default(&dir);
    for needle in [
        "path: /mutate-devops-my-domain-v1-demomicroservice",
        "path: /validate-devops-my-domain-v1-demomicroservice",
        "strategy: Webhook",
    ] {
        assert!(
            rendered.contains(needle),
            "{needle} missing from render:\n{rendered}"
        );
    }
}

/// Controllers and webhooks for kinds the project does not define, and a second controller of one kind
/// (scaffold-tests/src/kinds.rs), built once: it builds and lints clean, and on envtest the Deployment controller
/// reconciles a Deployment (counted under its own metrics label), the named controller of the project's kind adds
/// its own finalizer, and the API server calls the Pod defaulting webhook for a Pod.
#[test]
fn core_kinds_and_named_controllers_build_lint_and_pass_on_envtest() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = project_dir(tmp.path(), "kinds");
    kinds::scaffold(&dir);
    rkb_ok(&dir, &["manifests"]);
    seed_lock(&dir);

    cargo(&dir, &["clippy", "--all-targets", "--", "-D", "warnings"]);
    cargo(&dir, &["fmt", "--", "--check"]);
    let tests = cargo(
        &dir,
        &[
            "test",
            "--test",
            "deployment_controller",
            "--test",
            "demomicroservice_backup_controller",
            "--test",
            "v1_pod_webhook",
        ],
    );
    for passed in [
        "test reconciles_a_deployment ... ok",
        "test reconciles_a_demomicroservice_from_creation_to_deletion ... ok",
        "test the_api_server_calls_the_pod_webhooks ... ok",
    ] {
        assert!(tests.contains(passed), "{passed} missing:\n{tests}");
    }

    // The manager role grants what the Deployment controller's markers ask; the Pod webhook's rule names the
    // core group as "" (controller-gen's output for kubebuilder's `groups=""`).
    let role = std::fs::read_to_string(dir.join("config/rbac/role.yaml")).unwrap();
    assert!(
        role.contains("- apiGroups:\n  - apps\n  resources:\n  - deployments\n"),
        "{role}"
    );
    let hooks = std::fs::read_to_string(dir.join("config/webhook/manifests.yaml")).unwrap();
    assert!(
        hooks.contains("path: /mutate--v1-pod")
            && hooks.contains("  - apiGroups:\n    - \"\"\n    apiVersions:\n    - v1\n")
            && hooks.contains("    resources:\n    - pods\n"),
        "{hooks}"
    );
    let rendered = kustomize_default(&dir);
    assert!(
        rendered.contains("kind: MutatingWebhookConfiguration"),
        "{rendered}"
    );
    rkb_ok(&dir, &["manifests", "--check"]);
}
