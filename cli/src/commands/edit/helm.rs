//! `rkb edit --plugins helm`: kubebuilder's helm/v2-alpha plugin for an rkb project. It writes `dist/chart`, a Helm
//! chart generated from `kubectl kustomize config/default` (what `make deploy` applies), so that the chart with its
//! default values (and a release named after the project) installs the same objects, field for field, except the
//! Namespace (Helm installs into the release's namespace) and the labels and annotations Helm adds.
//!
//! - `templates/`: one file per object, in kubebuilder's folders (crd/, rbac/, manager/, metrics/, webhook/,
//!   cert-manager/, prometheus/, network-policy/), each kustomize's text with values put in (see [`template`] and
//!   [`manager`]). They are rkb's: every run rewrites them, and removes those it generated earlier for objects the
//!   render no longer has (a generated file starts with [`template::GENERATED`]); other files there are kept.
//! - `values.yaml`: see [`values`]: written once with the render's values as defaults, then the user's, with only
//!   missing keys added. `Chart.yaml` (the user bumps its version), `.helmignore`, `README.md`,
//!   `templates/_helpers.tpl` and `templates/NOTES.txt` are written when missing and kept afterwards.
//! - The project's Makefile gets `helm-chart` (this command), `helm-lint`, `helm-deploy`, `helm-uninstall`,
//!   `helm-status`, `helm-history` and `helm-rollback` once (when it has no `helm-chart:` target), and
//!   `.github/workflows/test-chart.yml` is written when missing (Kind, cert-manager when the project has
//!   webhooks, `make helm-deploy`).
//!
//! kubebuilder renders dist/install.yaml with `make build-installer` first and reads that; rkb renders config/default
//! itself, so an unrelated stale dist/install.yaml does not matter. A render that fails refuses the run, with
//! kustomize's message, and nothing is written. PROJECT has no plugins section in rkb, so nothing is recorded there:
//! the chart's presence (dist/chart/Chart.yaml) is the record, and `make helm-chart` the way to run it again.

mod manager;
mod render;
mod template;
mod values;
mod yaml_lines;

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use anyhow::{Result, bail};

use super::files_below;
use crate::project_config::ProjectConfig;
use crate::scaffold::Plan;
use render::Document;
use template::{Chart, GENERATED, Template};

const CHART_DIR: &str = "dist/chart";
const WORKFLOW: &str = ".github/workflows/test-chart.yml";
/// The helm release test-chart.yml installs (hack/install-helm.sh pins the same one for rkb's own tests).
const HELM_VERSION: &str = "v3.22.0";

