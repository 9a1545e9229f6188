//! `rkb edit --plugins helm`: the chart it generates from config/default lints and renders, with and without
//! webhooks (and with every optional piece switched the other way); installed into a real API server it creates
//! the objects `kubectl apply -k config/default` creates in another, field for field; `make helm-chart` regenerates
//! it keeping the user's values.yaml; a project whose kustomize build fails is refused with nothing written; and the
//! generated tree matches its golden (scaffold-tests/golden/helm-webhooks).
//!
//! helm comes from `$HELM`, else from hack/install-helm.sh (built from the Go module proxy and cached); the control
//! planes from rkb-envtest (`KUBEBUILDER_ASSETS`); kubectl from PATH.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

use rkb_scaffold_tests::{
    CREATE_DEMO_API, CREATE_DEMO_WEBHOOKS, assert_golden, failed_unchanged, kustomize_default,
    rkb_bin, rkb_ok, run, snapshot, workspace_root,
};
use serde_json::Value;

/// The helm binary: `$HELM`, else the one hack/install-helm.sh installs (its last line is the path).
fn helm() -> &'static Path {
    static HELM: OnceLock<PathBuf> = OnceLock::new();
    HELM.get_or_init(|| {
        if let Some(helm) = std::env::var_os("HELM") {
            return PathBuf::from(helm);
        }
        let out = run(Command::new("bash")
            .arg("hack/install-helm.sh")
            .current_dir(workspace_root()));
        PathBuf::from(out.lines().last().expect("install-helm.sh prints the path"))
    })
}

fn helm_ok(dir: &Path, args: &[&str]) -> String {
    run(Command::new(helm()).args(args).current_dir(dir))
}

/// A quickstart project (`demo`), with the admission webhooks when asked, and its chart.
fn project(tmp: &Path, webhooks: bool) -> PathBuf {
    let dir = tmp.join("demo");
    std::fs::create_dir(&dir).unwrap();
    rkb_ok(&dir, &["init", "--domain", "my.domain"]);
    rkb_ok(&dir, &CREATE_DEMO_API);
    if webhooks {
        rkb_ok(&dir, &CREATE_DEMO_WEBHOOKS);
    }
    rkb_ok(&dir, &["manifests"]);
    rkb_ok(&dir, &["edit", "--plugins", "helm"]);
    dir
}

fn kustomize(dir: &Path) -> Vec<Value> {
    let text = kustomize_default(dir);
    serde_saphyr::from_multiple(&text).expect("kustomize prints YAML")
}

/// `kind name` of each object, the Namespace left out: the chart installs into the release's namespace.
fn identities(objects: &[Value]) -> BTreeSet<String> {
    objects
        .iter()
        .filter(|o| o["kind"] != "Namespace")
        .map(|o| {
            format!(
                "{} {}",
                o["kind"].as_str().unwrap(),
                o["metadata"]["name"].as_str().unwrap()
            )
        })
        .collect()
}

fn helm_template(dir: &Path, extra: &[&str]) -> Vec<Value> {
    let mut args = vec![
        "template",
        "demo",
        "dist/chart",
        "--namespace",
        "demo-system",
    ];
    args.extend_from_slice(extra);
    serde_saphyr::from_multiple(&helm_ok(dir, &args)).expect("helm template prints YAML")
}

