//! kube-rs types, adopted: `rkb manifests` reads kube-derive's `#[derive(CustomResource)]` types as kinds. The
//! fixture (tests/fixtures/kube_derive) is a kube-rs project written as kube's own examples write their types;
//! its files are compiled into this test too, so rkb's CRD is compared with kube-derive's `crd()` for the very
//! same source. Where kube-derive's meaning has no CRD counterpart, or rkb cannot read an attribute, the
//! diagnostics are asserted word for word.

mod support;

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

use kube::CustomResourceExt;
use rkb_manifests::{Options, generate};
use serde_json::{Value, json};
use std::path::Path;

fn fixture() -> &'static Path {
    Path::new(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/fixtures/kube_derive"
    ))
}

/// rkb's CRD of `kind`, as JSON.
fn rkb_crd(out: &rkb_manifests::Output, kind: &str) -> Value {
    let crd = out.crds.iter().find(|c| c.kind == kind).unwrap_or_else(|| {
        panic!(
            "no CRD for {kind}: {:?}",
            out.crds.iter().map(|c| &c.kind).collect::<Vec<_>>()
        )
    });
    serde_saphyr::from_str(&crd.yaml).unwrap()
}

/// What kube-derive decides and rkb must decide the same: the CRD's name, metadata and names, its scope, and each
/// version's flags, subresources, printer columns and selectable fields, and the kind's CEL rules (the schema
/// itself is compared on the API server, tests/kube_derive_apiserver.rs).
fn agreed(crd: &Value) -> Value {
    let names = &crd["spec"]["names"];
    let versions: Vec<Value> = crd["spec"]["versions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| {
            let schema = &v["schema"]["openAPIV3Schema"];
            json!({
                "name": v["name"],
                "served": v["served"],
                "storage": v["storage"],
                "deprecated": v["deprecated"],
                "deprecationWarning": v["deprecationWarning"],
                "subresources": v["subresources"],
                "additionalPrinterColumns": v["additionalPrinterColumns"],
                "selectableFields": v["selectableFields"],
                "rules": schema["x-kubernetes-validations"],
                "required": schema["required"],
            })
        })
        .collect();
    // rkb's CRDs name the controller-gen version they match; kube's name none.
    let mut annotations = crd["metadata"]["annotations"].clone();
    if let Some(map) = annotations.as_object_mut() {
        map.remove("controller-gen.kubebuilder.io/version");
        if map.is_empty() {
            annotations = Value::Null;
        }
    }
    json!({
        "name": crd["metadata"]["name"],
        "annotations": annotations,
        "labels": crd["metadata"]["labels"],
        "group": crd["spec"]["group"],
        "scope": crd["spec"]["scope"],
        "names": {
            "kind": names["kind"],
            "plural": names["plural"],
            "singular": names["singular"],
            "shortNames": names["shortNames"],
            "categories": names["categories"],
        },
        "versions": versions,
    })
}

fn kube_crd(crd: impl serde::Serialize) -> Value {
    serde_json::to_value(crd).unwrap()
}

#[test]
fn rkb_writes_the_crd_kube_derive_writes_for_kube_rs_types() {
    let out = generate(fixture(), &Options::default()).unwrap_or_else(|e| panic!("{e}"));
    let mut files: Vec<&str> = out.crds.iter().map(|c| c.file_name.as_str()).collect();
    files.sort();
    assert_eq!(
        files,
        [
            "bare.example.com_bares.yaml",
            "clux.example.com_fooz.yaml",
            "kube.example.com_manyderives.yaml",
            "workshop.example.com_gadgets.yaml"
        ]
    );
    assert_eq!(
        agreed(&rkb_crd(&out, "Foo")),
        agreed(&kube_crd(foo::FooCrd::crd()))
    );
    assert_eq!(
        agreed(&rkb_crd(&out, "Bare")),
        agreed(&kube_crd(bare::Bare::crd()))
    );
    assert_eq!(
        agreed(&rkb_crd(&out, "Gadget")),
        agreed(&kube_crd(gadget::Gadget::crd()))
    );
    let many =
        kube::core::crd::merge_crds(vec![v1::ManyDerive::crd(), v2::ManyDerive::crd()], "v1")
            .expect("kube merges the two versions");
    assert_eq!(
        agreed(&rkb_crd(&out, "ManyDerive")),
        agreed(&kube_crd(many))
    );
}