/// Plans the chart, the Makefile targets and the workflow; returns what was done, for the summary.
pub(super) fn plan(plan: &mut Plan, config: &ProjectConfig) -> Result<Vec<String>> {
    let project = &config.project_name;
    let prefix = format!("{project}-");
    let render = render::render(plan.root(), &prefix)?;
    let deployment = manager_deployment(&render.documents)?;
    let manager = manager::read_values(&deployment.text)?;
    let deployed = |kind: &str| {
        render
            .documents
            .iter()
            .any(|doc| doc.deployed && doc.kind == kind)
    };
    let offered = |kind: &str| {
        let present = render.documents.iter().any(|doc| doc.kind == kind);
        present.then(|| deployed(kind))
    };
    let features = values::Features {
        // Admission webhooks, or only a conversion webhook (then the webhook Service and --webhook-port alone).
        webhooks: manager.webhook_port.is_some()
            || deployed("MutatingWebhookConfiguration")
            || deployed("ValidatingWebhookConfiguration")
            || render
                .documents
                .iter()
                .any(|doc| doc.deployed && doc.kind == "Service" && doc.name.contains("webhook")),
        cert_manager: render
            .documents
            .iter()
            .any(|doc| doc.deployed && doc.group() == "cert-manager.io"),
        prometheus: offered("ServiceMonitor"),
        network_policy: offered("NetworkPolicy"),
    };
    let chart = Chart {
        name: project.clone(),
        prefix,
        namespace: render.namespace.clone(),
        names: object_names(&render.documents),
        metrics_port: manager.metrics_port.clone(),
        webhook_port: features.webhooks.then(|| {
            manager
                .webhook_port
                .clone()
                .unwrap_or_else(|| "9443".into())
        }),
        cert_manager: features.cert_manager,
    };
    let templates = templates(&render.documents, deployment, &chart)?;

    let mut done = vec![format!(
        "{CHART_DIR}: {} templates from config/default (`make helm-chart` regenerates them; `make helm-deploy` installs the chart)",
        templates.len()
    )];
    write_templates(plan, templates)?;
    let generated_values = values::generate(project, &manager, &features);
    let values_path = PathBuf::from(format!("{CHART_DIR}/values.yaml"));
    if plan.exists(&values_path) {
        let merged = values::merge(&plan.read(&values_path)?, &generated_values)?;
        if merged != plan.read(&values_path)? {
            done.push(format!(
                "{}: added the keys the templates need that it lacked; your values are kept",
                values_path.display()
            ));
        }
        plan.update(values_path, merged)?;
    } else {
        plan.create(values_path, generated_values, false)?;
    }
    for (path, text) in rkb_templates::HELM_CHART {
        if !plan.exists(Path::new(path)) {
            plan.create(path, text.replace("__PROJECT__", project), false)?;
        }
    }
    done.extend(makefile_targets(plan, project)?);
    done.extend(workflow(plan, features.cert_manager)?);
    Ok(done)
}

/// The one Deployment config/default renders: the manager.
fn manager_deployment(documents: &[Document]) -> Result<&Document> {
    let deployments: Vec<&Document> = documents
        .iter()
        .filter(|doc| doc.deployed && doc.kind == "Deployment")
        .collect();
    match deployments.as_slice() {
        [one] => Ok(one),
        _ => bail!(
            "config/default renders {} Deployments; the helm plugin makes its values from the one manager Deployment `rkb init` scaffolds (config/manager/manager.yaml)\n  help: keep one Deployment in config/default, and add other workloads to the chart's templates/ by hand",
            deployments.len()
        ),
    }
}

/// The names kustomize prefixed (every object's but the Namespace's and the CRDs'), longest first, so a name that
/// begins another is replaced only where it stands alone.
fn object_names(documents: &[Document]) -> Vec<String> {
    let mut names: Vec<String> = documents
        .iter()
        .filter(|doc| !matches!(doc.kind.as_str(), "Namespace" | "CustomResourceDefinition"))
        .map(|doc| doc.name.clone())
        .collect::<BTreeSet<_>>()
        .into_iter()
        .collect();
    names.sort_by_key(|name| std::cmp::Reverse(name.len()));
    names
}

/// Every object's template; two that would share a file get their kind in the name.
fn templates(
    documents: &[Document],
    deployment: &Document,
    chart: &Chart,
) -> Result<Vec<Template>> {
    let mut out: Vec<Template> = Vec::new();
    for doc in documents {
        let template = if std::ptr::eq(doc, deployment) {
            let lines = manager::template(&doc.text, chart, &cert_volumes(documents, doc))?;
            Template {
                path: "templates/manager/manager.yaml".into(),
                text: template::generated_file(&lines, None),
            }
        } else if doc.kind == "Deployment" {
            continue; // optional folders hold no Deployment; manager_deployment refused a second deployed one
        } else {
            match template::template(doc, chart) {
                Some(template) => template,
                None => continue,
            }
        };
        let mut template = template;
        if out.iter().any(|t| t.path == template.path) {
            let kind = doc.kind.to_ascii_lowercase();
            template.path = template.path.replace(".yaml", &format!("-{kind}.yaml"));
        }
        out.push(template);
    }
    Ok(out)
}

