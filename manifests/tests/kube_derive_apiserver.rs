//! kube-rs types, adopted, on a real API server: for the kube-rs fixture (tests/fixtures/kube_derive, compiled here
//! as well), rkb's CRD and kube-derive's `crd()` are installed side by side (kube's under a twin group, so both
//! fit in one server) and every sample object gets the same verdict from both: what kube-derive's CRD accepts,
//! rkb's accepts, and what it refuses, rkb's refuses.

#[allow(dead_code)]
#[path = "fixtures/kube_derive/src/api/bare.rs"]
mod bare;
#[allow(dead_code)]
#[path = "fixtures/kube_derive/src/api/foo.rs"]
mod foo;
#[allow(dead_code)]
#[path = "fixtures/kube_derive/src/api/gadget.rs"]
mod gadget;
#[allow(dead_code)]
#[path = "fixtures/kube_derive/src/api/v1/mod.rs"]
mod v1;
#[allow(dead_code)]
#[path = "fixtures/kube_derive/src/api/v2/mod.rs"]
mod v2;

use kube::api::{Api, DynamicObject, PostParams};
use kube::core::{ApiResource, GroupVersionKind};
use kube::{Client, CustomResourceExt};
use rkb_envtest::Environment;
use rkb_manifests::{Options, generate};
use serde_json::{Value, json};
use std::path::Path;

/// The group kube-derive's copy of a CRD is installed under.
fn twin(group: &str) -> String {
    format!("kubederive.{group}")
}

/// kube-derive's CRD, moved to the twin group, as a document the builder installs.
fn kube_document(crd: impl serde::Serialize) -> String {
    let mut crd = serde_json::to_value(crd).unwrap();
    let group = twin(crd["spec"]["group"].as_str().unwrap());
    let plural = crd["spec"]["names"]["plural"].as_str().unwrap().to_string();
    crd["spec"]["group"] = json!(group);
    crd["metadata"]["name"] = json!(format!("{plural}.{group}"));
    crd.to_string()
}

/// One sample object, and whether kube-derive's CRD accepts it (so the samples are known to test both ways).
struct Sample {
    what: &'static str,
    group: &'static str,
    version: &'static str,
    kind: &'static str,
    plural: &'static str,
    namespaced: bool,
    body: Value,
    kube_accepts: bool,
}

fn sample(
    what: &'static str,
    (group, version, kind, plural, namespaced): (
        &'static str,
        &'static str,
        &'static str,
        &'static str,
        bool,
    ),
    body: Value,
    kube_accepts: bool,
) -> Sample {
    Sample {
        what,
        group,
        version,
        kind,
        plural,
        namespaced,
        body,
        kube_accepts,
    }
}

const FOO: (&str, &str, &str, &str, bool) = ("clux.example.com", "v1", "Foo", "fooz", true);
const BARE: (&str, &str, &str, &str, bool) = ("bare.example.com", "v1", "Bare", "bares", true);
const GADGET: (&str, &str, &str, &str, bool) =
    ("workshop.example.com", "v1", "Gadget", "gadgets", false);
const MANY_V1: (&str, &str, &str, &str, bool) =
    ("kube.example.com", "v1", "ManyDerive", "manyderives", true);
const MANY_V2: (&str, &str, &str, &str, bool) =
    ("kube.example.com", "v2", "ManyDerive", "manyderives", true);

