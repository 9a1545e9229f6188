//! `rkb edit --plugins grafana`: kubebuilder's grafana/v1-alpha plugin for an rkb project.
//!
//! Writes `grafana/controller-runtime-metrics.json` (reconciles and work queues) and
//! `grafana/controller-resources-metrics.json` (the manager's CPU and memory), whose queries use only series
//! rkb-runtime exports under controller-runtime's names (runtime/tests/grafana_series.rs checks them against a
//! running manager), and `grafana/custom-metrics/config.yaml`, where users list their own metrics. When that list is
//! not empty, `grafana/custom-metrics/custom-metrics-dashboard.json` gets one panel per metric.
//!
//! Running it again is the way to regenerate: the two dashboards and the custom one are rkb's and are rewritten
//! (as kubebuilder does), config.yaml is the user's and is kept. A second run with nothing changed writes nothing.
//! A config.yaml rkb cannot read refuses the run, and nothing is written.

use std::path::Path;

use anyhow::{Result, bail};
use serde::Deserialize;
use serde_json::{Value, json};

use crate::scaffold::Plan;

const CONFIG: &str = "grafana/custom-metrics/config.yaml";
const CUSTOM_DASHBOARD: &str = "grafana/custom-metrics/custom-metrics-dashboard.json";

/// Plans the plugin's files; returns what was done, for the summary.
pub(super) fn plan(plan: &mut Plan) -> Result<Vec<String>> {
    for (path, contents) in rkb_templates::GRAFANA {
        if path == CONFIG && plan.exists(Path::new(path)) {
            continue;
        }
        plan.create(path, contents.to_string(), true)?;
    }
    let metrics = read_config(&plan.read(Path::new(CONFIG))?)?;
    let mut done = vec![
        "grafana/: controller-runtime-metrics.json and controller-resources-metrics.json (import them into Grafana)"
            .to_string(),
    ];
    if metrics.is_empty() {
        done.push(format!(
            "{CONFIG} lists no metrics; add yours there and run `rkb edit --plugins grafana` again"
        ));
    } else {
        plan.create(CUSTOM_DASHBOARD, custom_dashboard(&metrics), true)?;
        done.push(format!(
            "{CUSTOM_DASHBOARD}: {} panel(s) from {CONFIG}",
            metrics.len()
        ));
    }
    Ok(done)
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct Config {
    #[serde(default)]
    custom_metrics: Option<Vec<CustomMetric>>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct CustomMetric {
    metric: String,
    #[serde(rename = "type", default)]
    kind: Option<String>,
    #[serde(default)]
    expr: Option<String>,
    #[serde(default)]
    unit: Option<String>,
}

/// A metric with the query and unit its panel shows.
#[derive(Debug)]
struct Panel {
    metric: String,
    expr: String,
    unit: String,
}

const SELECTOR: &str = r#"{job="$job", namespace="$namespace"}"#;

fn read_config(text: &str) -> Result<Vec<Panel>> {
    let config: Config = serde_saphyr::from_str(text).map_err(|err| {
        anyhow::anyhow!(
            "{CONFIG}: {err}\n  help: each entry of customMetrics takes metric, type, expr and unit (see the comments at the top of the file)"
        )
    })?;
    let mut panels = Vec::new();
    for (index, item) in config
        .custom_metrics
        .unwrap_or_default()
        .into_iter()
        .enumerate()
    {
        let name = &item.metric;
        let expr = match (item.expr, item.kind.as_deref().map(str::to_ascii_lowercase)) {
            (Some(expr), _) => expr,
            (None, Some(kind)) if kind == "counter" => {
                format!("sum by (instance) (rate({name}{SELECTOR}[5m]))")
            }
            (None, Some(kind)) if kind == "gauge" => format!("{name}{SELECTOR}"),
            (None, Some(kind)) if kind == "histogram" => format!(
                "histogram_quantile(0.90, sum by (instance, le) (rate({name}_bucket{SELECTOR}[5m])))"
            ),
            (None, kind) => bail!(
                "{CONFIG}: customMetrics[{index}] ({name}): type is {}\n  help: set type to counter, gauge or histogram, or give the PromQL to plot in expr",
                kind.map_or("missing".to_string(), |k| format!("`{k}`"))
            ),
        };
        let unit = item.unit.unwrap_or_else(|| guessed_unit(name).to_string());
        panels.push(Panel {
            metric: name.clone(),
            expr,
            unit,
        });
    }
    Ok(panels)
}

/// Prometheus' naming conventions put the base unit at the end of the name.
fn guessed_unit(metric: &str) -> &'static str {
    let base = metric.trim_end_matches("_total");
    if base.ends_with("_seconds") {
        "s"
    } else if base.ends_with("_bytes") {
        "bytes"
    } else if base.ends_with("_ratio") {
        "percentunit"
    } else {
        "none"
    }
}

fn custom_dashboard(panels: &[Panel]) -> String {
    let datasource = json!({"type": "prometheus", "uid": "${DS_PROMETHEUS}"});
    let panels: Vec<Value> = panels
        .iter()
        .enumerate()
        .map(|(i, panel)| {
            json!({
                "id": i + 1,
                "type": "timeseries",
                "title": panel.metric,
                "datasource": datasource,
                "gridPos": {"h": 8, "w": 12, "x": (i % 2) * 12, "y": (i / 2) * 8},
                "fieldConfig": {"defaults": {"unit": panel.unit}, "overrides": []},
                "targets": [{"datasource": datasource, "expr": panel.expr, "legendFormat": "{{instance}}", "refId": "A"}],
            })
        })
        .collect();
    let variable = |name: &str, query: &str, refresh: u8| {
        json!({"name": name, "label": name, "type": "query", "datasource": datasource, "refresh": refresh,
               "definition": query, "query": {"query": query, "refId": "PrometheusVariableQueryEditor-VariableQuery"},
               "includeAll": false, "multi": false, "sort": 1, "current": {}, "options": [], "hide": 0})
    };
    let dashboard = json!({
        "description": "Generated by `rkb edit --plugins grafana` from grafana/custom-metrics/config.yaml; edit that file and run it again.",
        "annotations": {"list": []},
        "editable": true,
        "graphTooltip": 1,
        "links": [],
        "panels": panels,
        "refresh": "30s",
        "schemaVersion": 39,
        "tags": ["rkb", "controller"],
        "templating": {"list": [
            {"name": "DS_PROMETHEUS", "label": "Data source", "type": "datasource", "query": "prometheus",
             "current": {}, "options": [], "hide": 0, "refresh": 1},
            variable("namespace", "label_values(controller_runtime_reconcile_total, namespace)", 1),
            variable("job", r#"label_values(controller_runtime_reconcile_total{namespace=~"$namespace"}, job)"#, 2),
        ]},
        "time": {"from": "now-1h", "to": "now"},
        "timezone": "browser",
        "title": "Custom metrics",
        "uid": "rkb-custom-metrics",
        "version": 1,
    });
    serde_json::to_string_pretty(&dashboard).expect("a JSON value serializes") + "\n"
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_type_gets_its_query_and_units_follow_the_name() {
        let panels = read_config(
            "customMetrics:\n- metric: app_sync_seconds\n  type: histogram\n- metric: app_jobs_total\n  type: Counter\n- metric: app_size_bytes\n  type: gauge\n- metric: app_x\n  expr: up\n  unit: percent\n",
        )
        .unwrap();
        let got: Vec<_> = panels
            .iter()
            .map(|p| (p.expr.as_str(), p.unit.as_str()))
            .collect();
        assert_eq!(
            got,
            [
                (
                    r#"histogram_quantile(0.90, sum by (instance, le) (rate(app_sync_seconds_bucket{job="$job", namespace="$namespace"}[5m])))"#,
                    "s"
                ),
                (
                    r#"sum by (instance) (rate(app_jobs_total{job="$job", namespace="$namespace"}[5m]))"#,
                    "none"
                ),
                (
                    r#"app_size_bytes{job="$job", namespace="$namespace"}"#,
                    "bytes"
                ),
                ("up", "percent"),
            ]
        );
    }

    #[test]
    fn an_entry_without_type_or_expr_is_refused() {
        let err = read_config("customMetrics:\n- metric: app_x\n  type: summary\n")
            .unwrap_err()
            .to_string();
        assert_eq!(
            err,
            "grafana/custom-metrics/config.yaml: customMetrics[0] (app_x): type is `summary`\n  help: set type to counter, gauge or histogram, or give the PromQL to plot in expr"
        );
    }

    #[test]
    fn the_scaffolded_config_lists_nothing() {
        let (_, config) = rkb_templates::GRAFANA
            .iter()
            .find(|(path, _)| *path == CONFIG)
            .unwrap();
        assert!(read_config(config).unwrap().is_empty());
    }
}