/// The manager's volumes holding the Secrets cert-manager's Certificates write.
fn cert_volumes(documents: &[Document], deployment: &Document) -> Vec<String> {
    let secrets: Vec<&str> = documents
        .iter()
        .filter(|doc| doc.kind == "Certificate" && doc.group() == "cert-manager.io")
        .filter_map(|doc| doc.value["spec"]["secretName"].as_str())
        .collect();
    deployment.value["spec"]["template"]["spec"]["volumes"]
        .as_array()
        .into_iter()
        .flatten()
        .filter(|volume| {
            volume["secret"]["secretName"]
                .as_str()
                .is_some_and(|secret| secrets.contains(&secret))
        })
        .filter_map(|volume| volume["name"].as_str().map(str::to_string))
        .collect()
}

/// Writes this run's templates and removes those an earlier run generated for objects the render no longer has.
fn write_templates(plan: &mut Plan, templates: Vec<Template>) -> Result<()> {
    let chart = Path::new(CHART_DIR);
    let fresh: BTreeSet<PathBuf> = templates.iter().map(|t| chart.join(&t.path)).collect();
    for rel in files_below(plan.root(), &chart.join("templates"))? {
        let ours = std::fs::read_to_string(plan.root().join(&rel))
            .is_ok_and(|text| text.lines().next() == Some(GENERATED));
        if ours && !fresh.contains(&rel) {
            plan.remove(rel);
        }
    }
    for template in templates {
        let rel = chart.join(&template.path);
        if plan.exists(&rel) {
            plan.update(rel, template.text)?;
        } else {
            plan.create(rel, template.text, false)?;
        }
    }
    Ok(())
}

/// Appends the helm targets to the Makefile, once.
fn makefile_targets(plan: &mut Plan, project: &str) -> Result<Vec<String>> {
    let makefile = Path::new("Makefile");
    if !plan.exists(makefile) {
        return Ok(vec![
            "note: no Makefile, so no helm-* targets; run `rkb edit --plugins helm` again to regenerate the chart".into(),
        ]);
    }
    let text = plan.read(makefile)?;
    if text.lines().any(|line| line.starts_with("helm-chart:")) {
        return Ok(Vec::new());
    }
    let targets = rkb_templates::HELM_MAKEFILE.replace("__PROJECT__", project);
    plan.update(makefile, format!("{}\n{}", text.trim_end(), targets))?;
    Ok(vec![
        "Makefile: helm-chart, helm-lint, helm-deploy, helm-uninstall, helm-status, helm-history, helm-rollback".into(),
    ])
}

/// Writes test-chart.yml when missing; a kept one that installs no cert-manager while the chart needs it is named.
fn workflow(plan: &mut Plan, cert_manager: bool) -> Result<Vec<String>> {
    let path = Path::new(WORKFLOW);
    if plan.exists(path) {
        let text = plan.read(path)?;
        if cert_manager && !text.contains("jetstack/cert-manager") {
            return Ok(vec![format!(
                "note: {WORKFLOW} (yours, kept) installs no cert-manager, which the chart's certificates now need; delete the file and run again to get rkb's"
            )]);
        }
        return Ok(Vec::new());
    }
    let mut lines = Vec::new();
    let mut in_cert_manager = false;
    for line in rkb_templates::HELM_WORKFLOW.lines() {
        match line {
            "# [CERTMANAGER]" => in_cert_manager = true,
            "# [/CERTMANAGER]" => in_cert_manager = false,
            _ if in_cert_manager && !cert_manager => {}
            _ => lines.push(line),
        }
    }
    let text = (lines.join("\n") + "\n")
        .replace("__RKB_VERSION__", env!("CARGO_PKG_VERSION"))
        .replace("__HELM_VERSION__", HELM_VERSION);
    plan.create(path, text, false)?;
    Ok(vec![format!(
        "{WORKFLOW}: lints the chart and installs it into Kind"
    )])
}