#[test]
fn the_chart_lints_and_renders_the_objects_of_config_default_with_and_without_webhooks() {
    for webhooks in [false, true] {
        let tmp = tempfile::tempdir().unwrap();
        let dir = project(tmp.path(), webhooks);
        let lint = helm_ok(&dir, &["lint", "--strict", "dist/chart"]);
        assert!(
            lint.contains("1 chart(s) linted, 0 chart(s) failed"),
            "{lint}"
        );

        let rendered = helm_template(&dir, &[]);
        assert_eq!(
            identities(&rendered),
            identities(&kustomize(&dir)),
            "webhooks: {webhooks}: the chart's objects are config/default's"
        );
        let kinds: BTreeSet<&str> = rendered
            .iter()
            .map(|o| o["kind"].as_str().unwrap())
            .collect();
        assert_eq!(kinds.contains("ValidatingWebhookConfiguration"), webhooks);
        assert_eq!(kinds.contains("Certificate"), webhooks);
        let workflow =
            std::fs::read_to_string(dir.join(".github/workflows/test-chart.yml")).unwrap();
        assert_eq!(
            workflow.contains("helm install cert-manager jetstack/cert-manager"),
            webhooks,
            "test-chart.yml installs cert-manager exactly when the chart has certificates"
        );

        // Every switch the other way still renders, and does what it says.
        let mut flipped = vec![
            "--set=metrics.enabled=false",
            "--set=crd.enabled=false",
            "--set=rbac.helpers.enabled=false",
            "--set=prometheus.enabled=true",
            "--set=networkPolicy.enabled=true",
            "--set=manager.leaderElection.enabled=false",
            "--set=manager.replicas=2",
            "--set=manager.image.repository=ghcr.io/me/demo",
            "--set=manager.image.tag=v1.2.3",
            "--set=manager.image.pullPolicy=Always",
        ];
        if webhooks {
            flipped.extend([
                "--set=webhook.enabled=false",
                "--set=certManager.enabled=false",
            ]);
        }
        helm_ok(
            &dir,
            &[&["lint", "--strict", "dist/chart"][..], &flipped].concat(),
        );
        let rendered = helm_template(&dir, &flipped);
        let kinds: BTreeSet<&str> = rendered
            .iter()
            .map(|o| o["kind"].as_str().unwrap())
            .collect();
        for gone in [
            "CustomResourceDefinition",
            "Service",
            "ValidatingWebhookConfiguration",
            "Certificate",
        ] {
            assert!(
                !kinds.contains(gone),
                "{gone} rendered although switched off: {kinds:?}"
            );
        }
        for added in ["ServiceMonitor", "NetworkPolicy"] {
            assert!(
                kinds.contains(added),
                "{added} not rendered although switched on"
            );
        }
        let manager = rendered.iter().find(|o| o["kind"] == "Deployment").unwrap();
        let container = &manager["spec"]["template"]["spec"]["containers"][0];
        assert_eq!(manager["spec"]["replicas"], 2);
        assert_eq!(container["image"], "ghcr.io/me/demo:v1.2.3");
        assert_eq!(container["imagePullPolicy"], "Always");
        let args: Vec<&str> = container["args"]
            .as_array()
            .unwrap()
            .iter()
            .map(|a| a.as_str().unwrap())
            .collect();
        assert!(args.contains(&"--metrics-bind-address=0"), "{args:?}");
        assert!(!args.contains(&"--leader-elect"), "{args:?}");
        assert!(
            !args.iter().any(|a| a.starts_with("--webhook-cert-path")),
            "{args:?}"
        );
        assert!(
            container
                .get("volumeMounts")
                .is_none_or(|m| m.is_null() || m == &Value::Array(vec![])),
            "{container}"
        );
    }
}

/// Minimal CRDs for cert-manager's Issuer and Certificate, which config/default's certificates need: envtest has no
/// cert-manager, and only that the objects are stored as given matters here.
const CERT_MANAGER_CRDS: &str = "\
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: certificates.cert-manager.io
spec:
  group: cert-manager.io
  names: {kind: Certificate, listKind: CertificateList, plural: certificates, singular: certificate}
  scope: Namespaced
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema: {type: object, x-kubernetes-preserve-unknown-fields: true}
---
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: issuers.cert-manager.io
spec:
  group: cert-manager.io
  names: {kind: Issuer, listKind: IssuerList, plural: issuers, singular: issuer}
  scope: Namespaced
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema: {type: object, x-kubernetes-preserve-unknown-fields: true}
";

