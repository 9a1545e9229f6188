//! Every CRD rkb generates for the corpus is accepted by a real kube-apiserver and becomes Established.
//! The server applies the rules no YAML comparison can: structural schemas, CEL compilation and cost
//! limits, defaults against their schema, list-map keys.

use std::path::{Path, PathBuf};

use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinition;
use kube::Api;
use kube::api::ListParams;
use rkb_envtest::Environment;
use rkb_manifests::Options;

fn corpus_cases() -> Vec<PathBuf> {
    let corpus = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/corpus");
    let mut cases: Vec<PathBuf> = std::fs::read_dir(&corpus)
        .expect("tests/corpus exists")
        .map(|e| e.expect("readable corpus").path())
        .filter(|p| p.join("src").is_dir())
        .collect();
    cases.sort();
    cases
}

#[tokio::test]
async fn every_corpus_crd_is_established_on_a_real_apiserver() {
    let mut names = Vec::new();
    let mut documents = Vec::new();
    for case in corpus_cases() {
        let output = rkb_manifests::generate(&case, &Options::default())
            .unwrap_or_else(|err| panic!("{}: generation failed:\n{err}", case.display()));
        for crd in output.crds {
            let parsed: CustomResourceDefinition =
                serde_yaml::from_str(&crd.yaml).unwrap_or_else(|err| {
                    panic!("{} {}: not a CRD: {err}", case.display(), crd.file_name)
                });
            names.push(parsed.metadata.name.clone().expect("CRDs are named"));
            documents.push(crd.yaml);
        }
    }
    assert!(
        names.len() >= 50,
        "the corpus should yield at least 50 CRDs, got {}",
        names.len()
    );
    let mut unique = names.clone();
    unique.sort();
    unique.dedup();
    assert_eq!(
        unique.len(),
        names.len(),
        "corpus cases must own distinct CRD names"
    );

    // The builder installs them before returning and fails with the server's message on any rejection,
    // or when one does not become Established.
    let env = Environment::builder()
        .crd_yaml(documents.join("\n---\n"))
        .start()
        .await
        .unwrap_or_else(|err| panic!("the API server refused a corpus CRD:\n{err}"));

    let crds: Api<CustomResourceDefinition> = Api::all(env.client());
    let listed = crds.list(&ListParams::default()).await.expect("list CRDs");
    let mut established: Vec<String> = listed
        .items
        .iter()
        .filter(|crd| {
            crd.status
                .as_ref()
                .and_then(|s| s.conditions.as_ref())
                .is_some_and(|conditions| {
                    conditions
                        .iter()
                        .any(|c| c.type_ == "Established" && c.status == "True")
                })
        })
        .filter_map(|crd| crd.metadata.name.clone())
        .collect();
    established.sort();
    assert_eq!(
        established, unique,
        "every generated CRD must be Established"
    );
}
