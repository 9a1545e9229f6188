//! Bad input: every problem of a run is reported at once, rendered with file:line:col, the source line,
//! a caret and a hint, and nothing is written.

use rkb_manifests::{Options, Output, generate};
use std::fs;
use std::path::{Path, PathBuf};

mod support;

use support::diagnostics;

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures")
        .join(name)
}

/// What a run that must succeed on the sources at `root` generates; a failure panics with its diagnostics.
fn generated(root: &Path) -> Output {
    generate(root, &Options::default()).unwrap_or_else(|e| panic!("{e}"))
}

fn run_errors() -> String {
    diagnostics(&fixture("errors"))
}

#[test]
fn unknown_marker_has_did_you_mean_and_caret() {
    let r = run_errors();
    assert!(
        r.contains(
            "error: unknown marker `kubebuilder:validation:Minimun`\n \
             --> src/api/v1/widget_types.rs:8:10\n  \
             |\n\
             8 |     /// +kubebuilder:validation:Minimun=1\n  \
             |          ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^\n  \
             = help: did you mean `+kubebuilder:validation:Minimum`? (markers of other tools are accepted, as \
             warnings, with `allow-unknown-markers = true` in Cargo.toml's [package.metadata.rkb])\n"
        ),
        "{r}"
    );
    assert!(
        r.contains(" --> src/api/v1/mod.rs:2:6\n"),
        "package marker typo: {r}"
    );
}

#[test]
fn every_kind_of_error_is_reported_in_one_run() {
    let r = run_errors();
    for (what, needle) in [
        (
            "wrong value type",
            "error: expected an integer, found `ten` in marker `kubebuilder:validation:MaxLength`\n  --> src/api/v1/widget_types.rs:12:43",
        ),
        (
            "marker on a string",
            "error: Minimum applies to numbers, found type string\n  --> src/api/v1/widget_types.rs:10:9",
        ),
        (
            "wrong target",
            "error: marker `kubebuilder:subresource:status` cannot be used on a field\n  --> src/api/v1/widget_types.rs:14:9",
        ),
        (
            "conflicting markers",
            "error: conflicting markers: `+optional` and `+required`\n  --> src/api/v1/widget_types.rs:17:9",
        ),
        (
            "unresolvable type",
            "error: cannot resolve type `Gadget`\n  --> src/api/v1/widget_types.rs:19:9",
        ),
        (
            "unknown argument",
            "error: unknown argument `typ` for marker `kubebuilder:printcolumn`\n  --> src/api/v1/widget_types.rs:26:42",
        ),
        (
            "missing argument",
            "error: missing argument `verbs` in marker `kubebuilder:rbac`\n  --> src/api/v1/widget_types.rs:27:5",
        ),
        (
            "Rust that does not parse",
            "error: Rust syntax error: unbalanced delimiter or unterminated literal\n --> src/broken.rs:1:12",
        ),
        (
            "marker in a plain comment",
            "warning: marker in a plain `//` comment is not read\n --> src/lib.rs:4:1",
        ),
    ] {
        assert!(r.contains(needle), "{what}: missing `{needle}` in\n{r}");
    }
    assert!(r.contains("= help: did you mean `type`?"), "{r}");
    assert!(
        r.ends_with("error: aborting due to 11 previous errors; no file written\n"),
        "{r}"
    );
}

// That a failing run writes nothing is a property of the CLI, which owns the writes: see
// scaffold-tests/tests/bad_input.rs, `a_failing_manifests_run_writes_nothing`.

#[test]
fn missing_src_is_an_error() {
    let dir = tempfile::tempdir().unwrap();
    let e = generate(dir.path(), &Options::default()).unwrap_err();
    assert!(
        e.to_string().starts_with("error: no src/ directory under"),
        "{e}"
    );
}

/// Writes a small project (Cargo.toml + the given files) into a temp dir.
fn project(files: &[(&str, &str)]) -> tempfile::TempDir {
    let dir = support::write_project(files);
    support::declare_modules(dir.path());
    dir
}

const ROOT: &str = "use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;
/// +kubebuilder:object:root=true
pub struct Thing {
    #[serde(default)]
    pub metadata: ObjectMeta,
    pub spec: ThingSpec,
}
";

/// A project whose one kind is t.example.com/v1 `Thing`: [`ROOT`] and `spec` in src/api/v1/thing_types.rs.
fn thing_project(spec: &str) -> tempfile::TempDir {
    project(&[
        ("src/api/v1/mod.rs", "//! +groupName=t.example.com\n"),
        ("src/api/v1/thing_types.rs", &format!("{ROOT}{spec}")),
    ])
}

/// Replaces the project's thing_types.rs with [`ROOT`] and `spec` (a test's fixed version of its API).
fn rewrite_spec(dir: &tempfile::TempDir, spec: &str) {
    fs::write(
        dir.path().join("src/api/v1/thing_types.rs"),
        format!("{ROOT}{spec}"),
    )
    .unwrap();
}

#[test]
fn unresolved_type_suggests_a_close_local_type() {
    let dir = thing_project(
        "pub struct ThingSpec { pub part: Widgt }\npub struct Widget { pub a: String }\n",
    );
    let e = diagnostics(dir.path());
    assert!(e.contains("error: cannot resolve type `Widgt`"), "{e}");
    assert!(e.contains("= help: did you mean `Widget`?"), "{e}");
}

#[test]
fn one_of_markers_must_name_fields() {
    let dir = thing_project(
        "/// +kubebuilder:validation:ExactlyOneOf=image;chart\npub struct ThingSpec {\n    #[serde(default)]\n    pub image: Option<String>,\n    #[serde(default)]\n    pub helm: Option<String>,\n}\n",
    );
    let e = diagnostics(dir.path());
    assert!(
        e.contains(
            "error: `chart` in kubebuilder:validation:ExactlyOneOf is not a JSON field of this type"
        ),
        "{e}"
    );
    assert!(e.contains("--> src/api/v1/thing_types.rs:8:5"), "{e}");
    assert!(e.contains("= help: fields: image, helm"), "{e}");
}

#[test]
fn several_versions_need_exactly_one_storage_version() {
    let types =
        |v: &str| format!("{ROOT}/// Spec {v}.\npub struct ThingSpec {{ pub a: String }}\n");
    let dir = project(&[
        ("src/api/v1/mod.rs", "//! +groupName=t.example.com\n"),
        ("src/api/v1/thing_types.rs", &types("v1")),
        ("src/api/v2/mod.rs", "//! +groupName=t.example.com\n"),
        ("src/api/v2/thing_types.rs", &types("v2")),
    ]);
    let e = diagnostics(dir.path());
    assert!(
        e.contains("error: CRD for t.example.com/Thing has no storage version (versions: v1, v2)"),
        "{e}"
    );
    assert!(
        e.contains(
            "= help: mark exactly one version's type with `/// +kubebuilder:storageversion`"
        ),
        "{e}"
    );
    // With a storage version, both versions land in one file, sorted, v2 stored.
    let v2 = dir.path().join("src/api/v2/thing_types.rs");
    fs::write(
        &v2,
        types("v2").replace(
            "/// +kubebuilder:object:root=true",
            "/// +kubebuilder:object:root=true\n/// +kubebuilder:storageversion",
        ),
    )
    .unwrap();
    let out = generated(dir.path());
    assert_eq!(out.crds.len(), 1);
    let y = &out.crds[0].yaml;
    let v1_at = y.find("  - name: v1\n").unwrap();
    let v2_at = y.find("  - name: v2\n").unwrap();
    assert!(v1_at < v2_at, "{y}");
    assert!(
        y[v1_at..v2_at].contains("    storage: false\n")
            && y[v2_at..].contains("    storage: true\n"),
        "{y}"
    );
}

/// A version is checked right after it is resolved: an error while resolving a later version (an unknown type)
/// does not hide what the rules find in an earlier one (a default below its minimum).
#[test]
fn an_error_in_one_version_does_not_hide_the_problems_of_another() {
    let spec =
        |v: &str, field: &str| format!("{ROOT}/// Spec {v}.\npub struct ThingSpec {{\n{field}}}\n");
    let stored = "/// +kubebuilder:object:root=true\n/// +kubebuilder:storageversion";
    let dir = project(&[
        ("src/api/v1/mod.rs", "//! +groupName=t.example.com\n"),
        (
            "src/api/v1/thing_types.rs",
            &spec(
                "v1",
                "    /// +kubebuilder:validation:Minimum=0\n    /// +kubebuilder:default=-5\n    pub size: i32,\n",
            ),
        ),
        ("src/api/v2/mod.rs", "//! +groupName=t.example.com\n"),
        (
            "src/api/v2/thing_types.rs",
            &spec("v2", "    pub hot: Bogus,\n")
                .replace("/// +kubebuilder:object:root=true", stored),
        ),
    ]);
    let e = diagnostics(dir.path());
    assert!(
        e.contains("error: the v1 schema of `Thing` has a default the API server refuses at `.spec.size`: -5 is below the minimum 0"),
        "{e}"
    );
    assert!(e.contains("error: cannot resolve type `Bogus`"), "{e}");
}

/// After an error of an earlier stage (a misspelt marker, left out), the rules do not run: the schema lacks what
/// the marker would have said, and "not structural" would only repeat the typo's consequence.
#[test]
fn the_rules_do_not_pile_on_an_earlier_error() {
    let dir = thing_project(
        "pub struct ThingSpec {\n    /// +kubebuilder:validation:Schemaless\n    /// +kubebuilder:pruning:PreserveUnknownField\n    pub raw: Port,\n}\npub struct Port { pub name: String }\n",
    );
    let e = diagnostics(dir.path());
    assert!(
        e.contains("error: unknown marker `kubebuilder:pruning:PreserveUnknownField`"),
        "{e}"
    );
    assert!(!e.contains("not structural"), "{e}");
}