/// What the comparison leaves out, each for its reason. The server sets metadata's uid, resourceVersion,
/// creationTimestamp, generation and managedFields, a Service's clusterIP(s) (allocated per server) and every
/// status. kubectl's client-side apply records kubectl.kubernetes.io/last-applied-configuration. Helm adds, on
/// purpose: the meta.helm.sh/release-name and -namespace annotations (its ownership record), its labels
/// helm.sh/chart and app.kubernetes.io/instance, and app.kubernetes.io/managed-by set to Helm where kustomize's is
/// kustomize; the CRDs' helm.sh/resource-policy: keep (crd.keep). The Namespace is not compared: the chart has
/// none (helm --create-namespace makes the release's).
fn comparable(mut object: Value) -> Value {
    let metadata = object["metadata"].as_object_mut().unwrap();
    for key in [
        "uid",
        "resourceVersion",
        "creationTimestamp",
        "generation",
        "managedFields",
    ] {
        metadata.remove(key);
    }
    for (field, keys) in [
        (
            "annotations",
            &[
                "kubectl.kubernetes.io/last-applied-configuration",
                "meta.helm.sh/release-name",
                "meta.helm.sh/release-namespace",
                "helm.sh/resource-policy",
            ][..],
        ),
        (
            "labels",
            &[
                "app.kubernetes.io/managed-by",
                "helm.sh/chart",
                "app.kubernetes.io/instance",
            ][..],
        ),
    ] {
        if let Some(map) = metadata.get_mut(field).and_then(Value::as_object_mut) {
            for key in keys {
                map.remove(*key);
            }
            if map.is_empty() {
                metadata.remove(field);
            }
        }
    }
    let object_map = object.as_object_mut().unwrap();
    object_map.remove("status");
    if object_map["kind"] == "Service" {
        let spec = object_map["spec"].as_object_mut().unwrap();
        spec.remove("clusterIP");
        spec.remove("clusterIPs");
    }
    object
}

fn kubectl(kubeconfig: &Path, dir: &Path, args: &[&str]) -> String {
    run(Command::new("kubectl")
        .arg("--kubeconfig")
        .arg(kubeconfig)
        .args(args)
        .current_dir(dir))
}

/// The object `template` names, as the API server behind `kubeconfig` holds it.
fn read_back(kubeconfig: &Path, dir: &Path, template: &Value) -> Value {
    let kind = template["kind"].as_str().unwrap().to_ascii_lowercase();
    let group = template["apiVersion"]
        .as_str()
        .unwrap()
        .rsplit_once('/')
        .map(|(g, _)| g);
    let resource = group.map_or(kind.clone(), |g| format!("{kind}.{g}"));
    let name = template["metadata"]["name"].as_str().unwrap();
    let mut args = vec!["get", &resource, name, "-o", "json"];
    if let Some(namespace) = template["metadata"]["namespace"].as_str() {
        args.extend(["--namespace", namespace]);
    }
    serde_json::from_str(&kubectl(kubeconfig, dir, &args)).unwrap()
}

