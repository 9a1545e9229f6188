//! Installing CRDs: read YAML (files, directories, multi-document), create or update each CRD,
//! wait until the server has Established them all.

use std::path::Path;
use std::time::{Duration, Instant};

use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinition;
use kube::api::{Api, PostParams};
use kube::{Client, ResourceExt};
use serde::Deserialize;

use crate::error::{Error, Result, io_err};

/// A CRD with where it was read from, for error messages.
pub(crate) struct SourcedCrd {
    pub source: String,
    pub crd: CustomResourceDefinition,
}

/// Every CRD in the `*.yaml` / `*.yml` files directly inside `dir`, in file name order.
/// Documents of other kinds (a kustomization, a patch) are skipped, as envtest does.
pub(crate) fn read_dir(dir: &Path) -> Result<Vec<SourcedCrd>> {
    if !dir.is_dir() {
        return Err(Error::CrdDirMissing(dir.to_path_buf()));
    }
    let mut files: Vec<_> = std::fs::read_dir(dir)
        .map_err(io_err(dir))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| {
            p.is_file()
                && p.extension()
                    .is_some_and(|ext| ext == "yaml" || ext == "yml")
        })
        .collect();
    files.sort();
    let mut crds = Vec::new();
    for file in files {
        let text = std::fs::read_to_string(&file).map_err(io_err(&file))?;
        crds.extend(parse(&text, &file.display().to_string())?);
    }
    Ok(crds)
}

/// The CRDs in one YAML text; `source` names it in errors.
pub(crate) fn parse(text: &str, source: &str) -> Result<Vec<SourcedCrd>> {
    let mut crds = Vec::new();
    for (i, doc) in serde_yaml::Deserializer::from_str(text).enumerate() {
        let parse_err = |message: String| Error::CrdParse {
            path: source.into(),
            index: i + 1,
            message,
        };
        let value = serde_yaml::Value::deserialize(doc).map_err(|e| parse_err(e.to_string()))?;
        if value.get("kind").and_then(|k| k.as_str()) != Some("CustomResourceDefinition") {
            continue;
        }
        let crd: CustomResourceDefinition =
            serde_yaml::from_value(value).map_err(|e| parse_err(e.to_string()))?;
        crds.push(SourcedCrd {
            source: source.to_string(),
            crd,
        });
    }
    Ok(crds)
}

/// Creates (or replaces) each CRD, then waits until all are Established.
pub(crate) async fn install(
    client: &Client,
    crds: Vec<SourcedCrd>,
    timeout: Duration,
) -> Result<Vec<CustomResourceDefinition>> {
    let api: Api<CustomResourceDefinition> = Api::all(client.clone());
    let mut names = Vec::with_capacity(crds.len());
    for SourcedCrd { source, mut crd } in crds {
        let name = crd.name_any();
        let rejected = |e: kube::Error| match e {
            kube::Error::Api(status) => Error::CrdRejected {
                name: name.clone(),
                source_name: source.clone(),
                message: status.message,
            },
            other => Error::Kube(other),
        };
        // No resourceVersion may be sent on create.
        crd.metadata.resource_version = None;
        match api.create(&PostParams::default(), &crd).await {
            Ok(_) => {}
            Err(kube::Error::Api(status)) if status.is_already_exists() => {
                let existing = api.get(&name).await?;
                crd.metadata.resource_version = existing.metadata.resource_version;
                api.replace(&name, &PostParams::default(), &crd)
                    .await
                    .map_err(rejected)?;
            }
            Err(e) => return Err(rejected(e)),
        }
        names.push(name);
    }
    let mut established = Vec::with_capacity(names.len());
    for name in names {
        established.push(wait_established(&api, &name, timeout).await?);
    }
    Ok(established)
}

async fn wait_established(
    api: &Api<CustomResourceDefinition>,
    name: &str,
    timeout: Duration,
) -> Result<CustomResourceDefinition> {
    let deadline = Instant::now() + timeout;
    loop {
        let crd = api.get(name).await?;
        let conditions = crd
            .status
            .as_ref()
            .and_then(|s| s.conditions.clone())
            .unwrap_or_default();
        let is = |ty: &str, status: &str| {
            conditions
                .iter()
                .any(|c| c.type_ == ty && c.status == status)
        };
        if is("Established", "True") {
            return Ok(crd);
        }
        // A name conflict never resolves by waiting.
        if let Some(c) = conditions
            .iter()
            .find(|c| c.type_ == "NamesAccepted" && c.status == "False")
        {
            return Err(Error::CrdRejected {
                name: name.to_string(),
                source_name: "NamesAccepted condition".into(),
                message: c.message.clone().unwrap_or_default(),
            });
        }
        if Instant::now() >= deadline {
            let conditions = conditions
                .iter()
                .map(|c| {
                    format!(
                        "{}={} ({})",
                        c.type_,
                        c.status,
                        c.message.as_deref().unwrap_or("")
                    )
                })
                .collect::<Vec<_>>()
                .join(", ");
            return Err(Error::CrdNotEstablished {
                name: name.to_string(),
                timeout,
                conditions,
            });
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_multi_document_yaml_and_skips_other_kinds() {
        let yaml = "---\napiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\n---\n\
apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nmetadata:\n  name: a.example.com\n\
spec:\n  group: example.com\n  names: {kind: A, plural: a}\n  scope: Namespaced\n  versions: []\n---\n";
        let crds = parse(yaml, "x.yaml").unwrap();
        assert_eq!(crds.len(), 1);
        assert_eq!(crds[0].crd.name_any(), "a.example.com");
    }

    #[test]
    fn a_broken_crd_names_file_and_document() {
        let yaml = "kind: Other\n---\napiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\nspec: 3\n";
        let err = parse(yaml, "bad.yaml").err().unwrap().to_string();
        assert!(err.starts_with("bad.yaml: document 2:"), "{err}");
    }

    #[test]
    fn a_missing_directory_is_an_error() {
        let err = read_dir(Path::new("/nonexistent/crds")).err().unwrap();
        assert!(matches!(err, Error::CrdDirMissing(_)));
    }
}