#[test]
fn recursive_types_are_explained() {
    let node = "/// Node is recursive.\npub struct Node {\n    pub name: String,\n    #[serde(default)]\n    pub children: Vec<Node>,\n}\n";
    let root = ROOT.replace("ThingSpec", "Node");
    let dir = project(&[
        ("src/api/v1/mod.rs", "//! +groupName=t.example.com\n"),
        ("src/api/v1/thing_types.rs", &format!("{root}{node}")),
    ]);
    let e = diagnostics(dir.path());
    // At the recursive field, where the hint's markers go (the node inside it has no field of its own).
    assert!(
        e.starts_with(
            "error: the v1 schema of `Thing` is not structural at `.spec.children[*]`: type must not be empty\n  \
             --> src/api/v1/thing_types.rs:12:9\n   \
             |\n\
             12 |     pub children: Vec<Node>,\n   \
             |         ^^^^^^^^\n"
        ),
        "{e}"
    );
    assert!(
        e.contains("= help: `Node` refers to itself and CRD schemas cannot be recursive"),
        "{e}"
    );
    // The suggested fix works.
    let fixed = node.replace("    #[serde(default)]\n    pub children", "    /// +kubebuilder:validation:Schemaless\n    /// +kubebuilder:pruning:PreserveUnknownFields\n    #[serde(default)]\n    pub children");
    fs::write(
        dir.path().join("src/api/v1/thing_types.rs"),
        format!("{root}{fixed}"),
    )
    .unwrap();
    let out = generated(dir.path());
    assert!(
        out.crds[0].yaml.contains(
            "              children:\n                x-kubernetes-preserve-unknown-fields: true\n"
        ),
        "{}",
        out.crds[0].yaml
    );
}

#[test]
fn what_the_api_server_refuses_is_rejected_before_writing() {
    let spec = "pub struct ThingSpec {
    /// +kubebuilder:validation:UniqueItems=true
    pub tags: Vec<String>,
    /// +kubebuilder:validation:XValidation:rule=\"self >= oldSelf\",optionalOldSelf=true
    pub size: i32,
    /// +kubebuilder:validation:XValidation:rule=\"self > 0\",optionalOldSelf=false
    pub count: i32,
}
";
    let dir = thing_project(spec);
    let e = diagnostics(dir.path());
    assert!(
        e.contains(
            "error: UniqueItems=true makes the API server refuse the CRD (quadratic validation cost)\n \
             --> src/api/v1/thing_types.rs:9:9\n"
        ),
        "{e}"
    );
    assert!(
        e.contains("= help: use `+listType=set` for a list of unique items"),
        "{e}"
    );
    assert!(
        e.contains(
            "error: with optionalOldSelf=true, `oldSelf` is an optional value (column 9 of the rule)\n  \
             --> src/api/v1/thing_types.rs:11:9\n"
        ),
        "{e}"
    );
    assert!(
        e.contains("= help: use oldSelf.hasValue(), oldSelf.value() or oldSelf.orValue(...)"),
        "{e}"
    );
    assert!(
        e.contains(
            "error: optionalOldSelf may not be set when the rule does not use oldSelf (the API server refuses it)\n  \
             --> src/api/v1/thing_types.rs:13:9\n"
        ),
        "{e}"
    );
    // The fixed spellings generate.
    let fixed = spec
        .replace(
            "    /// +kubebuilder:validation:UniqueItems=true\n",
            "    /// +listType=set\n",
        )
        .replace(
            "self >= oldSelf",
            "!oldSelf.hasValue() || self >= oldSelf.value()",
        )
        .replace(",optionalOldSelf=false", "");
    rewrite_spec(&dir, &fixed);
    let out = generated(dir.path());
    assert!(
        out.crds[0].yaml.contains("optionalOldSelf: true"),
        "{}",
        out.crds[0].yaml
    );
}

/// A Go codebase's markers that controller-gen ignores stop rkb by default; a project setting lets them through
/// as warnings that say why.
#[test]
fn unknown_markers_are_errors_unless_the_project_allows_them() {
    let types = "pub struct ThingSpec {\n    /// +kubebuilder:validation:nullable\n    pub a: Option<String>,\n}\n";
    let dir = thing_project(types);
    let e = diagnostics(dir.path());
    assert!(
        e.contains("error: unknown marker `kubebuilder:validation:nullable`"),
        "{e}"
    );

    let manifest = dir.path().join("Cargo.toml");
    let strict = fs::read_to_string(&manifest).unwrap();
    fs::write(
        &manifest,
        format!("{strict}\n[package.metadata.rkb]\nallow-unknown-markers = true\n"),
    )
    .unwrap();
    let out = generated(dir.path());
    let warnings: Vec<String> = out.warnings.iter().map(|w| w.render()).collect();
    assert_eq!(warnings.len(), 1, "{warnings:?}");
    assert!(
        warnings[0].starts_with(
            "warning: unknown marker `kubebuilder:validation:nullable` ignored\n --> src/api/v1/thing_types.rs:9:10"
        ),
        "{}",
        warnings[0]
    );
    assert!(
        warnings[0].contains("allow-unknown-markers = true"),
        "{}",
        warnings[0]
    );
    assert_eq!(out.crds.len(), 1);

    fs::write(
        &manifest,
        format!("{strict}\n[package.metadata.rkb]\nallow-unknown-markers = \"sure\"\n"),
    )
    .unwrap();
    let e = diagnostics(dir.path());
    assert!(
        e.contains(
            "error: `allow-unknown-markers` must be true or false, not the string `\"sure\"`\n --> Cargo.toml:6:25"
        ),
        "{e}"
    );
}

/// CRDs a generator wrote that no kind generates any more: `--check` shows their deletion, a run removes them,
/// and a CRD written by hand (no controller-gen annotation) is left alone.
#[test]
fn stale_generated_crds_are_reported_and_removed() {
    let dir = thing_project("pub struct ThingSpec { pub a: String }\n");
    let opts = Options::default();
    let out = generate(dir.path(), &opts).unwrap();
    rkb_manifests::write(dir.path(), &opts, &out).unwrap();
    let bases = dir.path().join("config/crd/bases");
    let thing = bases.join("t.example.com_things.yaml");
    let old = fs::read_to_string(&thing).unwrap();
    let gone = bases.join("old.example.com_gadgets.yaml");
    fs::write(&gone, old.replace("t.example.com", "old.example.com")).unwrap();
    let by_hand = bases.join("hand.example.com_tools.yaml");
    fs::write(
        &by_hand,
        "apiVersion: apiextensions.k8s.io/v1\nkind: CustomResourceDefinition\n",
    )
    .unwrap();

    assert_eq!(
        rkb_manifests::stale_crds(dir.path(), &opts, &out).unwrap(),
        [PathBuf::from(
            "config/crd/bases/old.example.com_gadgets.yaml"
        )]
    );
    let diff = rkb_manifests::check(dir.path(), &opts, &out)
        .unwrap()
        .expect("stale");
    assert!(
        diff.starts_with("# config/crd/bases/old.example.com_gadgets.yaml is deleted: no version module has `+groupName=old.example.com` any more\n--- a/config/crd/bases/old.example.com_gadgets.yaml\n+++ /dev/null\n"),
        "{diff}"
    );
    let done = rkb_manifests::write(dir.path(), &opts, &out).unwrap();
    assert_eq!(done.removed, std::slice::from_ref(&gone));
    assert!(done.written.is_empty(), "{done:?}");
    assert!(!gone.exists() && thing.exists() && by_hand.exists());
    assert_eq!(rkb_manifests::check(dir.path(), &opts, &out).unwrap(), None);
}

/// A kind as `rkb create api` writes it, with its root marker and kind-level markers taken off: controller-gen makes
/// a CRD for any type with TypeMeta and ObjectMeta, and so does rkb, through the paths users really import them by.
const SCAFFOLDED_KIND: &str =
    "use rkb_runtime::k8s_openapi::apimachinery::pkg::apis::meta::v1::{Condition, ObjectMeta};
use rkb_runtime::{DeepCopy, Kind, TypeMeta};
use serde::{Deserialize, Serialize};

/// GuestbookSpec defines the desired state of Guestbook.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, DeepCopy)]
#[serde(rename_all = \"camelCase\")]
pub struct GuestbookSpec {
    /// +optional
    #[serde(default, skip_serializing_if = \"Option::is_none\")]
    pub foo: Option<String>,
}

/// GuestbookStatus defines the observed state of Guestbook.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, DeepCopy)]
pub struct GuestbookStatus {
    /// +optional
    #[serde(default, skip_serializing_if = \"Vec::is_empty\")]
    pub conditions: Vec<Condition>,
}

/// Guestbook is the Schema for the guestbooks API.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, Kind)]
pub struct Guestbook {
    #[serde(flatten)]
    pub type_meta: TypeMeta,
    /// +optional
    #[serde(default)]
    pub metadata: ObjectMeta,
    pub spec: GuestbookSpec,
    /// +optional
    #[serde(default, skip_serializing_if = \"Option::is_none\")]
    pub status: Option<GuestbookStatus>,
}
";

/// The kinds of one version module `files` (name, text) in group `g.example.com`.
fn kinds_project(files: &[(&str, &str)]) -> tempfile::TempDir {
    let mut all = vec![("src/api/v1/mod.rs", "//! +groupName=g.example.com\n")];
    all.extend_from_slice(files);
    project(&all)
}