fn samples() -> Vec<Sample> {
    let gadget = |spec: Value| json!({ "spec": spec });
    vec![
        sample(
            "a Foo",
            FOO,
            json!({"spec": {"name": "a", "replicas": 1}}),
            true,
        ),
        sample("a Foo without spec", FOO, json!({}), false),
        sample(
            "a Foo without name",
            FOO,
            json!({"spec": {"replicas": 1}}),
            false,
        ),
        sample(
            "a Foo with text replicas",
            FOO,
            json!({"spec": {"name": "a", "replicas": "two"}}),
            false,
        ),
        sample(
            "a Foo with info",
            FOO,
            json!({"spec": {"name": "a", "replicas": 1, "info": "i"}}),
            true,
        ),
        sample("a Bare", BARE, json!({"size": 1, "name": "n"}), true),
        sample("a Bare without size", BARE, json!({"name": "n"}), false),
        sample("a Bare with text size", BARE, json!({"size": "one"}), false),
        sample(
            "a Gadget",
            GADGET,
            gadget(json!({"size": 3, "mode": "Fast", "tags": ["x"]})),
            true,
        ),
        sample(
            "a Gadget with an owner",
            GADGET,
            gadget(json!({"size": 3, "mode": "Fast", "tags": [], "ownerName": "o"})),
            true,
        ),
        sample(
            "a Gadget over the kind's size rule",
            GADGET,
            gadget(json!({"size": 11, "mode": "Fast", "tags": []})),
            false,
        ),
        sample(
            "a slow Gadget of size 1 (the rule with a message)",
            GADGET,
            gadget(json!({"size": 1, "mode": "Slow", "tags": []})),
            false,
        ),
        sample(
            "a Gadget with a mode not in the enum",
            GADGET,
            gadget(json!({"size": 3, "mode": "Medium", "tags": []})),
            false,
        ),
        sample(
            "a Gadget with 4 tags (MaxItems, schemars length)",
            GADGET,
            gadget(json!({"size": 3, "mode": "Fast", "tags": ["a", "b", "c", "d"]})),
            false,
        ),
        sample(
            "a Gadget without tags",
            GADGET,
            gadget(json!({"size": 3, "mode": "Fast"})),
            false,
        ),
        sample(
            "a v1 ManyDerive",
            MANY_V1,
            json!({"spec": {"name": "a", "oldprop": 1}}),
            true,
        ),
        sample(
            "a v1 ManyDerive without oldprop",
            MANY_V1,
            json!({"spec": {"name": "a"}}),
            false,
        ),
        sample(
            "a v1 ManyDerive with a negative oldprop (u32)",
            MANY_V1,
            json!({"spec": {"name": "a", "oldprop": -1}}),
            false,
        ),
        sample(
            "a Foo with a status",
            FOO,
            json!({"spec": {"name": "a", "replicas": 1}, "status": {"is_bad": false, "replicas": 1}}),
            true,
        ),
        sample(
            "a v2 ManyDerive",
            MANY_V2,
            json!({"spec": {"name": "a", "extra": "e"}}),
            true,
        ),
        sample(
            "a v2 ManyDerive without name",
            MANY_V2,
            json!({"spec": {"extra": "e"}}),
            false,
        ),
    ]
}

/// Whether the API server accepts `s` (a dry-run create) in `group`: `Ok` or the server's refusal.
async fn verdict(client: &Client, s: &Sample, group: &str, n: usize) -> Result<(), String> {
    let gvk = GroupVersionKind::gvk(group, s.version, s.kind);
    let resource = ApiResource::from_gvk_with_plural(&gvk, s.plural);
    let api: Api<DynamicObject> = if s.namespaced {
        Api::namespaced_with(client.clone(), "default", &resource)
    } else {
        Api::all_with(client.clone(), &resource)
    };
    let mut body = s.body.clone();
    body["apiVersion"] = json!(resource.api_version);
    body["kind"] = json!(s.kind);
    body["metadata"] = json!({ "name": format!("sample-{n}") });
    let object: DynamicObject = serde_json::from_value(body).unwrap();
    let dry_run = PostParams {
        dry_run: true,
        ..PostParams::default()
    };
    api.create(&dry_run, &object)
        .await
        .map(drop)
        .map_err(|e| e.to_string())
}

#[tokio::test]
async fn rkb_crds_accept_and_refuse_what_kube_derive_crds_do() {
    let root = Path::new(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/fixtures/kube_derive"
    ));
    let out = generate(root, &Options::default()).unwrap_or_else(|e| panic!("{e}"));
    let mut documents: Vec<String> = out.crds.iter().map(|c| c.yaml.clone()).collect();
    let many =
        kube::core::crd::merge_crds(vec![v1::ManyDerive::crd(), v2::ManyDerive::crd()], "v1")
            .expect("kube merges the two versions");
    documents.push(kube_document(bare::Bare::crd()));
    documents.push(kube_document(foo::FooCrd::crd()));
    documents.push(kube_document(gadget::Gadget::crd()));
    documents.push(kube_document(many));
    let env = Environment::builder()
        .crd_yaml(documents.join("\n---\n"))
        .start()
        .await
        .unwrap_or_else(|e| panic!("the API server refused a CRD:\n{e}"));
    let client = env.client();
    let mut disagreements = Vec::new();
    let mut known = Vec::new();
    for (n, s) in samples().iter().enumerate() {
        let kube = verdict(&client, s, &twin(s.group), n).await;
        let rkb = verdict(&client, s, s.group, n).await;
        assert_eq!(
            kube.is_ok(),
            s.kube_accepts,
            "{}: kube-derive's CRD was expected to {} it: {kube:?}",
            s.what,
            if s.kube_accepts { "accept" } else { "refuse" }
        );
        if kube.is_ok() != rkb.is_ok() {
            disagreements.push(format!(
                "{}: kube-derive's CRD: {kube:?}; rkb's: {rkb:?}",
                s.what
            ));
            known.push(s.what);
        }
    }
    // The one difference left, in the schema stage: schemars gives an unsigned integer `minimum: 0`, rkb (as
    // controller-gen does for Go's uint32) none, so rkb's CRD takes a negative `oldprop` that the operator cannot
    // deserialize. Listed here so that closing it (or any new difference) fails this test until it is updated.
    assert_eq!(
        known,
        ["a v1 ManyDerive with a negative oldprop (u32)"],
        "{}",
        disagreements.join("\n")
    );
}