#[test]
fn the_installed_chart_creates_the_objects_kubectl_apply_k_creates_field_for_field() {
    let runtime = tokio::runtime::Runtime::new().unwrap();
    for webhooks in [false, true] {
        let tmp = tempfile::tempdir().unwrap();
        let dir = project(tmp.path(), webhooks);
        let start = || {
            runtime
                .block_on(
                    rkb_envtest::Environment::builder()
                        .crd_yaml(CERT_MANAGER_CRDS)
                        .start(),
                )
                .expect("envtest starts")
        };
        let (by_kubectl, by_helm) = (start(), start());
        kubectl(
            by_kubectl.kubeconfig_path(),
            &dir,
            &["apply", "-k", "config/default"],
        );
        let kubeconfig = by_helm.kubeconfig_path().to_str().unwrap();
        helm_ok(
            &dir,
            &[
                "install",
                "demo",
                "dist/chart",
                "--namespace",
                "demo-system",
                "--create-namespace",
                "--kubeconfig",
                kubeconfig,
            ],
        );

        let rendered = kustomize(&dir);
        let manifest = helm_ok(
            &dir,
            &[
                "get",
                "manifest",
                "demo",
                "--namespace",
                "demo-system",
                "--kubeconfig",
                kubeconfig,
            ],
        );
        let installed: Vec<Value> = serde_saphyr::from_multiple(&manifest).unwrap();
        assert_eq!(
            identities(&installed),
            identities(&rendered),
            "webhooks: {webhooks}"
        );
        for object in rendered.iter().filter(|o| o["kind"] != "Namespace") {
            let want = comparable(read_back(by_kubectl.kubeconfig_path(), &dir, object));
            let got = comparable(read_back(by_helm.kubeconfig_path(), &dir, object));
            assert_eq!(
                serde_json::to_string_pretty(&got).unwrap(),
                serde_json::to_string_pretty(&want).unwrap(),
                "webhooks: {webhooks}: {} {} differs between the chart (left) and kubectl apply -k (right)",
                object["kind"],
                object["metadata"]["name"]
            );
        }
        // crd.keep: uninstalling the release leaves the CRDs (and the users' objects), and removes the rest.
        helm_ok(
            &dir,
            &[
                "uninstall",
                "demo",
                "--namespace",
                "demo-system",
                "--kubeconfig",
                kubeconfig,
            ],
        );
        let crds = kubectl(
            by_helm.kubeconfig_path(),
            &dir,
            &["get", "customresourcedefinitions", "-o", "name"],
        );
        assert!(
            crds.contains(
                "customresourcedefinition.apiextensions.k8s.io/demomicroservices.devops.my.domain"
            ),
            "{crds}"
        );
        let roles = kubectl(
            by_helm.kubeconfig_path(),
            &dir,
            &["get", "clusterroles", "-o", "name"],
        );
        assert!(!roles.contains("demo-manager-role"), "{roles}");
    }
}

#[test]
fn make_helm_chart_regenerates_the_templates_and_keeps_the_users_values() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = project(tmp.path(), false);
    let values = dir.join("dist/chart/values.yaml");
    let text = std::fs::read_to_string(&values).unwrap();
    // The user's edits: a value, a comment, a section removed (the templates need it: it comes back).
    let start = text
        .find("\n## NetworkPolicies")
        .expect("a networkPolicy section");
    let edited = text[..start + 1]
        .replace("  replicas: 1\n", "  replicas: 3 # three, for the demo\n")
        .replace("    tag: latest\n", "    tag: v0.1.0\n");
    std::fs::write(&values, &edited).unwrap();
    let templates = dir.join("dist/chart/templates");
    std::fs::write(templates.join("mine.yaml"), "# the user's own template\n").unwrap();
    let stale = std::fs::read_to_string(templates.join("rbac/manager-role.yaml")).unwrap();
    std::fs::write(templates.join("rbac/gone.yaml"), stale).unwrap();

    rkb_ok(&dir, &CREATE_DEMO_WEBHOOKS);
    let out = run(Command::new("make")
        .args(["helm-chart", &format!("RKB={}", rkb_bin().display())])
        .current_dir(&dir));
    assert!(
        out.contains("values.yaml: added the keys the templates need"),
        "{out}"
    );

    let merged = std::fs::read_to_string(&values).unwrap();
    assert!(
        merged.starts_with(&edited),
        "the user's values.yaml is not kept as it was:\n{merged}"
    );
    let added = &merged[edited.len()..];
    for section in [
        "\nwebhook:\n  enabled: true\n  port: 9443\n",
        "\ncertManager:\n  enabled: true\n",
        "\nnetworkPolicy:\n  enabled: false\n",
    ] {
        assert!(added.contains(section), "{section:?} not added:\n{added}");
    }
    assert!(
        templates
            .join("webhook/validating-webhook-configuration.yaml")
            .is_file()
    );
    assert!(
        templates.join("mine.yaml").is_file(),
        "the user's template was removed"
    );
    assert!(
        !templates.join("rbac/gone.yaml").exists(),
        "a stale generated template was kept"
    );
    let rendered = helm_template(&dir, &[]);
    let manager = rendered.iter().find(|o| o["kind"] == "Deployment").unwrap();
    assert_eq!(manager["spec"]["replicas"], 3);
    assert_eq!(
        manager["spec"]["template"]["spec"]["containers"][0]["image"],
        "controller:v0.1.0"
    );

    let before = snapshot(&dir);
    rkb_ok(&dir, &["edit", "--plugins", "helm"]);
    assert!(snapshot(&dir) == before, "a second run changed the tree");
}