#[test]
fn field_markers_apply_to_the_spec_of_a_kube_rs_type() {
    let out = generate(fixture(), &Options::default()).unwrap_or_else(|e| panic!("{e}"));
    let crd = rkb_crd(&out, "Gadget");
    let spec = &crd["spec"]["versions"][0]["schema"]["openAPIV3Schema"]["properties"]["spec"];
    assert_eq!(spec["properties"]["tags"]["maxItems"], json!(3), "{spec:#}");
    assert_eq!(
        spec["required"],
        json!(["mode", "size", "tags"]),
        "{spec:#}"
    );
    // The description kube-derive gives the kind: its `doc`, else its own sentence.
    let schema = |kind| {
        rkb_crd(&out, kind)["spec"]["versions"][0]["schema"]["openAPIV3Schema"]["description"]
            .clone()
    };
    assert_eq!(schema("Foo"), json!("Custom resource representing a Foo"));
    assert_eq!(
        schema("Gadget"),
        json!("Auto-generated derived type for GadgetSpec via `CustomResource`")
    );
    // The schemars attribute beside the marker is named: rkb does not read it.
    let warnings: Vec<String> = out.warnings.iter().map(ToString::to_string).collect();
    assert_eq!(
        warnings,
        ["warning: `#[schemars(...)]` is not read: rkb's CRD does not have what it says
  --> src/api/gadget.rs:31:5
   |
31 |     #[schemars(length(max = 3))]
   |     ^^^^^^^^^^
   = help: write it as `+kubebuilder:validation:` markers on the field (docs/markers.md), which rkb reads and checks
"]
    );
}

/// A kube-derive type in src/api/v1/gadget_types.rs with `attrs` as its `#[kube(...)]`.
fn gadget_project(attrs: &str) -> tempfile::TempDir {
    let types = format!(
        "use kube::CustomResource;
use schemars::JsonSchema;
use serde::{{Deserialize, Serialize}};

#[derive(CustomResource, Serialize, Deserialize, Debug, Clone, JsonSchema)]
#[kube({attrs})]
pub struct GadgetSpec {{
    pub size: i32,
}}
"
    );
    support::write_project(&[
        ("src/lib.rs", "pub mod api;\n"),
        ("src/api/mod.rs", "pub mod v1;\n"),
        ("src/api/v1/mod.rs", "pub mod gadget_types;\n"),
        ("src/api/v1/gadget_types.rs", &types),
    ])
}

const IDENTITY: &str = "group = \"t.example.com\", version = \"v1\", kind = \"Gadget\"";

#[test]
fn a_kube_attribute_rkb_does_not_know_is_an_error_at_the_attribute() {
    let dir = gadget_project(&format!("{IDENTITY}, namespaced, shortnames = \"gd\""));
    assert_eq!(
        support::diagnostics(dir.path()),
        "error: unknown kube attribute `shortnames`
 --> src/api/v1/gadget_types.rs:6:78
  |
6 | #[kube(group = \"t.example.com\", version = \"v1\", kind = \"Gadget\", namespaced, shortnames = \"gd\")]
  |                                                                              ^^^^^^^^^^
  = help: rkb reads kube-derive's keys: group, version, kind, root, doc, namespaced, no_spec, plural, singular, shortname, category, printcolumn, selectable, scale, status, annotation, label, validation, served, storage, deprecated, schema, derive, attr, crates, cel

error: aborting due to 1 previous error; no file written
"
    );
}

#[test]
fn a_validation_rkb_cannot_read_is_an_error_and_a_manual_schema_a_warning() {
    let dir = gadget_project(&format!(
        "{IDENTITY}, schema = \"manual\", validation = rules::size_limit()"
    ));
    assert_eq!(
        support::diagnostics(dir.path()),
        "error: rkb cannot read the validation rule `rules :: size_limit ()`
 --> src/api/v1/gadget_types.rs:6:85
  |
6 | #[kube(group = \"t.example.com\", version = \"v1\", kind = \"Gadget\", schema = \"manual\", validation = rules::size_limit())]
  |                                                                                     ^^^^^^^^^^
  = help: write the rule as a string literal or `Rule::new(\"...\")`, optionally with `.message(\"...\")`, or as `+kubebuilder:validation:XValidation` on the spec's fields

warning: `schema = \"manual\"`: rkb writes the schema from the Rust types all the same
 --> src/api/v1/gadget_types.rs:6:66
  |
6 | #[kube(group = \"t.example.com\", version = \"v1\", kind = \"Gadget\", schema = \"manual\", validation = rules::size_limit())]
  |                                                                  ^^^^^^
  = help: kube-derive leaves the schema to you here; rkb's CRD has the schema of the spec and status types, with their `+kubebuilder:` markers

error: aborting due to 1 previous error; no file written
"
    );
}

#[test]
fn a_kube_derive_type_without_a_kind_or_named_as_its_kind_is_an_error() {
    let dir = gadget_project("group = \"t.example.com\", version = \"v1\"");
    assert_eq!(
        support::diagnostics(dir.path()),
        "error: `#[derive(CustomResource)]` on `GadgetSpec` has no `kind`
 --> src/api/v1/gadget_types.rs:5:1
  |
5 | #[derive(CustomResource, Serialize, Deserialize, Debug, Clone, JsonSchema)]
  | ^^^^^^
  = help: kube-derive needs `#[kube(group = \"...\", version = \"...\", kind = \"...\")]`

error: aborting due to 1 previous error; no file written
"
    );
    let dir = gadget_project("group = \"t.example.com\", version = \"v1\", kind = \"GadgetSpec\"");
    assert_eq!(
        support::diagnostics(dir.path()),
        "error: the kind `GadgetSpec` has the name of the type it is derived from
 --> src/api/v1/gadget_types.rs:6:49
  |
6 | #[kube(group = \"t.example.com\", version = \"v1\", kind = \"GadgetSpec\")]
  |                                                 ^^^^
  = help: kube-derive generates a struct `GadgetSpec`: name the spec type otherwise (e.g. `GadgetSpecSpec`), or name the generated struct with `root = \"...\"`

error: aborting due to 1 previous error; no file written
"
    );
}

/// kube's own example writes `selectable = "spec.name"`, which the API server refuses: rkb says so before writing.
#[test]
fn a_selectable_field_the_api_server_refuses_is_an_error_at_the_attribute() {
    let dir = gadget_project(&format!("{IDENTITY}, selectable = \"spec.size\""));
    assert_eq!(
        support::diagnostics(dir.path()),
        "error: selectable field `spec.size` is not a JSON path the API server takes
 --> src/api/v1/gadget_types.rs:6:66
  |
6 | #[kube(group = \"t.example.com\", version = \"v1\", kind = \"Gadget\", selectable = \"spec.size\")]
  |                                                                  ^^^^^^^^^^
  = help: start it with `.`: `selectable = \".spec.size\"`

error: aborting due to 1 previous error; no file written
"
    );
}

/// kube's crd_derive_multi example keeps both versions in one file, in `mod v1 { .. }` and `mod v2 { .. }`: rkb reads
/// a file's inline modules as one module, so rather than take v2's `ManySpec` for v1's, it refuses.
#[test]
fn versions_in_inline_modules_of_one_file_are_refused() {
    let version = |ver: &str, field: &str| {
        format!(
            "mod {ver} {{
    use kube::CustomResource;
    use schemars::JsonSchema;
    use serde::{{Deserialize, Serialize}};
    #[derive(CustomResource, Serialize, Deserialize, Debug, Clone, JsonSchema)]
    #[kube(group = \"t.example.com\", version = \"{ver}\", kind = \"Many\", namespaced)]
    pub struct ManySpec {{
        pub {field}: String,
    }}
}}
"
        )
    };
    let text = format!("{}{}", version("v1", "old"), version("v2", "new"));
    let dir = support::write_project(&[("src/lib.rs", &text)]);
    assert_eq!(
        support::diagnostics(dir.path()),
        "error: `ManySpec` of kind t.example.com/v1 Many is defined more than once in this file's inline modules
 --> src/lib.rs:6:53
  |
6 |     #[kube(group = \"t.example.com\", version = \"v1\", kind = \"Many\", namespaced)]
  |                                                     ^^^^
  = help: rkb reads a file's inline modules as one module, so one version's type would be taken for the other's: give each version its own file (`mod v1;` in src/v1.rs or src/v1/mod.rs)

error: `ManySpec` of kind t.example.com/v2 Many is defined more than once in this file's inline modules
  --> src/lib.rs:16:53
   |
16 |     #[kube(group = \"t.example.com\", version = \"v2\", kind = \"Many\", namespaced)]
   |                                                     ^^^^
   = help: rkb reads a file's inline modules as one module, so one version's type would be taken for the other's: give each version its own file (`mod v1;` in src/v1.rs or src/v1/mod.rs)

error: aborting due to 2 previous errors; no file written
"
    );
}

