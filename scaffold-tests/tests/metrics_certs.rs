//! The metrics certificate from cert-manager, as `rkb init` scaffolds it commented out: with the
//! [METRICS-WITH-CERTS], [PROMETHEUS] and [PROMETHEUS-WITH-CERTS] sections uncommented, `kubectl kustomize
//! config/default` renders the Certificate named for the metrics Service, the manager mounting its Secret with
//! --metrics-cert-path, and a ServiceMonitor that verifies the server instead of `insecureSkipVerify: true`; with a
//! webhook created afterwards, both certificates render from the one config/certmanager; with a webhook but the
//! sections left commented, only the webhook's.

use std::path::Path;

use rkb_scaffold_tests::{CREATE_DEMO_API, CREATE_DEMO_WEBHOOKS, kustomize_default, rkb_ok};
use serde_json::Value;

/// Uncomments the YAML lines (`#-`, `#  ...`, `#key:`) under each `# [TAG]` comment of `tags`, as a user would.
fn uncomment(path: &Path, tags: &[&str]) {
    let text = std::fs::read_to_string(path).unwrap();
    let mut enabled = false;
    let mut out = Vec::new();
    for line in text.lines() {
        if line.starts_with("# [") {
            enabled = tags
                .iter()
                .any(|tag| line.starts_with(&format!("# [{tag}]")));
        } else if !line.starts_with('#') {
            enabled = false;
        } else if enabled && is_commented_yaml(line) {
            out.push(&line[1..]);
            continue;
        }
        out.push(line);
    }
    let uncommented = out.join("\n") + "\n";
    assert_ne!(
        uncommented,
        text,
        "{}: nothing under {tags:?} to uncomment",
        path.display()
    );
    std::fs::write(path, uncommented).unwrap();
}

fn is_commented_yaml(line: &str) -> bool {
    let rest = &line[1..];
    rest.starts_with('-')
        || rest.starts_with("  ")
        || rest
            .split_once(':')
            .is_some_and(|(key, _)| !key.contains(' '))
}

fn enable_metrics_certs(dir: &Path) {
    uncomment(
        &dir.join("config/default/kustomization.yaml"),
        &["METRICS-WITH-CERTS", "PROMETHEUS"],
    );
    uncomment(
        &dir.join("config/certmanager/kustomization.yaml"),
        &["METRICS-WITH-CERTS"],
    );
    uncomment(
        &dir.join("config/prometheus/kustomization.yaml"),
        &["PROMETHEUS-WITH-CERTS"],
    );
}

fn render(dir: &Path) -> Vec<Value> {
    let rendered = kustomize_default(dir);
    serde_saphyr::from_multiple(&rendered).expect("kustomize renders YAML")
}

fn find<'a>(docs: &'a [Value], kind: &str, name: &str) -> &'a Value {
    docs.iter()
        .find(|d| d["kind"] == kind && d["metadata"]["name"] == name)
        .unwrap_or_else(|| panic!("no {kind} {name} in the render"))
}

fn assert_metrics_tls(docs: &[Value]) {
    let certificate = find(docs, "Certificate", "demo-metrics-certs");
    assert_eq!(
        certificate["spec"]["dnsNames"],
        serde_json::json!([
            "demo-controller-manager-metrics-service.demo-system.svc",
            "demo-controller-manager-metrics-service.demo-system.svc.cluster.local"
        ])
    );
    assert_eq!(
        certificate["spec"]["issuerRef"]["name"],
        "demo-selfsigned-issuer"
    );
    let manager = &find(docs, "Deployment", "demo-controller-manager")["spec"]["template"]["spec"];
    let args = manager["containers"][0]["args"].as_array().unwrap();
    assert!(
        args.iter()
            .any(|a| a == "--metrics-cert-path=/tmp/k8s-metrics-server/metrics-certs"),
        "{args:?}"
    );
    let volumes = manager["volumes"].as_array().unwrap();
    assert!(
        volumes
            .iter()
            .any(|v| v["secret"]["secretName"] == "metrics-server-cert"),
        "{volumes:?}"
    );
    let tls = &find(
        docs,
        "ServiceMonitor",
        "demo-controller-manager-metrics-monitor",
    )["spec"]["endpoints"][0]["tlsConfig"];
    assert_eq!(tls["insecureSkipVerify"], false, "{tls}");
    assert_eq!(
        tls["serverName"],
        "demo-controller-manager-metrics-service.demo-system.svc"
    );
    assert_eq!(tls["ca"]["secret"]["name"], "metrics-server-cert");
}

#[test]
fn uncommented_metrics_cert_sections_render_a_verified_metrics_endpoint() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("demo");
    std::fs::create_dir(&dir).unwrap();
    rkb_ok(&dir, &["init", "--domain", "my.domain"]);
    let plain = render(&dir);
    assert!(
        plain.iter().all(|d| d["kind"] != "Certificate"),
        "cert-manager is opt-in"
    );
    // With webhooks but the metrics sections still commented, cert-manager issues the webhook certificate only
    // (not a metrics one whose DNS names no replacement fills).
    let webhooks_only = tmp.path().join("webhooks-only");
    std::fs::create_dir(&webhooks_only).unwrap();
    for args in [
        &["init", "--domain", "my.domain"][..],
        &CREATE_DEMO_API,
        &CREATE_DEMO_WEBHOOKS,
        &["manifests"],
    ] {
        rkb_ok(&webhooks_only, args);
    }
    let certificates: Vec<_> = render(&webhooks_only)
        .into_iter()
        .filter(|d| d["kind"] == "Certificate")
        .map(|d| d["metadata"]["name"].clone())
        .collect();
    assert_eq!(certificates, ["webhooks-only-serving-cert"]);
    enable_metrics_certs(&dir);
    assert_metrics_tls(&render(&dir));

    // A webhook created afterwards adds its certificate to the same config/certmanager, and `- ../certmanager` once.
    rkb_ok(&dir, &CREATE_DEMO_API);
    rkb_ok(&dir, &CREATE_DEMO_WEBHOOKS);
    rkb_ok(&dir, &["manifests"]);
    let kustomization =
        std::fs::read_to_string(dir.join("config/default/kustomization.yaml")).unwrap();
    assert_eq!(
        kustomization
            .lines()
            .filter(|l| l.trim() == "- ../certmanager")
            .count(),
        1,
        "{kustomization}"
    );
    let docs = render(&dir);
    assert_metrics_tls(&docs);
    let serving = find(&docs, "Certificate", "demo-serving-cert");
    assert_eq!(
        serving["spec"]["dnsNames"][0],
        "demo-webhook-service.demo-system.svc"
    );
}
