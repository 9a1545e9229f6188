//! Installing CRDs: read YAML (files, directories, multi-document), create or update each CRD,
//! wait until the server has Established them all.

use std::path::Path;
use std::time::{Duration, Instant};

use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinition;
use kube::api::{Api, PostParams};
use kube::{Client, ResourceExt};

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
    for (index, document) in yaml_documents(text) {
        let parse_err = |message: String| Error::CrdParse {
            path: source.into(),
            index,
            message,
        };
        let Some(value) = document.map_err(parse_err)? else {
            continue;
        };
        if value.get("kind").and_then(|k| k.as_str()) != Some("CustomResourceDefinition") {
            continue;
        }
        let crd: CustomResourceDefinition =
            serde_json::from_value(value).map_err(|e| parse_err(e.to_string()))?;
        crds.push(SourcedCrd {
            source: source.to_string(),
            crd,
        });
    }
    Ok(crds)
}

/// One document of a YAML stream: `None` when empty, else its value, or the parser's message.
pub(crate) type Document = std::result::Result<Option<serde_json::Value>, String>;

/// The documents of a YAML stream (CRDs, roles, webhook configurations) with their 1-based index, each parsed on
/// its own so that an error can name its document (an empty one is counted, as a reader counts them; a message's line
/// is the stream's).
///
/// YAML 1.2's core schema, as serde_yaml read it before: `yes` and `on` are strings (the generators quote them
/// anyway). No parser budget: these are the project's own manifests, and the default's depth limit (64) is within
/// reach of a CRD that embeds pod templates (36 levels in examples/cronjob).
pub(crate) fn yaml_documents(text: &str) -> impl Iterator<Item = (usize, Document)> + '_ {
    documents_of(text)
        .into_iter()
        .enumerate()
        .map(|(i, (first_line, document))| {
            let options = serde_saphyr::options! { strict_booleans: true, budget: None };
            let parsed = serde_saphyr::from_str_with_options(document, options).map_err(|err| {
                err.render_with_options(serde_saphyr::render_options! {
                    snippets: serde_saphyr::SnippetMode::Off,
                    line_offset: first_line as u64,
                })
            });
            (i + 1, parsed)
        })
}

/// The documents of a YAML stream as (0-based first line, text). A line that starts with `---` opens a document
/// and one that starts with `...` closes it: YAML forbids both as content at column 0, so this is where the parser
/// splits too. Text before the first `---`, or after a `...`, counts as a document only when it holds more than
/// blank lines, comments and directives.
fn documents_of(text: &str) -> Vec<(usize, &str)> {
    let mut documents = Vec::new();
    let (mut first_line, mut start, mut end) = (0, 0, 0);
    for (n, line) in text.split_inclusive('\n').enumerate() {
        if is_marker(line, "---") && end > start {
            documents.push((first_line, &text[start..end]));
            (first_line, start) = (n, end);
        }
        end += line.len();
        if is_marker(line, "...") {
            documents.push((first_line, &text[start..end]));
            (first_line, start) = (n + 1, end);
        }
    }
    documents.push((first_line, &text[start..end]));
    documents.retain(|(_, document)| {
        is_marker(document, "---")
            || document.lines().map(str::trim_start).any(|line| {
                !(line.is_empty() || line.starts_with(['#', '%']) || is_marker(line, "..."))
            })
    });
    documents
}

/// Whether `line` is the document marker `mark` (`---` or `...`), alone or followed by whitespace.
fn is_marker(line: &str, mark: &str) -> bool {
    line.strip_prefix(mark)
        .is_some_and(|rest| rest.is_empty() || rest.starts_with(char::is_whitespace))
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

    /// Documents are counted as a reader counts them (an empty one too, a leading `---` or comment opening none),
    /// and an error names the stream's line, not the document's.
    #[test]
    fn documents_are_numbered_and_errors_located_in_the_stream() {
        let yaml = "# CRDs\n---\na: yes\n---\n---\nb: [1,\n...\nc: on\n";
        let documents: Vec<_> = yaml_documents(yaml).collect();
        assert_eq!(documents.len(), 4, "{documents:?}");
        assert_eq!(documents[0], (1, Ok(Some(serde_json::json!({"a": "yes"})))));
        assert_eq!(documents[1], (2, Ok(None)));
        let (index, error) = &documents[2];
        assert_eq!(*index, 3);
        assert!(
            error.as_ref().unwrap_err().ends_with("at line 6, column 4"),
            "{error:?}"
        );
        assert_eq!(documents[3], (4, Ok(Some(serde_json::json!({"c": "on"})))));
    }

    #[test]
    fn a_missing_directory_is_an_error() {
        let err = read_dir(Path::new("/nonexistent/crds")).err().unwrap();
        assert!(matches!(err, Error::CrdDirMissing(_)));
    }
}