/// Each path a user imports TypeMeta by makes a kind without the root marker: the scaffold's `rkb_runtime`, kube's
/// `kube::core` and `kube::api`. Breaking the recognition of any of them loses its CRD here.
#[test]
fn kinds_without_the_root_marker_get_their_crd() {
    let kube_core = "use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;
pub struct Shelf { pub size: i32 }
pub struct Library {
    #[serde(flatten)]
    pub types: kube::core::TypeMeta,
    #[serde(default)]
    pub metadata: ObjectMeta,
    pub spec: Shelf,
}
";
    let kube_api = "use kube::api::{ObjectMeta, TypeMeta};
pub struct Reading {
    #[serde(flatten)]
    pub type_meta: TypeMeta,
    pub metadata: ObjectMeta,
}
";
    let dir = kinds_project(&[
        ("src/api/v1/guestbook_types.rs", SCAFFOLDED_KIND),
        ("src/api/v1/library_types.rs", kube_core),
        ("src/api/v1/reading_types.rs", kube_api),
    ]);
    let out = generated(dir.path());
    let files: Vec<&str> = out.crds.iter().map(|c| c.file_name.as_str()).collect();
    assert_eq!(
        files,
        [
            "g.example.com_guestbooks.yaml",
            "g.example.com_libraries.yaml",
            "g.example.com_readings.yaml"
        ]
    );
    assert!(out.warnings.is_empty(), "{:?}", out.warnings);
    let guestbook: serde_json::Value = serde_saphyr::from_str(&out.crds[0].yaml).unwrap();
    let props = &guestbook["spec"]["versions"][0]["schema"]["openAPIV3Schema"]["properties"];
    for key in ["apiVersion", "kind", "metadata", "spec", "status"] {
        assert!(!props[key].is_null(), "{key} missing from {props:?}");
    }
}

/// `+kubebuilder:object:root=false` says a kind-shaped struct is not a kind; a list type keeps its root marker
/// without a word.
#[test]
fn root_false_and_lists_are_not_kinds() {
    let types =
        "use rkb_runtime::k8s_openapi::apimachinery::pkg::apis::meta::v1::{ListMeta, ObjectMeta};
use rkb_runtime::TypeMeta;
/// +kubebuilder:object:root=false
pub struct Snapshot {
    #[serde(flatten)]
    pub type_meta: TypeMeta,
    #[serde(default)]
    pub metadata: ObjectMeta,
}
/// +kubebuilder:object:root=true
pub struct SnapshotList {
    #[serde(flatten)]
    pub type_meta: TypeMeta,
    #[serde(default)]
    pub metadata: ListMeta,
    pub items: Vec<Snapshot>,
}
";
    let dir = kinds_project(&[("src/api/v1/snapshot_types.rs", types)]);
    let out = generated(dir.path());
    assert!(out.crds.is_empty(), "{:?}", out.crds);
    assert!(out.warnings.is_empty(), "{:?}", out.warnings);
}