#[test]
fn a_values_yaml_rkb_cannot_read_is_refused_with_nothing_written() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = project(tmp.path(), false);
    std::fs::write(
        dir.join("dist/chart/values.yaml"),
        "manager:\n  replicas: [1\n",
    )
    .unwrap();
    let stderr = failed_unchanged(&dir, &["edit", "--plugins", "helm"]);
    assert_eq!(
        stderr,
        "error: dist/chart/values.yaml is not YAML rkb can read: unclosed bracket '['\n --> dist/chart/values.yaml:2:13\n  |\n2 |   replicas: [1\n  |             ^^\n  = help: fix the YAML (or delete the file to have it written anew) and run again\n"
    );
}

#[test]
fn a_project_whose_kustomize_build_fails_is_refused_with_nothing_written() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("demo");
    std::fs::create_dir(&dir).unwrap();
    rkb_ok(&dir, &["init", "--domain", "my.domain"]);
    rkb_ok(&dir, &CREATE_DEMO_API);
    rkb_ok(&dir, &["manifests"]);
    let kustomization = dir.join("config/default/kustomization.yaml");
    let text = std::fs::read_to_string(&kustomization).unwrap();
    std::fs::write(
        &kustomization,
        text.replace("- metrics_service.yaml", "- metrics_servce.yaml"),
    )
    .unwrap();

    let stderr = failed_unchanged(&dir, &["edit", "--plugins", "helm"]);
    let lines: Vec<&str> = stderr.lines().collect();
    assert_eq!(
        lines.first().copied(),
        Some("error: `kubectl kustomize config/default` failed, so there is no chart to generate:"),
        "{stderr}"
    );
    assert!(
        stderr.contains("metrics_servce.yaml"),
        "kustomize's message is missing: {stderr}"
    );
    assert_eq!(
        lines.last().copied(),
        Some(
            "  help: fix the kustomization (`make build-installer` shows the same error) and run again"
        ),
        "{stderr}"
    );
    assert!(!dir.join("dist").exists());
}

#[test]
fn the_chart_of_a_project_with_webhooks_matches_its_golden_and_only_the_makefile_changes_outside_it()
 {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("demo");
    std::fs::create_dir(&dir).unwrap();
    rkb_ok(&dir, &["init", "--domain", "my.domain"]);
    rkb_ok(&dir, &CREATE_DEMO_API);
    rkb_ok(&dir, &CREATE_DEMO_WEBHOOKS);
    rkb_ok(&dir, &["manifests"]);
    let before = snapshot(&dir);
    rkb_ok(&dir, &["edit", "--plugins", "helm"]);
    let after = snapshot(&dir);
    let changed: Vec<&Path> = after
        .iter()
        .filter(|(path, bytes)| before.get(*path) != Some(bytes))
        .map(|(path, _)| path.as_path())
        .filter(|path| !path.starts_with("dist/chart"))
        .collect();
    assert_eq!(
        changed,
        [
            Path::new(".github/workflows/test-chart.yml"),
            Path::new("Makefile")
        ]
    );
    let makefile = String::from_utf8(after[Path::new("Makefile")].clone()).unwrap();
    let old = String::from_utf8(before[Path::new("Makefile")].clone()).unwrap();
    assert!(
        makefile.starts_with(old.trim_end()),
        "the Makefile's own lines changed"
    );

    let golden = tmp.path().join("golden");
    for (rel, bytes) in after.iter().filter(|(path, _)| {
        path.starts_with("dist/chart")
            || path.as_path() == Path::new(".github/workflows/test-chart.yml")
    }) {
        let path = golden.join(rel);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, bytes).unwrap();
    }
    std::fs::write(
        golden.join("Makefile.helm"),
        &makefile[old.trim_end().len()..],
    )
    .unwrap();
    assert_golden("helm-webhooks", &golden);
}
