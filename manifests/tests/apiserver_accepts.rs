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
            let parsed: CustomResourceDefinition = serde_saphyr::from_str(&crd.yaml)
                .unwrap_or_else(|err| {
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

/// Removes every `key` from a JSON tree; returns how many it removed.
fn strip_key(v: &mut serde_json::Value, key: &str) -> usize {
    match v {
        serde_json::Value::Object(m) => {
            let here = usize::from(m.remove(key).is_some());
            here + m.values_mut().map(|c| strip_key(c, key)).sum::<usize>()
        }
        serde_json::Value::Array(items) => items.iter_mut().map(|c| strip_key(c, key)).sum(),
        _ => 0,
    }
}

/// The `spec` property's schema in the first version of `crd`, where each breaker starts.
fn spec_schema(crd: &mut serde_json::Value) -> &mut serde_json::Value {
    &mut crd["spec"]["versions"][0]["schema"]["openAPIV3Schema"]["properties"]["spec"]
}

/// A CEL rule over every pair of ports: over an unbounded list (of up to 3 MiB / 13 bytes items) its estimated
/// cost is over the API server's limit per rule; rkb's lower bound is too (errors.rs has rkb's side).
fn add_pairwise_rule(crd: &mut serde_json::Value) {
    spec_schema(crd)["properties"]["ports"]["x-kubernetes-validations"] =
        serde_json::json!([{"rule": "self.all(x, self.exists_one(y, y.name == x.name))"}]);
}

/// A default for each port's name, with a rule it must satisfy (errors.rs has rkb's side).
fn add_name_rule(crd: &mut serde_json::Value, default: &str) {
    let name = &mut spec_schema(crd)["properties"]["ports"]["items"]["properties"]["name"];
    name["default"] = default.into();
    let mut rules = name["x-kubernetes-validations"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    rules.push(serde_json::json!({"rule": "self.size() >= 2"}));
    name["x-kubernetes-validations"] = rules.into();
}

/// Eleven cheap rules (cost 9 each) on each port's name: under an unbounded list they run 3 MiB / 3 bytes =
/// 1048576 times, 9437184 each (under the limit per rule) but 103809024 together (over the limit per schema).
fn add_cheap_rules(crd: &mut serde_json::Value) {
    let rules: Vec<serde_json::Value> = (0..11)
        .map(|i| {
            let rule = format!(
                "self.size() > 1 && self.size() < {} && self.size() >= 2",
                60 + i
            );
            serde_json::json!({ "rule": rule })
        })
        .collect();
    spec_schema(crd)["properties"]["ports"]["items"]["properties"]["name"]["x-kubernetes-validations"] =
        rules.into();
}

/// Changes to a CRD the API server refuses.
type Breaker = fn(&mut serde_json::Value) -> bool;

/// The API server's rules rkb checks before writing, each as (rule, what breaks it in the valid CRD of
/// `the_api_server_refuses_what_rkb_refuses`, what the server says).
fn breakers() -> [(&'static str, Breaker, &'static str); 13] {
    [
        (
            "+listType=map needs +listMapKey",
            |crd| strip_key(crd, "x-kubernetes-list-map-keys") > 0,
            "x-kubernetes-list-map-keys",
        ),
        (
            "a map key is a field of the items",
            |crd| {
                let ports = &mut spec_schema(crd)["properties"]["ports"];
                ports["x-kubernetes-list-map-keys"] = serde_json::json!(["nope"]);
                true
            },
            "x-kubernetes-list-map-keys",
        ),
        (
            "a map key is required or defaulted",
            |crd| {
                let items = &mut spec_schema(crd)["properties"]["ports"]["items"];
                items
                    .as_object_mut()
                    .is_some_and(|i| i.remove("required").is_some())
            },
            "must have a default or be a required property",
        ),
        (
            "a default has its field's type",
            |crd| {
                let name =
                    &mut spec_schema(crd)["properties"]["ports"]["items"]["properties"]["name"];
                name["default"] = serde_json::json!(5);
                true
            },
            "must be of type string",
        ),
        (
            "a string default matches its field's pattern",
            |crd| {
                let name =
                    &mut spec_schema(crd)["properties"]["ports"]["items"]["properties"]["name"];
                name["pattern"] = serde_json::json!("^[a-z]+$");
                name["default"] = serde_json::json!("Web_1");
                true
            },
            "should match",
        ),
        (
            "a string default has its field's format",
            |crd| {
                let name =
                    &mut spec_schema(crd)["properties"]["ports"]["items"]["properties"]["name"];
                name["format"] = serde_json::json!("date-time");
                name["default"] = serde_json::json!("yesterday");
                true
            },
            "date-time",
        ),
        (
            "a string default has its field's format (one of those formats.rs added: cidr)",
            |crd| {
                let name =
                    &mut spec_schema(crd)["properties"]["ports"]["items"]["properties"]["name"];
                name["format"] = serde_json::json!("cidr");
                name["default"] = serde_json::json!("10.0.0.0/33");
                true
            },
            "cidr",
        ),
        (
            "an object default names only the object's fields",
            |crd| {
                let spec = spec_schema(crd);
                spec["default"] = serde_json::json!({"ports": [], "colour": "red"});
                true
            },
            "unknown field",
        ),
        (
            "an object default holds its required fields itself (their own defaults do not count)",
            |crd| {
                let spec = spec_schema(crd);
                spec["properties"]["limits"] = serde_json::json!({
                    "type": "object",
                    "properties": {"min": {"type": "integer", "default": 5}},
                    "required": ["min"],
                    "default": {}
                });
                true
            },
            "Required value",
        ),
        (
            "a default satisfies its field's CEL rules",
            |crd| {
                add_name_rule(crd, "a");
                true
            },
            "failed rule: self.size() >= 2",
        ),
        (
            "an object default satisfies its CEL rules",
            |crd| {
                let spec = spec_schema(crd);
                spec["default"] = serde_json::json!({"ports": [{"name": "web"}]});
                spec["x-kubernetes-validations"] =
                    serde_json::json!([{"rule": "self.ports.all(p, p.name != 'web')"}]);
                true
            },
            "failed rule: self.ports.all(p, p.name != 'web')",
        ),
        (
            "a CEL rule's estimated cost is within the limit per rule",
            |crd| {
                add_pairwise_rule(crd);
                true
            },
            "estimated rule cost exceeds budget",
        ),
        (
            "the CEL rules' estimated costs are within the limit per schema",
            |crd| {
                add_cheap_rules(crd);
                true
            },
            "rule cost total for entire OpenAPIv3 schema exceeds budget",
        ),
    ]
}

/// The structural rules rkb checks before writing are rules the API server enforces: for each, the CRD rkb
/// refuses to write (made here by removing what rkb requires from a valid one) is refused by the server, with
/// the server's reason, while the valid CRD is accepted.
#[tokio::test]
async fn the_api_server_refuses_what_rkb_refuses() {
    let dir = tempfile::tempdir().unwrap();
    let files = [
        (
            "Cargo.toml",
            "[package]\nname = \"t\"\nversion = \"0.1.0\"\n",
        ),
        ("src/lib.rs", "pub mod api;\n"),
        ("src/api/mod.rs", "pub mod v1;\n"),
        (
            "src/api/v1/mod.rs",
            "//! +groupName=rules.example.com\nmod thing_types;\n",
        ),
        (
            "src/api/v1/thing_types.rs",
            "use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;
/// +kubebuilder:object:root=true
pub struct Thing {
    #[serde(default)]
    pub metadata: ObjectMeta,
    pub spec: ThingSpec,
}
pub struct ThingSpec {
    /// +listType=map
    /// +listMapKey=name
    pub ports: Vec<Port>,
}
pub struct Port {
    pub name: String,
}
",
        ),
    ];
    for (rel, text) in files {
        let path = dir.path().join(rel);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }
    let out = rkb_manifests::generate(dir.path(), &Options::default()).unwrap();
    let valid: serde_json::Value = serde_saphyr::from_str(&out.crds[0].yaml).unwrap();

    let env = Environment::start().await.expect("envtest");
    let crds: Api<CustomResourceDefinition> = Api::all(env.client());
    let post = kube::api::PostParams::default();
    for (rule, breaker, reason) in breakers() {
        let mut broken = valid.clone();
        assert!(breaker(&mut broken), "{rule}: nothing to break");
        let broken: CustomResourceDefinition = serde_json::from_value(broken).unwrap();
        let err = crds.create(&post, &broken).await.expect_err(&format!(
            "{rule}: the API server accepted the CRD rkb refuses"
        ));
        assert!(err.to_string().contains(reason), "{rule}: {err}");
        // The cheap rules are refused together only, as rkb says.
        assert!(
            rule.contains("per rule") || !err.to_string().contains("estimated rule cost exceeds"),
            "{rule}: {err}"
        );
    }
    // With the bounds rkb's hints ask for, and a default that satisfies its rule, the same rules are accepted.
    let mut valid = valid;
    add_pairwise_rule(&mut valid);
    add_cheap_rules(&mut valid);
    add_name_rule(&mut valid, "ab");
    let ports = &mut spec_schema(&mut valid)["properties"]["ports"];
    ports["maxItems"] = 64.into();
    ports["items"]["properties"]["name"]["maxLength"] = 63.into();
    let valid: CustomResourceDefinition = serde_json::from_value(valid).unwrap();
    crds.create(&post, &valid)
        .await
        .expect("the valid CRD is accepted");
}

/// The webhook configurations rkb writes for the corpus are accepted by the API server; and for each webhook
/// rule rkb checks before writing, a configuration breaking it (made from a valid one) is refused by the server.
#[tokio::test]
async fn webhook_configurations_are_accepted_and_what_rkb_refuses_is_refused() {
    use k8s_openapi::api::admissionregistration::v1::{
        MutatingWebhookConfiguration, ValidatingWebhookConfiguration,
    };
    use kube::api::{DeleteParams, PostParams};

    let mut documents = Vec::new();
    for case in corpus_cases() {
        let output = rkb_manifests::generate(&case, &Options::default())
            .unwrap_or_else(|err| panic!("{}: generation failed:\n{err}", case.display()));
        if let Some(text) = output.webhooks {
            let docs: Vec<serde_json::Value> = serde_saphyr::from_multiple(&text).unwrap();
            documents.extend(docs);
        }
    }
    assert!(
        documents.len() >= 2,
        "the corpus should have a mutating and a validating configuration"
    );
    let env = Environment::builder()
        .start()
        .await
        .expect("envtest starts");
    let mutating: Api<MutatingWebhookConfiguration> = Api::all(env.client());
    let validating: Api<ValidatingWebhookConfiguration> = Api::all(env.client());
    // Creates `doc` as the kind it says; Err(the server's message) when refused. Accepted ones are deleted
    // again, so the configurations never intercept anything.
    let create = |doc: serde_json::Value| {
        let (mutating, validating) = (mutating.clone(), validating.clone());
        async move {
            let pp = PostParams::default();
            let name = doc["metadata"]["name"].as_str().unwrap().to_string();
            let result = if doc["kind"] == "MutatingWebhookConfiguration" {
                let created = mutating
                    .create(&pp, &serde_json::from_value(doc).unwrap())
                    .await;
                if created.is_ok() {
                    mutating
                        .delete(&name, &DeleteParams::default())
                        .await
                        .unwrap();
                }
                created.map(|_| ())
            } else {
                let created = validating
                    .create(&pp, &serde_json::from_value(doc).unwrap())
                    .await;
                if created.is_ok() {
                    validating
                        .delete(&name, &DeleteParams::default())
                        .await
                        .unwrap();
                }
                created.map(|_| ())
            };
            result.map_err(|e| e.to_string())
        }
    };
    for doc in &documents {
        create(doc.clone())
            .await
            .unwrap_or_else(|e| panic!("the API server refused {}:\n{e}", doc["metadata"]["name"]));
    }

    let valid = documents
        .iter()
        .find(|d| d["kind"] == "MutatingWebhookConfiguration")
        .unwrap()
        .clone();
    type Breaker = fn(&mut serde_json::Value);
    let rules: [(&str, Breaker, &str); 6] = [
        (
            "failurePolicy",
            |d| d["webhooks"][0]["failurePolicy"] = "Retry".into(),
            "failurePolicy",
        ),
        (
            "sideEffects",
            |d| d["webhooks"][0]["sideEffects"] = "Some".into(),
            "sideEffects",
        ),
        (
            "timeoutSeconds",
            |d| d["webhooks"][0]["timeoutSeconds"] = 31.into(),
            "timeoutSeconds",
        ),
        (
            "operations",
            |d| d["webhooks"][0]["rules"][0]["operations"] = serde_json::json!(["PATCH"]),
            "operations",
        ),
        (
            "* alone",
            |d| d["webhooks"][0]["rules"][0]["operations"] = serde_json::json!(["CREATE", "*"]),
            "if '*' is present, must not specify other operations",
        ),
        (
            "unique names",
            |d| {
                let first = d["webhooks"][0].clone();
                d["webhooks"].as_array_mut().unwrap().push(first);
            },
            "Duplicate value",
        ),
    ];
    for (rule, break_it, says) in rules {
        let mut broken = valid.clone();
        break_it(&mut broken);
        let refused = create(broken).await.expect_err(&format!(
            "the API server accepted a configuration breaking {rule}"
        ));
        assert!(refused.contains(says), "{rule}: {refused}");
    }
}