/// A Go file ported as it is often carries the kind's marker group on its Spec, where controller-gen ignores it:
/// the kind still gets its CRD (without what those markers say), and the markers a warning naming the kind.
#[test]
fn kind_markers_on_the_spec_are_warned_about() {
    let ported = SCAFFOLDED_KIND.replace(
        "/// GuestbookSpec defines the desired state of Guestbook.\n",
        "/// +kubebuilder:object:root=true\n/// +kubebuilder:subresource:status\n/// GuestbookSpec defines the desired state of Guestbook.\n",
    );
    let dir = kinds_project(&[("src/api/v1/guestbook_types.rs", &ported)]);
    let out = generated(dir.path());
    assert_eq!(out.crds.len(), 1);
    assert!(
        !out.crds[0].yaml.contains("subresources"),
        "{}",
        out.crds[0].yaml
    );
    let rendered: Vec<String> = out.warnings.iter().map(|w| w.render()).collect();
    assert_eq!(
        rendered,
        ["warning: `+kubebuilder:object:root`, `+kubebuilder:subresource:status` on `GuestbookSpec`, which is not a kind: no CRD reads them
 --> src/api/v1/guestbook_types.rs:5:5
  |
5 | /// +kubebuilder:object:root=true
  |     ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
  = help: move them to the kind `Guestbook` (a Go file ported as it is often has them on the Spec)
"]
    );
}

/// Structs rkb does not make a kind, although they look like one, say why: an optional ObjectMeta (warning), a root
/// marker on a struct without metadata that no kind uses (warning); a kind whose ObjectMeta is flattened or renamed
/// would describe an object the API server does not store (error at the field).
#[test]
fn almost_kinds_are_diagnosed() {
    let warned = "use rkb_runtime::k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;
use rkb_runtime::TypeMeta;
pub struct Spec { pub a: String }
pub struct Optional {
    #[serde(flatten)]
    pub type_meta: TypeMeta,
    pub metadata: Option<ObjectMeta>,
    pub spec: Spec,
}
/// +kubebuilder:object:root=true
pub struct NoMeta {
    pub spec: Spec,
}
";
    let dir = kinds_project(&[("src/api/v1/kinds.rs", warned)]);
    let out = generated(dir.path());
    assert!(out.crds.is_empty());
    let rendered: Vec<String> = out.warnings.iter().map(|w| w.render()).collect();
    assert_eq!(
        rendered,
        [
            "warning: `Optional` is a kind but its `metadata` is an `Option<ObjectMeta>`: no CRD is generated
 --> src/api/v1/kinds.rs:4:12
  |
4 | pub struct Optional {
  |            ^^^^^^^^
  = help: a kind's metadata is never absent: make it `metadata: ObjectMeta` with `#[serde(default)]`
",
            "warning: `+kubebuilder:object:root` on `NoMeta`, which is not a kind: no CRD is generated for it
  --> src/api/v1/kinds.rs:10:5
   |
10 | /// +kubebuilder:object:root=true
   |     ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
   = help: a kind has a flattened `TypeMeta` and `metadata: ObjectMeta`; add them if it is one, else remove the markers
"
        ]
    );

    let refused = "use rkb_runtime::k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;
use rkb_runtime::TypeMeta;
pub struct Flat {
    #[serde(flatten)]
    pub type_meta: TypeMeta,
    #[serde(flatten)]
    pub object_meta: ObjectMeta,
}
/// +kubebuilder:object:root=true
pub struct Renamed {
    #[serde(rename = \"meta\")]
    pub metadata: ObjectMeta,
}
";
    let dir = kinds_project(&[("src/api/v1/kinds.rs", refused)]);
    assert_eq!(
        diagnostics(dir.path()),
        "error: the ObjectMeta of kind `Flat` is flattened
 --> src/api/v1/kinds.rs:7:9
  |
7 |     pub object_meta: ObjectMeta,
  |         ^^^^^^^^^^^
  = help: remove `#[serde(flatten)]`: the API server keeps a kind's metadata under `metadata`

error: the ObjectMeta of kind `Renamed` is renamed to `meta`
  --> src/api/v1/kinds.rs:12:9
   |
12 |     pub metadata: ObjectMeta,
   |         ^^^^^^^^
   = help: name it `metadata` on the wire (remove the `#[serde(rename)]`): the API server keeps a kind's metadata under `metadata`

error: aborting due to 2 previous errors; no file written
"
    );
}

/// `+listType=map` without `+listMapKey` is refused before anything is written: the API server would refuse the
/// CRD ("x-kubernetes-list-map-keys: Required value").
#[test]
fn a_map_list_without_keys_is_an_error() {
    let types = "pub struct ThingSpec {\n    /// +listType=map\n    pub ports: Vec<Port>,\n}\npub struct Port { pub name: String }\n";
    let dir = thing_project(types);
    let e = diagnostics(dir.path());
    assert!(
        e.starts_with(
            "error: `+listType=map` needs at least one `+listMapKey`: the API server refuses a map list without keys\n --> src/api/v1/thing_types.rs:9:9\n"
        ),
        "{e}"
    );
    assert!(e.contains("help: add `/// +listMapKey=<field>`"), "{e}");
    let fixed = types.replace(
        "/// +listType=map\n",
        "/// +listType=map\n    /// +listMapKey=name\n",
    );
    rewrite_spec(&dir, &fixed);
    generated(dir.path());
}

/// Map-list keys must be fields of the items, and required or defaulted (the API server's rules, which
/// apiserver_accepts.rs shows it enforces).
#[test]
fn map_list_keys_must_be_required_fields_of_the_items() {
    let types = |key: &str, name_ty: &str| {
        format!(
            "pub struct ThingSpec {{\n    /// +listType=map\n    /// +listMapKey={key}\n    pub ports: Vec<Port>,\n}}\npub struct Port {{ pub name: {name_ty} }}\n"
        )
    };
    let run = |text: String| {
        let dir = thing_project(&text);
        generate(dir.path(), &Options::default())
            .map(|_| ())
            .map_err(|e| e.to_string())
    };
    let e = run(types("name", "Option<String>")).unwrap_err();
    // At the marker that made the list a map list.
    assert!(
        e.starts_with(
            "error: the v1 schema of `Thing` has an invalid map list at `.spec.ports`: map key `name` must be required \
             or have a default\n \
             --> src/api/v1/thing_types.rs:9:9\n  \
             |\n\
             9 |     /// +listType=map\n  \
             |         ^^^^^^^^^^^^^\n"
        ),
        "{e}"
    );
    let e = run(types("nope", "String")).unwrap_err();
    assert!(
        e.contains("map key `nope` is not a field of the items"),
        "{e}"
    );
    run(types("name", "String")).unwrap();
}

/// A project with one kind and `hooks` as src/webhook/v1/thing_webhook.rs.
fn webhook_project(hooks: &str) -> tempfile::TempDir {
    project(&[
        ("src/api/v1/mod.rs", "//! +groupName=t.example.com\n"),
        (
            "src/api/v1/thing_types.rs",
            &format!("{ROOT}pub struct ThingSpec {{}}\n"),
        ),
        ("src/webhook/v1/thing_webhook.rs", hooks),
    ])
}

/// Webhook markers that controller-gen refuses, or writes and the API server then refuses, are located errors
/// with the fix; nothing is generated.
#[test]
fn webhook_markers_the_api_server_would_refuse_are_errors() {
    const GOOD: &str = "path=/mutate-t-example-com-v1-thing,mutating=true,failurePolicy=fail,sideEffects=None,groups=t.example.com,resources=things,verbs=create;update,versions=v1,name=mthing-v1.kb.io,admissionReviewVersions=v1";
    // (what to replace in GOOD, with what, the error, its hint)
    let cases: &[(&str, &str, &str, &str)] = &[
        (
            "path=",
            "url=\"https://x.example.com/m\",path=",
            "`url` or `path` markers are required and mutually exclusive",
            "give `path=/mutate-...` for the in-cluster service",
        ),
        (
            "path=",
            "matchPolicy=Sometimes,path=",
            "unknown value \"Sometimes\" for matchPolicy",
            "matchPolicy is `Exact` or `Equivalent` (the default)",
        ),
        (
            "path=",
            "timeoutSeconds=31,path=",
            "timeoutSeconds=31 is out of range",
            "the API server takes 1 to 30 seconds (default 10)",
        ),
        (
            "path=",
            "webhookVersions=v1beta1,path=",
            "unsupported webhook version: v1beta1",
            "the only webhookVersions value is v1",
        ),
        (
            "groups=t.example.com",
            "groups=*;apps",
            "`*` in groups already matches `apps`: the API server refuses `*` beside other values",
            "write `*` alone, or list the values without it",
        ),
        (
            "path=",
            "reinvocationPolicy=Always,path=",
            "unknown reinvocationPolicy `Always`: the API server refuses it",
            "reinvocationPolicy is `Never` (the default) or `IfNeeded`",
        ),
    ];
    for (from, to, message, hint) in cases {
        let marker = GOOD.replacen(from, to, 1);
        let hooks = format!(
            "//! Webhooks.\n\n/// +kubebuilder:webhook:{marker}\npub struct ThingDefaulter;\n"
        );
        let dir = webhook_project(&hooks);
        let e = diagnostics(dir.path());
        assert!(
            e.contains(&format!(
                "error: {message}\n --> src/webhook/v1/thing_webhook.rs:3:5\n"
            )),
            "{to}: {e}"
        );
        assert!(e.contains(&format!("= help: {hint}")), "{to}: {e}");
    }
    // Policies and verbs rkb would otherwise pass through; side effects the API server refuses; two webhooks of
    // one name; a second configuration marker.
    let bad = GOOD
        .replace("failurePolicy=fail", "failurePolicy=Retry")
        .replace("verbs=create;update", "verbs=create;patch")
        .replace("sideEffects=None", "sideEffects=Some");
    let hooks = format!(
        "//! +kubebuilder:webhookconfiguration:mutating=true,name=a\n\
         //! +kubebuilder:webhookconfiguration:mutating=true,name=b\n\n\
         /// +kubebuilder:webhook:{bad}\n\
         /// +kubebuilder:webhook:{GOOD}\n\
         /// +kubebuilder:webhook:{GOOD}\n\
         pub struct ThingDefaulter;\n"
    );
    let dir = webhook_project(&hooks);
    let e = diagnostics(dir.path());
    for needle in [
        "error: a second mutating `+kubebuilder:webhookconfiguration` (the first names `a`)\n --> src/webhook/v1/thing_webhook.rs:2:5\n",
        "error: unknown failurePolicy `Retry`: the API server refuses it\n --> src/webhook/v1/thing_webhook.rs:4:5\n",
        "error: a second webhook named `mthing-v1.kb.io` in one configuration\n --> src/webhook/v1/thing_webhook.rs:6:5\n",
    ] {
        assert!(e.contains(needle), "{needle}\nin: {e}");
    }
    // Fixed one at a time, the next problem of the same marker shows: verbs, then side effects.
    let bad = bad.replace("failurePolicy=Retry", "failurePolicy=Fail");
    let hooks = format!("/// +kubebuilder:webhook:{bad}\npub struct ThingDefaulter;\n");
    fs::write(dir.path().join("src/webhook/v1/thing_webhook.rs"), &hooks).unwrap();
    let e = diagnostics(dir.path());
    assert!(
        e.contains("error: unknown verb `patch` in a webhook rule: the API server refuses it"),
        "{e}"
    );
    let hooks = hooks.replace("verbs=create;patch", "verbs=create");
    fs::write(dir.path().join("src/webhook/v1/thing_webhook.rs"), &hooks).unwrap();
    let e = diagnostics(dir.path());
    assert!(
        e.contains("error: SideEffects should not be set to `Some` or `Unknown` for v1 {Mutating,Validating}WebhookConfiguration"),
        "{e}"
    );
    // Fixed, it generates.
    let hooks = hooks.replace("sideEffects=Some", "sideEffects=None");
    fs::write(dir.path().join("src/webhook/v1/thing_webhook.rs"), &hooks).unwrap();
    let out = generated(dir.path());
    let manifests = out.webhooks.expect("manifests.yaml");
    assert!(manifests.contains("name: mthing-v1.kb.io"), "{manifests}");
}

/// Another crate's type has no fields rkb can read: a Type marker (on the field, or on a newtype around it)
/// describes it by its JSON; without one, the error names the type and the marker to add.
#[test]
fn external_types_are_described_by_their_type_marker() {
    let spec = "pub struct ThingSpec {
    /// Home page.
    /// +kubebuilder:validation:Type=string
    /// +kubebuilder:validation:Format=uri
    pub home: url::Url,
    /// Optional mirror.
    /// +kubebuilder:validation:Type=string
    #[serde(default, skip_serializing_if = \"Option::is_none\")]
    pub mirror: Option<url::Url>,
    /// Bare.
    pub bare: url::Url,
}
";
    let dir = thing_project(spec);
    let e = diagnostics(dir.path());
    assert!(
        e.contains("error: cannot resolve type `url::Url`\n  --> src/api/v1/thing_types.rs:18:9\n"),
        "{e}"
    );
    assert!(
        e.contains("`+kubebuilder:validation:Type=<type>` (and Format) on this field or on a newtype around it"),
        "{e}"
    );
    assert_eq!(e.matches("cannot resolve type").count(), 1, "{e}");
    let fixed = spec.replace("    /// Bare.\n    pub bare: url::Url,\n", "");
    rewrite_spec(&dir, &fixed);
    let out = generated(dir.path());
    let yaml = &out.crds[0].yaml;
    assert!(
        yaml.contains("home:\n                description: Home page.\n                format: uri\n                type: string\n"),
        "{yaml}"
    );
    assert!(
        yaml.contains(
            "mirror:\n                description: Optional mirror.\n                type: string\n"
        ),
        "{yaml}"
    );
}

/// A Type marker other than object on a struct with fields, on the struct or on a field of it: the derived JSON is
/// an object, so the schema would lie (controller-gen fails on the field case without a location, and writes the
/// struct case). Located errors, both.
#[test]
fn a_type_marker_cannot_turn_a_struct_into_another_type() {
    let spec = "pub struct ThingSpec {
    /// +kubebuilder:validation:Type=string
    pub window: Window,
    pub label: Label,
}
pub struct Window {
    pub start: String,
}
/// +kubebuilder:validation:Type=integer
pub struct Label {
    pub text: String,
}
";
    let dir = thing_project(spec);
    let e = diagnostics(dir.path());
    let help = "= help: drop the marker, or give the type the JSON format the marker describes: \
                `#[serde(into = ...)]`, a hand-written `impl Serialize`, or a newtype over another crate's type\n";
    let field = format!(
        "error: conflicting types: the Type marker says string, but `Window` serializes as object\n \
         --> src/api/v1/thing_types.rs:9:9\n  |\n9 |     /// +kubebuilder:validation:Type=string\n  \
         |         ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^\n  {help}"
    );
    let on_type = format!(
        "error: conflicting types: the Type marker says integer, but `Label` serializes as object\n  \
         --> src/api/v1/thing_types.rs:16:5\n   |\n16 | /// +kubebuilder:validation:Type=integer\n   \
         |     ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^\n   {help}"
    );
    assert!(e.contains(&field), "{e}");
    assert!(e.contains(&on_type), "{e}");
    // The marker that agrees, and the empty one (no type, with XIntOrString), are fine.
    let fixed = spec
        .replace("Type=string\n    pub window", "Type=object\n    pub window")
        .replace("/// +kubebuilder:validation:Type=integer\n", "");
    rewrite_spec(&dir, &fixed);
    generated(dir.path());
}

/// A local type whose JSON is not its fields (`#[serde(into/from/try_from)]`, a hand-written serde impl anywhere
/// under src/) is described by its Type marker, on the type or on the field, as controller-gen describes a Go type
/// with its own MarshalJSON; without one, an error at the type says where the format comes from.
#[test]
fn types_with_their_own_json_need_a_type_marker() {
    let spec = "pub struct ThingSpec {
    pub level: Level,
    /// When.
    pub window: Window,
}
/// Level is written as its name.
#[serde(into = \"String\", try_from = \"String\")]
pub struct Level {
    pub value: u8,
}
pub struct Window {
    pub start: u32,
}
";
    let wire = "use crate::api::v1::Window;
impl serde::Serialize for Window {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&self.start.to_string())
    }
}
";
    let dir = project(&[
        ("src/api/v1/mod.rs", "//! +groupName=t.example.com\n"),
        ("src/api/v1/thing_types.rs", &format!("{ROOT}{spec}")),
        ("src/wire.rs", wire),
    ]);
    let e = diagnostics(dir.path());
    let help = |name: &str| {
        format!(
            "= help: describe its JSON with `+kubebuilder:validation:Type=<type>` (and Format, ...) on `{name}` or on \
             the fields that use it, as controller-gen does for a Go type with its own MarshalJSON\n"
        )
    };
    let level = format!(
        "error: `Level` has a JSON format of its own (its `#[serde(into = \"String\")]`), which rkb cannot read\n  \
         --> src/api/v1/thing_types.rs:15:12\n   |\n15 | pub struct Level {{\n   |            ^^^^^\n   {}",
        help("Level")
    );
    let window = format!(
        "error: `Window` has a JSON format of its own (the hand-written `impl Serialize` at src/wire.rs:2), which rkb \
         cannot read\n  --> src/api/v1/thing_types.rs:18:12\n   |\n18 | pub struct Window {{\n   |            \
         ^^^^^^\n   {}",
        help("Window")
    );
    assert!(e.contains(&level), "{e}");
    assert!(e.contains(&window), "{e}");
    assert!(e.contains("aborting due to 2 previous errors"), "{e}");
    // The Type marker on the type, or on the field: the markers alone (no description, no properties).
    let fixed = spec
        .replace(
            "#[serde(into",
            "/// +kubebuilder:validation:Type=string\n/// +kubebuilder:validation:MaxLength=8\n#[serde(into",
        )
        .replace(
            "    /// When.\n",
            "    /// When.\n    /// +kubebuilder:validation:Type=string\n",
        );
    rewrite_spec(&dir, &fixed);
    let out = generated(dir.path());
    let yaml = &out.crds[0].yaml;
    let spec_yaml = "            properties:
              level:
                maxLength: 8
                type: string
              window:
                description: When.
                type: string
            required:
            - level
            - window
