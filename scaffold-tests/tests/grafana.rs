//! `rkb edit --plugins grafana`: the dashboards and the custom-metrics config match their golden tree, a second run
//! changes nothing, listed custom metrics get their dashboard, and an unknown plugin or an unreadable config is
//! refused with the tree unchanged. (runtime/tests/grafana_series.rs checks the dashboards' series against a
//! running manager.)

use std::path::Path;

use rkb_scaffold_tests::{assert_golden, failed_unchanged, rkb_ok, snapshot};

fn init(tmp: &Path) -> std::path::PathBuf {
    let dir = tmp.join("demo");
    std::fs::create_dir(&dir).unwrap();
    rkb_ok(&dir, &["init", "--domain", "my.domain"]);
    dir
}

/// The grafana/ directory alone, so the golden holds only what the plugin writes.
fn grafana_dir(dir: &Path, into: &Path) {
    for (rel, bytes) in snapshot(&dir.join("grafana")) {
        let path = into.join(rel);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, bytes).unwrap();
    }
}

#[test]
fn grafana_plugin_writes_the_golden_dashboards_and_a_second_run_changes_nothing() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = init(tmp.path());
    let before = snapshot(&dir);
    let out = rkb_ok(&dir, &["edit", "--plugins", "grafana"]);
    assert!(
        out.contains("grafana/custom-metrics/config.yaml lists no metrics"),
        "{out}"
    );
    let after = snapshot(&dir);
    let added: Vec<_> = after.keys().filter(|p| !before.contains_key(*p)).collect();
    assert_eq!(
        added,
        [
            Path::new("grafana/controller-resources-metrics.json"),
            Path::new("grafana/controller-runtime-metrics.json"),
            Path::new("grafana/custom-metrics/config.yaml"),
        ],
        "the plugin writes grafana/ only"
    );
    assert!(
        before.iter().all(|(p, bytes)| after[p] == *bytes),
        "the plugin changed a file outside grafana/"
    );
    let only = tmp.path().join("golden");
    grafana_dir(&dir, &only);
    assert_golden("grafana", &only);

    rkb_ok(&dir, &["edit", "--plugins", "grafana"]);
    assert!(snapshot(&dir) == after, "a second run changed the tree");
}

#[test]
fn listed_custom_metrics_get_a_dashboard_and_the_config_is_kept() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = init(tmp.path());
    rkb_ok(&dir, &["edit", "--plugins", "grafana"]);
    let config = "customMetrics:\n  - metric: memcached_deployment_size\n    type: gauge\n  - metric: memcached_reconcile_seconds\n    type: histogram\n";
    std::fs::write(dir.join("grafana/custom-metrics/config.yaml"), config).unwrap();
    let out = rkb_ok(&dir, &["edit", "--plugins=grafana.kubebuilder.io/v1-alpha"]);
    assert!(
        out.contains("custom-metrics-dashboard.json: 2 panel(s)"),
        "{out}"
    );
    assert_eq!(
        std::fs::read_to_string(dir.join("grafana/custom-metrics/config.yaml")).unwrap(),
        config
    );
    let only = tmp.path().join("golden");
    grafana_dir(&dir, &only);
    assert_golden("grafana-custom-metrics", &only);
}

#[test]
fn an_unknown_plugin_is_refused_naming_the_ones_there_are() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = init(tmp.path());
    let stderr = failed_unchanged(&dir, &["edit", "--plugins", "grafana,deploy-image"]);
    assert_eq!(
        stderr,
        "error: --plugins grafana,deploy-image: rkb has no plugin `deploy-image`: `rkb edit` takes --plugins grafana (kubebuilder's grafana.kubebuilder.io/v1-alpha) and helm (helm.kubebuilder.io/v2-alpha); kubebuilder's helm/v1-alpha and deploy-image plugins are not ported\n"
    );
}

#[test]
fn a_custom_metric_without_type_is_refused_and_nothing_is_rewritten() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = init(tmp.path());
    rkb_ok(&dir, &["edit", "--plugins", "grafana"]);
    std::fs::remove_file(dir.join("grafana/controller-runtime-metrics.json")).unwrap();
    std::fs::write(
        dir.join("grafana/custom-metrics/config.yaml"),
        "customMetrics:\n  - metric: memcached_deployment_size\n",
    )
    .unwrap();
    let stderr = failed_unchanged(&dir, &["edit", "--plugins", "grafana"]);
    assert_eq!(
        stderr,
        "error: grafana/custom-metrics/config.yaml: customMetrics[0] (memcached_deployment_size): type is missing\n  help: set type to counter, gauge or histogram, or give the PromQL to plot in expr\n"
    );
}
