//! Every series the Grafana dashboards of `rkb edit --plugins grafana` query (templates/grafana/*.json: each
//! panel's PromQL and each variable's `label_values(...)`) is exported by a running manager: a manager on envtest
//! reconciles a ConfigMap that succeeds and one that fails, and its /metrics must hold each queried name (for a
//! histogram's `_bucket`, its `_sum` and `_count` too).

mod common;

use std::collections::BTreeSet;
use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use common::{config_map, create_config_map, http_get, quiet_options};
use k8s_openapi::api::core::v1::ConfigMap;
use kube::ResourceExt;
use kube::runtime::watcher;
use rkb_envtest::{Environment, eventually};
use rkb_runtime::{Action, BoxError, Context, Controller, Manager, ManagerOptions};
use serde_json::Value;

/// The dashboards as `rkb edit --plugins grafana` writes them (the templates crate embeds these files).
fn dashboards() -> Vec<(String, Value)> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../templates/grafana");
    let mut out = Vec::new();
    for entry in std::fs::read_dir(&dir).expect("templates/grafana") {
        let path = entry.unwrap().path();
        if path.extension().is_some_and(|e| e == "json") {
            let text = std::fs::read_to_string(&path).unwrap();
            let json =
                serde_json::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
            out.push((
                path.file_name().unwrap().to_string_lossy().into_owned(),
                json,
            ));
        }
    }
    assert_eq!(
        out.len(),
        2,
        "expected the runtime and resources dashboards in {}",
        dir.display()
    );
    out
}

/// The PromQL of a dashboard: panels' `expr` and variables' `query` (a string, or an object holding one).
fn queries(json: &Value, out: &mut Vec<String>) {
    match json {
        Value::Object(map) => {
            for (key, value) in map {
                match (key.as_str(), value) {
                    ("expr", Value::String(q)) | ("query", Value::String(q)) => out.push(q.clone()),
                    _ => queries(value, out),
                }
            }
        }
        Value::Array(items) => items.iter().for_each(|item| queries(item, out)),
        _ => {}
    }
}

/// The metric names of a PromQL expression: identifiers followed by a `{` selector (every series the dashboards
/// read is filtered by job and namespace, so each has one).
fn metric_names(expr: &str) -> Vec<String> {
    let mut names = Vec::new();
    let bytes = expr.as_bytes();
    for (at, _) in expr.match_indices('{') {
        let start = bytes[..at]
            .iter()
            .rposition(|b| !(b.is_ascii_alphanumeric() || *b == b'_' || *b == b':'))
            .map_or(0, |p| p + 1);
        if start < at && !bytes[start].is_ascii_digit() {
            names.push(expr[start..at].to_string());
        }
    }
    names
}

/// Whether /metrics has a sample of `name` (with labels or without).
fn exported(text: &str, name: &str) -> bool {
    text.lines().any(|line| {
        line.strip_prefix(name)
            .is_some_and(|rest| rest.starts_with('{') || rest.starts_with(' '))
    })
}

fn wanted_series() -> BTreeSet<String> {
    let mut names = BTreeSet::new();
    for (file, json) in dashboards() {
        let mut exprs = Vec::new();
        queries(&json, &mut exprs);
        let found: Vec<String> = exprs.iter().flat_map(|e| metric_names(e)).collect();
        assert!(!found.is_empty(), "{file}: no metric names in {exprs:?}");
        for name in found {
            if let Some(base) = name.strip_suffix("_bucket") {
                names.insert(format!("{base}_sum"));
                names.insert(format!("{base}_count"));
            }
            names.insert(name);
        }
    }
    names
}

#[test]
fn metric_names_are_read_from_promql() {
    assert_eq!(
        metric_names(
            r#"histogram_quantile(0.90, sum by (instance, name, le) (rate(workqueue_work_duration_seconds_bucket{job="$job"}[5m])))"#
        ),
        ["workqueue_work_duration_seconds_bucket"]
    );
    assert_eq!(
        metric_names(
            r#"label_values(controller_runtime_reconcile_total{namespace=~"$namespace"}, job)"#
        ),
        ["controller_runtime_reconcile_total"]
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_series_the_grafana_dashboards_query_is_exported() {
    let wanted = wanted_series();
    let env = Environment::start().await.expect("envtest");
    let client = env.client();
    for name in ["good", "bad"] {
        create_config_map(&client, &config_map(name, &[("test", "grafana")])).await;
    }
    let options = ManagerOptions {
        metrics_bind_address: "127.0.0.1:0".into(),
        ..quiet_options()
    };
    let mgr = Manager::builder("rkb-grafana-test")
        .client(client.clone())
        .options(options)
        .build()
        .await
        .expect("build manager");
    let metrics_addr = mgr.metrics_addr().unwrap();
    mgr.add(|ctx: Context| async move {
        Controller::for_kind_with::<ConfigMap>(
            &ctx,
            watcher::Config::default().labels("test=grafana"),
        )
        .run(|cm: Arc<ConfigMap>, _ctx| async move {
            if cm.name_any() == "bad" {
                return Err::<Action, BoxError>("fails, so retries and errors have samples".into());
            }
            Ok(Action::await_change())
        })
        .await
    });
    let running = mgr.spawn();

    // Until every name is there, the error names the ones still missing.
    let wanted = &wanted;
    let result = eventually(
        "every dashboard series on /metrics",
        Duration::from_secs(30),
        || async move {
            let (_, text) = http_get(metrics_addr, "/metrics").await;
            let missing: Vec<&String> = wanted
                .iter()
                .filter(|name| !exported(&text, name))
                .collect();
            if missing.is_empty() {
                return Ok(Some(()));
            }
            // An error is "not yet" to `eventually`, and the last one is its report on timeout.
            Err(format!("not exported: {missing:?}"))
        },
    )
    .await;
    running.stop().await.expect("manager stops cleanly");
    result.unwrap();
}