";
    assert!(yaml.contains(spec_yaml), "{yaml}");
}

/// Defaults are held to the schema they sit in, as the API server holds them (it refuses the CRD otherwise):
/// type, validation bounds, and an object default's fields. The API server's side: apiserver_accepts.rs.
#[test]
fn defaults_the_api_server_would_refuse_are_errors() {
    let spec = "pub struct ThingSpec {
    /// +kubebuilder:default=three
    /// +optional
    pub replicas: Option<i32>,
    /// +kubebuilder:default={name: web, colour: red}
    /// +optional
    pub endpoint: Option<Endpoint>,
    /// +kubebuilder:validation:Maximum=10
    /// +kubebuilder:default=11
    /// +optional
    pub workers: Option<i32>,
    /// +optional
    pub ports: Vec<Port>,
    /// +kubebuilder:validation:Pattern=`^[a-z]+$`
    /// +kubebuilder:default=Web_1
    /// +optional
    pub tier: Option<String>,
}
pub struct Endpoint {
    pub name: String,
}
pub struct Port {
    /// +kubebuilder:default=5
    pub name: String,
}
";
    let dir = thing_project(spec);
    let e = diagnostics(dir.path());
    let refused = "error: the v1 schema of `Thing` has a default the API server refuses at";
    // Each at its marker, through items too.
    for (path, at) in [
        ("`.spec.replicas`", " --> src/api/v1/thing_types.rs:9:9\n"),
        ("`.spec.endpoint`", "  --> src/api/v1/thing_types.rs:12:9\n"),
        ("`.spec.workers`", "  --> src/api/v1/thing_types.rs:16:9\n"),
        (
            "`.spec.ports[*].name`: 5 is not of type string",
            "  --> src/api/v1/thing_types.rs:30:9\n",
        ),
        (
            "`.spec.tier`: \"Web_1\" does not match the pattern `^[a-z]+$`",
            "  --> src/api/v1/thing_types.rs:22:9\n",
        ),
    ] {
        let line = e
            .lines()
            .position(|l| l.starts_with(&format!("{refused} {path}")));
        let next = line.and_then(|n| e.lines().nth(n + 1)).unwrap_or_default();
        assert_eq!(format!("{next}\n"), at, "{path}:\n{e}");
    }
    assert!(
        e.contains(&format!(
            "{refused} `.spec.replicas`: \"three\" is not of type integer\n"
        )),
        "{e}"
    );
    assert!(
        e.contains(&format!(
            "{refused} `.spec.endpoint`: `colour` is not a field of this object\n"
        )),
        "{e}"
    );
    assert!(
        e.contains(&format!(
            "{refused} `.spec.workers`: 11 is above the maximum 10\n"
        )),
        "{e}"
    );
    assert!(
        e.contains("= help: make the `+kubebuilder:default` value fit"),
        "{e}"
    );
    let fixed = spec
        .replace("default=three", "default=3")
        .replace(", colour: red", "")
        .replace("default=11", "default=10")
        .replace("default=5", "default=http")
        .replace("default=Web_1", "default=web");
    rewrite_spec(&dir, &fixed);
    generated(dir.path());
}

/// CEL rules the API server estimates too expensive are refused before writing: a rule over the limit per rule at
/// its marker, a schema whose rules together are over the limit per schema at the kind; each with the bounds to
/// add. The API server's side: apiserver_accepts.rs.
#[test]
fn cel_rules_the_api_server_estimates_too_expensive_are_errors() {
    let names_rules: String = (0..11)
        .map(|i| {
            format!(
                "    /// +kubebuilder:validation:items:XValidation:rule=\"self.size() > 1 && self.size() < {} && self.size() >= 2\"\n",
                60 + i
            )
        })
        .collect();
    let spec = format!(
        "pub struct ThingSpec {{
    /// +kubebuilder:validation:XValidation:rule=\"self.all(x, self.exists_one(y, y == x))\",message=\"tags are unique\"
    pub tags: Vec<String>,
{names_rules}    pub names: Vec<String>,
}}
"
    );
    let dir = thing_project(&spec);
    let refusal = || diagnostics(dir.path());
    assert_eq!(
        refusal(),
        "error: the v1 schema of `Thing` has a CEL rule at `.spec.tags` too expensive for the API server: its \
         estimated cost, multiplied by the number of times it can run, is at least 345880409621712077, over the limit of 10000000 per \
         rule\n \
         --> src/api/v1/thing_types.rs:9:9\n  \
         |\n\
         9 |     /// +kubebuilder:validation:XValidation:rule=\"self.all(x, self.exists_one(y, y == x))\",message=\"tags are unique\"\n  \
         |         ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^\n  \
         = help: add +kubebuilder:validation:MaxItems on `.spec.tags`, +kubebuilder:validation:MaxLength on \
         `.spec.tags[*]`: without a bound, the API server assumes a list, map or string as large as fits in a 3 MiB \
         request; or simplify the rule\n\n\
         error: aborting due to 1 previous error; no file written\n"
    );
    // Bounded as the hint says, the rule passes; the rules on `names` are each under the limit per rule but not
    // together: each runs once per item of an unbounded list of strings, 3 MiB / 3 bytes = 1048576 times.
    let bounded = spec.replace(
        "    pub tags: Vec<String>,",
        "    /// +kubebuilder:validation:MaxItems=64\n    /// +kubebuilder:validation:items:MaxLength=63\n    pub tags: Vec<String>,",
    );
    rewrite_spec(&dir, &bounded);
    assert_eq!(
        refusal(),
        "error: the v1 schema of `Thing` has CEL rules too expensive together for the API server: their estimated \
         costs, each multiplied by the number of times its rule can run, add up to at least 103932290, over the limit of 100000000 per \
         schema (the most: `.spec.names[*]` 103809024 in 11 rules, `.spec.tags` 123266)\n \
         --> src/api/v1/thing_types.rs:3:12\n  \
         |\n\
         3 | pub struct Thing {\n  \
         |            ^^^^^\n  \
         = help: add +kubebuilder:validation:MaxItems on `.spec.names`: without a bound, the API server assumes a \
         list, map or string as large as fits in a 3 MiB request; or simplify the rule\n\n\
         error: aborting due to 1 previous error; no file written\n"
    );
    rewrite_spec(
        &dir,
        &bounded.replace(
            "    pub names: Vec<String>,",
            "    /// +kubebuilder:validation:MaxItems=100\n    pub names: Vec<String>,",
        ),
    );
    generated(dir.path());
}

/// The API server evaluates the CEL rules of a default's field (and of the fields inside an object default) on
/// the default, and refuses the CRD when one is false: so does rkb, at the default marker. A rule rkb does not
/// evaluate is a warning there, not an error. The API server's side: apiserver_accepts.rs.
#[test]
fn defaults_that_break_their_cel_rules_are_errors() {
    let spec = "pub struct ThingSpec {
    /// +kubebuilder:validation:XValidation:rule=\"self >= 2\",message=\"at least two replicas\"
    /// +kubebuilder:default=1
    /// +optional
    pub replicas: Option<i32>,
    /// +kubebuilder:default={min: 5, max: 1}
    /// +optional
    pub range: Option<Range>,
}
/// +kubebuilder:validation:XValidation:rule=\"self.min <= self.max\"
pub struct Range {
    pub min: i32,
    pub max: i32,
}
";
    let dir = thing_project(spec);
    let e = diagnostics(dir.path());
    let help = "   = help: change the default or the rule: the API server evaluates the CEL rules of the default's \
                field, and of the fields inside the default, on the default\n";
    assert_eq!(
        e,
        format!(
            "error: the v1 schema of `Thing` has a default the API server refuses at `.spec.replicas`: the CEL rule \
             `self >= 2` is false for 1 (its message: \"at least two replicas\")\n  \
             --> src/api/v1/thing_types.rs:10:9\n   \
             |\n\
             10 |     /// +kubebuilder:default=1\n   \
             |         ^^^^^^^^^^^^^^^^^^^^^^\n\
             {help}\n\
             error: the v1 schema of `Thing` has a default the API server refuses at `.spec.range`: the CEL rule \
             `self.min <= self.max` is false for {{\"max\":1,\"min\":5}}\n  \
             --> src/api/v1/thing_types.rs:13:9\n   \
             |\n\
             13 |     /// +kubebuilder:default={{min: 5, max: 1}}\n   \
             |         ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^\n\
             {help}\n\
             error: aborting due to 2 previous errors; no file written\n"
        )
    );
    // Defaults that satisfy the rules pass, and write no warning.
    let fixed = spec
        .replace("default=1", "default=2")
        .replace("{min: 5, max: 1}", "{min: 1, max: 5}");
    rewrite_spec(&dir, &fixed);
    let out = generated(dir.path());
    assert!(out.warnings.is_empty(), "{:?}", out.warnings);
    // A rule with a function rkb does not evaluate is not checked, and says so once at the default.
    let unchecked = fixed.replace("self >= 2", "self >= 2 && quantity('1').isInteger()");
    rewrite_spec(&dir, &unchecked);
    let out = generated(dir.path());
    assert_eq!(
        rkb_markers::render_all(&out.warnings),
        "warning: rkb did not check this default against the CEL rule `self >= 2 && quantity('1').isInteger()`: it \
         does not evaluate the function `quantity`; the API server does when the CRD is installed, and refuses the \
         CRD if the rule is false for the default\n  \
         --> src/api/v1/thing_types.rs:10:9\n   \
         |\n\
         10 |     /// +kubebuilder:default=2\n   \
         |         ^^^^^^^^^^^^^^^^^^^^^^\n   \
         = help: make sure the default satisfies the rule, e.g. by installing the CRD in a test API server (envtest)\n\n"
    );
}

