//! The project's kustomize output, as the chart's source: `kubectl kustomize config/default` (what `make deploy`
//! and `make build-installer` apply), split into its documents, each kept as kustomize printed it (the chart's
//! templates are that text with values put in) and parsed once for its kind, name and namespace.
//!
//! The ServiceMonitor and the NetworkPolicies a project has in config/prometheus and config/network-policy but
//! leaves out of config/default are rendered too, through a throw-away overlay with config/default's namespace
//! and name prefix, so the chart can offer them behind `prometheus.enabled` and `networkPolicy.enabled` (off).

use std::path::Path;
use std::process::Command;

use anyhow::{Context, Result, bail};
use serde_json::Value;

/// One object of the render.
#[derive(Debug, Clone)]
pub(super) struct Document {
    /// The document's YAML as kustomize printed it (no `---`), ending in a newline.
    pub text: String,
    pub kind: String,
    pub api_version: String,
    pub name: String,
    /// The document parsed.
    pub value: Value,
    /// Whether config/default renders it (false: an optional piece rendered beside it, off by default).
    pub deployed: bool,
}

impl Document {
    pub fn group(&self) -> &str {
        self.api_version
            .rsplit_once('/')
            .map_or("", |(group, _)| group)
    }
}

/// The render of config/default, and where its objects go.
#[derive(Debug)]
pub(super) struct Render {
    pub documents: Vec<Document>,
    /// The namespace kustomize put the objects in (`<project>-system`).
    pub namespace: String,
}

/// The kustomize folders whose objects the chart offers even when config/default leaves them out.
const OPTIONAL: [&str; 2] = ["config/prometheus", "config/network-policy"];

/// Renders config/default (and the optional folders it does not include). Any kustomize failure is the run's
/// error, with kustomize's own message, so nothing is written.
pub(super) fn render(root: &Path, prefix: &str) -> Result<Render> {
    let text = kustomize(root, Path::new("config/default"))?;
    let mut documents = split(&text, true)?;
    let namespace = documents
        .iter()
        .find(|doc| doc.kind == "Namespace")
        .map(|doc| doc.name.clone())
        .with_context(|| {
            "config/default renders no Namespace; the chart installs into the release's namespace and takes the one `make deploy` uses from it\n  help: keep `../manager` (with its Namespace) in config/default/kustomization.yaml's resources"
        })?;
    let optional = optional_overlay(root, &documents, &namespace, prefix)?;
    documents.extend(optional);
    Ok(Render {
        documents,
        namespace,
    })
}

/// `kubectl kustomize <dir>` in the project ($KUBECTL, as the Makefile's KUBECTL, else kubectl).
fn kustomize(root: &Path, dir: &Path) -> Result<String> {
    let kubectl = std::env::var("KUBECTL").unwrap_or_else(|_| "kubectl".into());
    let out = Command::new(&kubectl)
        .arg("kustomize")
        .arg(dir)
        .current_dir(root)
        .output()
        .with_context(|| {
            format!("cannot run `{kubectl} kustomize`: the helm plugin renders config/default with it\n  help: install kubectl, or set KUBECTL to its path")
        })?;
    if !out.status.success() {
        bail!(
            "`{kubectl} kustomize {}` failed, so there is no chart to generate:\n{}\n  help: fix the kustomization (`make build-installer` shows the same error) and run again",
            dir.display(),
            String::from_utf8_lossy(&out.stderr).trim_end()
        );
    }
    String::from_utf8(out.stdout).context("kustomize printed text that is not UTF-8")
}

/// The render's documents (`---`-separated), with their identity read.
fn split(text: &str, deployed: bool) -> Result<Vec<Document>> {
    let mut documents = Vec::new();
    for chunk in text.split("\n---\n") {
        let chunk = chunk.strip_prefix("---\n").unwrap_or(chunk).trim_end();
        if chunk.is_empty() {
            continue;
        }
        let value: Value = serde_saphyr::from_str(chunk)
            .with_context(|| format!("kustomize printed YAML rkb cannot read:\n{chunk}"))?;
        let field = |path: &[&str]| {
            path.iter()
                .try_fold(&value, |v, key| v.get(key))
                .and_then(Value::as_str)
                .unwrap_or_default()
                .to_string()
        };
        documents.push(Document {
            text: format!("{chunk}\n"),
            kind: field(&["kind"]),
            api_version: field(&["apiVersion"]),
            name: field(&["metadata", "name"]),
            value,
            deployed,
        });
    }
    Ok(documents)
}

/// Renders the optional folders config/default leaves out through an overlay in a temporary directory, with
/// config/default's namespace and name prefix.
fn optional_overlay(
    root: &Path,
    deployed: &[Document],
    namespace: &str,
    prefix: &str,
) -> Result<Vec<Document>> {
    let has = |kind: &str| deployed.iter().any(|doc| doc.kind == kind);
    let missing: Vec<&str> = OPTIONAL
        .into_iter()
        .filter(|dir| root.join(dir).join("kustomization.yaml").is_file())
        .filter(|dir| match *dir {
            "config/prometheus" => !has("ServiceMonitor"),
            _ => !has("NetworkPolicy"),
        })
        .collect();
    if missing.is_empty() {
        return Ok(Vec::new());
    }
    let overlay = tempfile::tempdir().context("cannot create a temporary directory")?;
    let resolve = |dir: &Path| {
        dir.canonicalize()
            .with_context(|| format!("cannot resolve {}", dir.display()))
    };
    // kustomize refuses absolute paths to bases: the folders are named from the overlay, through the root.
    let up = "../".repeat(resolve(overlay.path())?.components().count() - 1);
    let root = resolve(root)?;
    let root = root.strip_prefix("/").unwrap_or(&root);
    let resources: String = missing
        .iter()
        .map(|dir| format!("- {up}{}\n", root.join(dir).display()))
        .collect();
    std::fs::write(
        overlay.path().join("kustomization.yaml"),
        format!("namespace: {namespace}\nnamePrefix: {prefix}\nresources:\n{resources}"),
    )
    .context("cannot write the temporary kustomization")?;
    split(&kustomize(overlay.path(), Path::new("."))?, false)
}