/// The derive is found as rustc reads it: a list over several lines counts, a derive in a comment and a derive of
/// another name do not. (This replaces the warning rkb gave for kube-derive types before it read them.)
#[test]
fn a_custom_resource_derive_is_found_as_rustc_reads_it() {
    let types = "use kube::CustomResource;
#[derive(Clone, Debug,
    CustomResource, Serialize)]
#[kube(group = \"t.example.com\", version = \"v1\", kind = \"Gadget\")]
pub struct GadgetSpec { pub a: String }
// #[derive(CustomResource)] in a comment is not a derive
#[derive(Clone, MyCustomResourceLike)]
#[kube(group = \"t.example.com\", version = \"v1\", kind = \"Other\")]
pub struct Other { pub b: String }
";
    let dir = support::write_project(&[
        ("src/lib.rs", "pub mod api;\n"),
        ("src/api/mod.rs", "pub mod v1;\n"),
        ("src/api/v1/mod.rs", "pub mod gadget_types;\n"),
        ("src/api/v1/gadget_types.rs", types),
    ]);
    let out = generate(dir.path(), &Options::default()).unwrap_or_else(|e| panic!("{e}"));
    let kinds: Vec<&str> = out.crds.iter().map(|c| c.kind.as_str()).collect();
    assert_eq!(kinds, ["Gadget"]);
    assert!(out.warnings.is_empty(), "{:?}", out.warnings);
}