/// A default or CEL rule inside a type held through a smart pointer (`Arc<T>`, `Rc<T>`, `Cow<'_, T>`, which serde
/// writes as the `T`) is reported at its marker, as one inside a plain field is: the schema node knows which field
/// made it, so no second reading of the wrapper types is needed to find the marker.
#[test]
fn defaults_and_rules_behind_smart_pointers_are_reported_at_their_markers() {
    let spec = "use std::borrow::Cow;
use std::rc::Rc;
use std::sync::Arc;

pub struct ThingSpec {
    pub sized: Arc<Sized>,
    pub ranged: Cow<'static, Ranged>,
    pub tagged: Rc<Tagged>,
}

pub struct Sized {
    /// +kubebuilder:validation:Minimum=0
    /// +kubebuilder:default=-5
    /// +optional
    pub size: Option<i32>,
}

#[derive(Clone)]
pub struct Ranged {
    /// +kubebuilder:validation:XValidation:rule=\"self >= 2\",message=\"at least two replicas\"
    /// +kubebuilder:default=1
    /// +optional
    pub replicas: Option<i32>,
}

pub struct Tagged {
    /// +kubebuilder:validation:XValidation:rule=\"self.all(x, self.exists_one(y, y == x))\",message=\"tags are unique\"
    pub tags: Vec<String>,
}
";
    let dir = thing_project(spec);
    assert_eq!(
        diagnostics(dir.path()),
        "error: the v1 schema of `Thing` has a default the API server refuses at `.spec.sized.size`: -5 is below the \
         minimum 0\n  \
         --> src/api/v1/thing_types.rs:20:9\n   \
         |\n\
         20 |     /// +kubebuilder:default=-5\n   \
         |         ^^^^^^^^^^^^^^^^^^^^^^^\n   \
         = help: make the `+kubebuilder:default` value fit the field's type and validation markers; an object \
         default names only the object's fields and gives each required field a value itself\n\n\
         error: the v1 schema of `Thing` has a default the API server refuses at `.spec.ranged.replicas`: the CEL \
         rule `self >= 2` is false for 1 (its message: \"at least two replicas\")\n  \
         --> src/api/v1/thing_types.rs:28:9\n   \
         |\n\
         28 |     /// +kubebuilder:default=1\n   \
         |         ^^^^^^^^^^^^^^^^^^^^^^\n   \
         = help: change the default or the rule: the API server evaluates the CEL rules of the default's field, and \
         of the fields inside the default, on the default\n\n\
         error: aborting due to 2 previous errors; no file written\n"
    );
    // With the defaults fixed, the check rules go on to the CEL cost of the rule under `Rc`.
    rewrite_spec(
        &dir,
        &spec
            .replace("default=-5", "default=5")
            .replace("default=1", "default=2"),
    );
    assert_eq!(
        diagnostics(dir.path()),
        "error: the v1 schema of `Thing` has a CEL rule at `.spec.tagged.tags` too expensive for the API server: its \
         estimated cost, multiplied by the number of times it can run, is at least 345880409621712077, over the limit \
         of 10000000 per rule\n  \
         --> src/api/v1/thing_types.rs:34:9\n   \
         |\n\
         34 |     /// +kubebuilder:validation:XValidation:rule=\"self.all(x, self.exists_one(y, y == x))\",message=\"tags are unique\"\n   \
         |         ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^\n   \
         = help: add +kubebuilder:validation:MaxItems on `.spec.tagged.tags`, +kubebuilder:validation:MaxLength on \
         `.spec.tagged.tags[*]`: without a bound, the API server assumes a list, map or string as large as fits in a \
         3 MiB request; or simplify the rule\n\n\
         error: aborting due to 1 previous error; no file written\n"
    );
}

/// An Enum marker without values (`Enum=`, `Enum={}`) would write `enum: []`, which the API server drops: the field
/// would take any value. An error at the marker.
#[test]
fn an_enum_marker_without_values_is_an_error() {
    let spec = "pub struct ThingSpec {
    /// +kubebuilder:validation:Enum=
    pub mode: String,
    /// +kubebuilder:validation:items:Enum={}
    pub tiers: Vec<String>,
}
";
    let dir = thing_project(spec);
    let help = |name: &str| {
        format!(
            "= help: an empty enum allows any value (the API server drops `enum: []`): list the allowed values, \
             `+{name}=a;b`, or remove the marker\n"
        )
    };
    assert_eq!(
        diagnostics(dir.path()),
        format!(
            "error: marker `kubebuilder:validation:Enum` lists no values\n \
             --> src/api/v1/thing_types.rs:9:37\n  |\n9 |     /// +kubebuilder:validation:Enum=\n  \
             |                                     ^\n  {}\n\
             error: marker `kubebuilder:validation:items:Enum` lists no values\n  \
             --> src/api/v1/thing_types.rs:11:43\n   |\n11 |     /// +kubebuilder:validation:items:Enum={{}}\n   \
             |                                           ^^^\n   {}\n\
             error: aborting due to 2 previous errors; no file written\n",
            help("kubebuilder:validation:Enum"),
            help("kubebuilder:validation:items:Enum"),
        )
    );
    rewrite_spec(
        &dir,
        &spec
            .replace("Enum=\n", "Enum=fast;safe\n")
            .replace("Enum={}", "Enum={gold,silver}"),
    );
    let yaml = &generated(dir.path()).crds[0].yaml;
    assert!(
        yaml.contains(
            "mode:\n                enum:\n                - fast\n                - safe\n"
        ),
        "{yaml}"
    );
}

/// A CRD version's name is a DNS-1035 label, or the API server refuses the CRD: the version module's name (an
/// error at its `+groupName`) or its `+versionName` (an error there) must be one.
#[test]
fn version_names_the_api_server_refuses_are_errors() {
    let types = format!("{ROOT}pub struct ThingSpec {{ pub a: String }}\n");
    let dir = project(&[
        ("src/api/v1_alpha1/mod.rs", "//! +groupName=t.example.com\n"),
        ("src/api/v1_alpha1/thing_types.rs", &types),
    ]);
    assert_eq!(
        diagnostics(dir.path()),
        "error: `v1_alpha1` is not a valid CRD version name: it holds `_`\n \
         --> src/api/v1_alpha1/mod.rs:1:5\n  |\n1 | //! +groupName=t.example.com\n  \
         |     ^^^^^^^^^^^^^^^^^^^^^^^^\n  = help: the version is the module's name, and the API server requires a \
         CRD version name to be a DNS-1035 label (lower-case letters, digits and '-', starting with a letter and \
         ending with a letter or a digit, at most 63 characters): name the version with \
         `//! +versionName=v1alpha1` beside `+groupName`\n\n\
         error: aborting due to 1 previous error; no file written\n"
    );
    let long = format!("v1-{}", "x".repeat(61));
    fs::write(
        dir.path().join("src/api/v1_alpha1/mod.rs"),
        format!("//! +groupName=t.example.com\n//! +versionName={long}\npub mod thing_types;\n"),
    )
    .unwrap();
    assert_eq!(
        diagnostics(dir.path()),
        format!(
            "error: `{long}` is not a valid CRD version name: it is 64 characters long\n \
             --> src/api/v1_alpha1/mod.rs:2:5\n  |\n2 | //! +versionName={long}\n  |     {}\n  \
             = help: the API server requires a CRD version name to be a DNS-1035 label (lower-case letters, digits \
             and '-', starting with a letter and ending with a letter or a digit, at most 63 characters): e.g. \
             `//! +versionName={}`\n\n\
             error: aborting due to 1 previous error; no file written\n",
            "^".repeat(13 + 64),
            &long[..63],
        )
    );
    fs::write(
        dir.path().join("src/api/v1_alpha1/mod.rs"),
        "//! +groupName=t.example.com\n//! +versionName=v1alpha1\npub mod thing_types;\n",
    )
    .unwrap();
    assert_eq!(generated(dir.path()).crds.len(), 1);
}

/// A newtype over another crate's type (here `url::Url`, without a Type marker) is described by a Type marker on
/// the newtype: the hint says so, and names no local type that merely looks like the crate's.
#[test]
fn a_newtype_over_another_crates_type_is_told_to_take_a_type_marker() {
    let spec = "pub struct ThingSpec {
    pub endpoint: Endpoint,
}
pub struct Endpoint(pub url::Url);
pub struct Url2 {
    pub host: String,
}
";
    let dir = thing_project(spec);
    assert_eq!(
        diagnostics(dir.path()),
        "error: cannot resolve type `url::Url`\n  --> src/api/v1/thing_types.rs:11:12\n   |\n\
         11 | pub struct Endpoint(pub url::Url);\n   |            ^^^^^^^^\n   = help: `url::Url` is another crate's \
         type, whose JSON rkb cannot read: add a Type marker to `Endpoint` that says what JSON `url::Url` serializes \
         as, e.g. `/// +kubebuilder:validation:Type=string` (and Format, ...), as controller-gen takes a type with \
         its own JSON format from its markers\n\n\
         error: aborting due to 1 previous error; no file written\n"
    );
    rewrite_spec(
        &dir,
        &spec.replace(
            "pub struct Endpoint",
            "/// +kubebuilder:validation:Type=string\n/// +kubebuilder:validation:Format=uri\npub struct Endpoint",
        ),
    );
    let yaml = &generated(dir.path()).crds[0].yaml;
    assert!(
        yaml.contains("endpoint:\n                format: uri\n                type: string\n"),
        "{yaml}"
    );
}

/// Runs `f` on a thread with the default 2 MiB stack of a test thread, whatever RUST_MIN_STACK says.
fn on_a_test_threads_stack<T: Send>(f: impl FnOnce() -> T + Send) -> T {
    std::thread::scope(|s| {
        std::thread::Builder::new()
            .stack_size(2 << 20)
            .spawn_scoped(s, f)
            .unwrap()
            .join()
            .unwrap()
    })
}

/// Types nested 20,000 levels deep (generated input: generic arguments, a chain of structs through Box, of
/// newtypes) aborted the run with a stack overflow. Each is an error at the level past the limit, on a 2 MiB stack,
/// whichever reader meets it: the scanner, the check before syn parses a file the scanner steps aside for, the
/// schema generator.
#[test]
fn types_nested_twenty_thousand_levels_deep_are_errors_not_stack_overflows() {
    const DEPTH: usize = 20_000;
    let source_help = "= help: rkb reads at most 128 levels of nesting (each `<`, `(`, `[` and `{` opens one), far \
                       more than an API type needs; input this deep is generated or broken\n";
    let schema_help = "= help: rkb follows at most 128 levels, counting each type resolved inside another (a \
                       field's type, a type argument, an alias's or newtype's target) and each level of the schema; a \
                       structure that nests without end belongs in a type that refers to itself (written as `{}` \
                       inside, as controller-gen does) or in serde_json::Value\n";
    let one_error = |at: &str, line: &str, caret: &str, help: &str| {
        let num = at.split(':').next().unwrap();
        let pad = " ".repeat(num.len());
        format!(
            "error: nested deeper than 128 levels{at_kind}\n{pad}--> src/api/v1/thing_types.rs:{at}\n{pad} |\n\
             {num} | {line}\n{pad} | {caret}\n{pad} {help}\n\
             error: aborting due to 1 previous error; no file written\n",
            at_kind = if help == schema_help {
                " in the schema of `Thing`"
            } else {
                ""
            },
        )
    };
    let generics = format!("{}String{}", "Option<\n".repeat(DEPTH), ">".repeat(DEPTH));
    // The scanner reads the field's type level by level.
    let scanned = format!("pub struct ThingSpec {{\n    pub a: {generics},\n}}\n");
    // A `where` clause makes the scanner step aside: the file is measured before syn parses it.
    let parsed = format!(
        "pub struct Wrapper<T> where T: Clone {{\n    pub t: T,\n}}\npub struct ThingSpec {{\n    pub a: {}String{},\n}}\n",
        "Vec<\n".repeat(DEPTH),
        ">".repeat(DEPTH)
    );
    let boxed: String = (0..DEPTH)
        .map(|i| {
            format!(
                "pub struct A{i} {{\n    pub a: Option<Box<A{}>>,\n}}\n",
                i + 1
            )
        })
        .collect();
    let chain = format!(
        "pub struct ThingSpec {{\n    pub a: Box<A0>,\n}}\n{boxed}pub struct A{DEPTH} {{\n    pub a: String,\n}}\n"
    );
    let newtypes: String = (0..DEPTH)
        .map(|i| format!("pub struct A{i}(pub A{});\n", i + 1))
        .collect();
    let wrapped = format!(
        "pub struct ThingSpec {{\n    pub a: A0,\n}}\n{newtypes}pub struct A{DEPTH}(pub String);\n"
    );
    for (what, spec, expected) in [
        (
            "generics the scanner reads",
            scanned,
            one_error("137:1", "Option<", "^", source_help),
        ),
        (
            "generics syn would parse",
            parsed,
            one_error("139:4", "Vec<", "   ^", source_help),
        ),
        (
            "structs through Box",
            chain,
            one_error(
                "192:9",
                "    pub a: Option<Box<A61>>,",
                "        ^",
                schema_help,
            ),
        ),
        (
            "newtypes",
            wrapped,
            one_error(
                "72:12",
                "pub struct A61(pub A62);",
                "           ^^^",
                schema_help,
            ),
        ),
    ] {
        let dir = thing_project(&spec);
        let rendered = on_a_test_threads_stack(|| diagnostics(dir.path()));
        assert_eq!(rendered, expected, "{what}");
    }
}

/// A type's schema is resolved once and reused: used again deeper than where it was first resolved, it is held to
/// the same limit (what it spans counts from where it is used).
#[test]
fn a_schema_reused_deeper_is_held_to_the_nesting_limit() {
    let chain = |name: &str, len: usize, end: &str| -> String {
        (0..len)
            .map(|i| {
                let next = if i + 1 == len {
                    end.to_string()
                } else {
                    format!("{name}{}", i + 1)
                };
                format!("pub struct {name}{i} {{\n    pub next: {next},\n}}\n")
            })
            .collect()
    };
    // `a_shallow` resolves D0 first, 50 structs deep; `b_deep` reaches it again below 40 more.
    let spec = format!(
        "pub struct ThingSpec {{\n    pub a_shallow: D0,\n    pub b_deep: W0,\n}}\n{}{}",
        chain("D", 50, "String"),
        chain("W", 40, "D0")
    );
    let dir = thing_project(&spec);
    let e = on_a_test_threads_stack(|| diagnostics(dir.path()));
    assert!(
        e.starts_with(
            "error: nested deeper than 128 levels in the schema of `Thing`\n  \
             --> src/api/v1/thing_types.rs:12:12\n   |\n12 | pub struct D0 {\n   |            ^^\n"
        ),
        "{e}"
    );
    assert!(
        e.ends_with("error: aborting due to 1 previous error; no file written\n"),
        "{e}"
    );
    // Each use alone is within the limit.
    rewrite_spec(&dir, &spec.replace("    pub b_deep: W0,\n", ""));
    on_a_test_threads_stack(|| generated(dir.path()));
}

/// Cargo refuses a Cargo.toml that is not TOML. rkb read it line by line and, on a syntax error, fell back to its
/// defaults (Kubernetes 1.35, strict markers) without a word: now the TOML error, where it is, and nothing written.
#[test]
fn a_cargo_toml_that_is_not_toml_is_an_error_where_it_breaks() {
    let dir = thing_project(
        "pub struct ThingSpec {\n    /// +kubebuilder:validation:nullable\n    pub a: String,\n}\n",
    );
    let manifest = dir.path().join("Cargo.toml");
    fs::write(
        &manifest,
        "[package]\nname = \"t\"\nversion = \"0.1.0\n\n[package.metadata.rkb]\nallow-unknown-markers = true\n",
    )
    .unwrap();
    let e = diagnostics(dir.path());
    assert!(
        e.starts_with(
            "error: Cargo.toml is not valid TOML: this string is not closed on its line\n \
             --> Cargo.toml:3:11\n  |\n3 | version = \"0.1.0\n  |           ^\n  = help: cargo refuses this \
             manifest too; rkb reads its [package.metadata.rkb] table and the k8s-openapi feature from it\n\n"
        ),
        "{e}"
    );
    // The unknown marker too, as strict is all rkb knows then.
    assert!(
        e.ends_with("error: aborting due to 2 previous errors; no file written\n"),
        "{e}"
    );
    // Read as written, the setting holds: the unknown marker is a warning.
    fs::write(
        &manifest,
        "[package]\nname = \"t\"\nversion = \"0.1.0\"\n\n[package.metadata.rkb]\nallow-unknown-markers = true\n",
    )
    .unwrap();
    assert_eq!(generated(dir.path()).warnings.len(), 1);
}

/// A List type ported from Go with kube's re-exports of the metas (`kube::core::ListMeta` is k8s-openapi's) is a
/// list, as with the k8s-openapi path: no CRD, and no "not a kind" warning about its root marker.
#[test]
fn a_list_type_with_kubes_list_meta_is_a_list() {
    let types = "use kube::core::{ListMeta, ObjectMeta, TypeMeta};
use serde::{Deserialize, Serialize};
/// Backup is a copy of a volume.
/// +kubebuilder:object:root=true
#[derive(Serialize, Deserialize)]
pub struct Backup {
    #[serde(flatten)]
    pub type_meta: TypeMeta,
    #[serde(default)]
    pub metadata: ObjectMeta,
    pub volume: String,
}
/// BackupList contains a list of Backup.
/// +kubebuilder:object:root=true
#[derive(Serialize, Deserialize)]
pub struct BackupList {
    #[serde(flatten)]
    pub type_meta: TypeMeta,
    #[serde(default)]
    pub metadata: ListMeta,
    pub items: Vec<Backup>,
}
";
    let dir = kinds_project(&[("src/api/v1/backup_types.rs", types)]);
    let out = generated(dir.path());
    let files: Vec<&str> = out.crds.iter().map(|c| c.file_name.as_str()).collect();
    assert_eq!(files, ["g.example.com_backups.yaml"]);
    let warnings: Vec<String> = out.warnings.iter().map(|w| w.render()).collect();
    assert!(warnings.is_empty(), "{warnings:#?}");
}

/// A OneOf marker over nested fields (`source.git`), which controller-gen refuses: the error lists every nested
/// field, as controller-gen does, and says where the marker goes instead (the corpus-errors cases, which
/// differential.rs's `invalid_apis_fail_in_both` holds controller-gen to as well).
#[test]
fn one_of_markers_over_nested_fields_say_where_the_marker_goes() {
    let case = |name: &str| {
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/corpus-errors")
            .join(name)
    };
    assert_eq!(
        diagnostics(&case("at-most-one-of-nested")),
        "error: AtMostOneOf: cannot reference nested fields: source.git, source.oci
  --> src/api/v1/mirror_types.rs:11:5
   |
11 | /// +kubebuilder:validation:AtMostOneOf=source.git;source.oci
   |     ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
   = help: a OneOf marker counts the fields of the type it is on: put `+kubebuilder:validation:AtMostOneOf=git;oci` \
on the type of `source` instead, naming the fields as they are there

warning: `+kubebuilder:object:root`, `+kubebuilder:subresource:status`, `+kubebuilder:resource` on `MirrorSpec`, \
which is not a kind: no CRD reads them
 --> src/api/v1/mirror_types.rs:5:5
  |
5 | /// +kubebuilder:object:root=true
  |     ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
  = help: move them to the kind `Mirror` (a Go file ported as it is often has them on the Spec)

error: aborting due to 1 previous error; no file written
"
    );
    assert_eq!(
        diagnostics(&case("exactly-one-of-nested")),
        "error: ExactlyOneOf: cannot reference nested fields: auth.token, auth.basic
  --> src/api/v1/types.rs:21:5
   |
21 | /// +kubebuilder:validation:ExactlyOneOf=auth.token;auth.basic
   |     ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
   = help: a OneOf marker counts the fields of the type it is on: put \
`+kubebuilder:validation:ExactlyOneOf=token;basic` on the type of `auth` instead, naming the fields as they are there

error: aborting due to 1 previous error; no file written
"
    );
    // Fields of two objects are no OneOf of either type.
    let dir = thing_project(
        "/// +kubebuilder:validation:AtMostOneOf=image;source.git
pub struct ThingSpec {
    \
         #[serde(default)]
    pub image: Option<String>,
    pub source: Source,
}
\
         pub struct Source {
    #[serde(default)]
    pub git: Option<String>,
}
",
    );
    let e = diagnostics(dir.path());
    assert!(
        e.starts_with(
            "error: AtMostOneOf: cannot reference nested fields: source.git\n \
             --> src/api/v1/thing_types.rs:8:5\n"
        ),
        "{e}"
    );
    assert!(
        e.contains(
            "= help: a OneOf marker counts the fields of the type it is on, named as they are there: move it to the \
             type that holds them all, or write the rule with `+kubebuilder:validation:XValidation` on this type\n"
        ),
        "{e}"
    );
}

/// Go's TextMarshaler ported with serde_with: a type deriving `SerializeDisplay`/`DeserializeFromStr`, or a field
/// written through `#[serde_as(as = "DisplayFromStr")]`, is a JSON string however many fields the type has. Like every
/// type with its own JSON, it is described by its Type marker (on the type, or on the field); without one, an error
/// names the derive or the attribute. rkb said `type: object` with the fields before.
#[test]
fn display_texts_of_serde_with_need_a_type_marker() {
    let spec = "use serde::{Deserialize, Serialize};
use serde_with::{DeserializeFromStr, DisplayFromStr, SerializeDisplay, serde_as};
use std::collections::BTreeMap;
#[serde_as]
#[derive(Serialize, Deserialize)]
pub struct ThingSpec {
    pub target: Version,
    #[serde_as(as = \"DisplayFromStr\")]
    pub channel: Channel,
    #[serde_as(as = \"Option<DisplayFromStr>\")]
    #[serde(default)]
    pub port: Option<u16>,
    #[serde_as(as = \"Vec<DisplayFromStr>\")]
    pub mirrors: Vec<Channel>,
    #[serde_as(as = \"BTreeMap<DisplayFromStr, _>\")]
    pub weights: BTreeMap<u16, String>,
    #[serde_as(as = \"serde_with::DurationSeconds<u64>\")]
    pub timeout: std::time::Duration,
    pub admin_port: Port,
}
/// Version is written as \"major.minor\".
#[derive(SerializeDisplay, DeserializeFromStr)]
pub struct Version {
    pub major: i32,
    pub minor: i32,
}
/// Channel is a release channel, written as its name.
pub struct Channel {
    pub name: String,
}
/// Port is a port number, written as its digits.
#[serde_as]
#[derive(Serialize, Deserialize)]
pub struct Port(#[serde_as(as = \"DisplayFromStr\")] pub u16);
";
    let dir = thing_project(spec);
    let help_display = |place: &str| {
        format!(
            "= help: describe it with `+kubebuilder:validation:Type=string` (and Pattern, MaxLength, ...) {place}: its \
             JSON is the text of its Display, a string (controller-gen writes a Go type with MarshalText as one)\n"
        )
    };
    let field = |name: &str, attr: &str| {
        format!(
            "error: field `{name}` has a JSON format of its own (its `#[serde_as({attr})]`), which rkb cannot read\n"
        )
    };
    let expected = [
        format!(
            "{}  --> src/api/v1/thing_types.rs:16:9\n   |\n16 |     pub channel: Channel,\n   |         ^^^^^^^\n   {}",
            field("channel", "as = \"DisplayFromStr\""),
            help_display("on the field or on `Channel`")
        ),
        format!(
            "{}  --> src/api/v1/thing_types.rs:19:9\n   |\n19 |     pub port: Option<u16>,\n   |         ^^^^\n   {}",
            field("port", "as = \"Option<DisplayFromStr>\""),
            help_display("on the field")
        ),
        format!(
            "{}  --> src/api/v1/thing_types.rs:21:9\n   |\n21 |     pub mirrors: Vec<Channel>,\n   |         \
             ^^^^^^^\n   {}",
            field("mirrors", "as = \"Vec<DisplayFromStr>\""),
            help_display("on `Channel`")
        ),
        format!(
            "{}  --> src/api/v1/thing_types.rs:25:9\n   |\n25 |     pub timeout: std::time::Duration,\n   |         \
             ^^^^^^^\n   = help: describe its JSON with `+kubebuilder:validation:Type=<type>` (and Format, ...) on \
             the field: of serde_with's adapters, rkb reads `DisplayFromStr`, `_` and `Same`, also inside Option, \
             lists and maps (`Vec<DisplayFromStr>`, `BTreeMap<DisplayFromStr, _>`)\n",
            field("timeout", "as = \"serde_with::DurationSeconds<u64>\"")
        ),
        format!(
            "error: `Version` has a JSON format of its own (its `#[derive(SerializeDisplay)]`), which rkb cannot \
             read\n  --> src/api/v1/thing_types.rs:30:12\n   |\n30 | pub struct Version {{\n   |            \
             ^^^^^^^\n   {}",
            help_display("on `Version` or on the fields that use it")
        ),
        // A newtype written through an adapter: the type's JSON.
        "error: `Port` has a JSON format of its own (its field's `#[serde_as(as = \"DisplayFromStr\")]`), which rkb \
         cannot read\n  --> src/api/v1/thing_types.rs:41:12\n   |\n41 | pub struct Port(#[serde_as(as = \
         \"DisplayFromStr\")] pub u16);\n   |            ^^^^\n   = help: describe its JSON with \
         `+kubebuilder:validation:Type=<type>` (and Format, ...) on `Port` or on the fields that use it, as \
         controller-gen does for a Go type with its own MarshalJSON\n"
            .to_owned(),
    ];
    assert_eq!(
        diagnostics(dir.path()),
        format!(
            "{}\nerror: aborting due to 6 previous errors; no file written\n",
            expected.join("\n")
        )
    );

    // A Type marker that is not string where the JSON is a Display text: on the type, on the field.
    let conflicting = spec
        .replace("#[derive(SerializeDisplay", "/// +kubebuilder:validation:Type=integer\n#[derive(SerializeDisplay")
        .replace(
            "    #[serde_as(as = \"DisplayFromStr\")]\n",
            "    /// +kubebuilder:validation:Type=object\n    #[serde_as(as = \"DisplayFromStr\")]\n",
        );
    rewrite_spec(&dir, &conflicting);
    let e = diagnostics(dir.path());
    let help = "= help: make it `+kubebuilder:validation:Type=string`, and describe the text with Pattern, MaxLength, ...\n";
    assert!(
        e.contains(&format!(
            "error: conflicting types: the Type marker says object, but field `channel` writes `Channel` as its Display \
             text, a string (its `#[serde_as(as = \"DisplayFromStr\")]`)\n  --> src/api/v1/thing_types.rs:15:9\n   \
             |\n15 |     /// +kubebuilder:validation:Type=object\n   |         ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^\n   \
             {help}"
        )),
        "{e}"
    );
    assert!(
        e.contains(&format!(
            "error: conflicting types: the Type marker says integer, but `Version` is written as its Display text, a \
             string (its `#[derive(SerializeDisplay)]`)\n  --> src/api/v1/thing_types.rs:30:5\n   |\n30 | /// \
             +kubebuilder:validation:Type=integer\n   |     ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^\n   {help}"
        )),
        "{e}"
    );

    // Described: the markers alone, on the type or on the field; lists and maps of Display texts through their
    // adapters.
    let fixed = spec
        .replace(
            "#[derive(SerializeDisplay",
            "/// +kubebuilder:validation:Type=string\n/// +kubebuilder:validation:Pattern=`^\\d+\\.\\d+$`\n#[derive(SerializeDisplay",
        )
        .replace(
            "/// Channel is a release channel, written as its name.\n",
            "/// Channel is a release channel, written as its name.\n/// +kubebuilder:validation:Type=string\n\
             /// +kubebuilder:validation:MaxLength=32\n",
        )
        .replace(
            "    #[serde_as(as = \"Option<DisplayFromStr>\")]\n",
            "    /// +kubebuilder:validation:Type=string\n    #[serde_as(as = \"Option<DisplayFromStr>\")]\n",
        )
        .replace(
            "    #[serde_as(as = \"serde_with::DurationSeconds<u64>\")]\n",
            "    /// +kubebuilder:validation:Type=integer\n    #[serde_as(as = \"serde_with::DurationSeconds<u64>\")]\n",
        )
        .replace(
            "/// Port is a port number, written as its digits.\n",
            "/// Port is a port number, written as its digits.\n/// +kubebuilder:validation:Type=string\n",
        );
    rewrite_spec(&dir, &fixed);
    let out = generated(dir.path());
    let yaml = &out.crds[0].yaml;
    let spec_yaml = "            properties:
              admin_port:
                type: string
              channel:
                maxLength: 32
                type: string
              mirrors:
                items:
                  maxLength: 32
                  type: string
                type: array
              port:
                type: string
              target:
                pattern: ^\\d+\\.\\d+$
                type: string
              timeout:
                type: integer
              weights:
                additionalProperties:
                  type: string
                type: object
            required:
";
    assert!(yaml.contains(spec_yaml), "{yaml}");
}
