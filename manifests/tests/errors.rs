//! Bad input: every problem of a run is reported at once, rendered with file:line:col, the source line,
//! a caret and a hint, and nothing is written.

use rkb_manifests::{Error, Options, generate};
use std::fs;
use std::path::{Path, PathBuf};

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures")
        .join(name)
}

fn run_errors() -> String {
    match generate(&fixture("errors"), &Options::default()) {
        Err(e @ Error::Diagnostics(_)) => e.to_string(),
        other => panic!("expected diagnostics, got {other:?}"),
    }
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
             = help: did you mean `+kubebuilder:validation:Minimum`?\n"
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

#[test]
fn a_failing_run_writes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let src = fixture("errors");
    for rel in [
        "Cargo.toml",
        "src/lib.rs",
        "src/broken.rs",
        "src/api/mod.rs",
        "src/api/v1/mod.rs",
        "src/api/v1/widget_types.rs",
    ] {
        let dst = dir.path().join(rel);
        fs::create_dir_all(dst.parent().unwrap()).unwrap();
        fs::copy(src.join(rel), &dst).unwrap();
    }
    // The CLI calls generate, and only writes on Ok: an Err leaves the tree as it was.
    assert!(generate(dir.path(), &Options::default()).is_err());
    assert!(!dir.path().join("config").exists());
    let entries: Vec<_> = fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(entries.len(), 2, "{entries:?}");
}

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
    let dir = tempfile::tempdir().unwrap();
    fs::write(
        dir.path().join("Cargo.toml"),
        "[package]\nname = \"t\"\nversion = \"0.1.0\"\n",
    )
    .unwrap();
    for (rel, text) in files {
        let p = dir.path().join(rel);
        fs::create_dir_all(p.parent().unwrap()).unwrap();
        fs::write(p, text).unwrap();
    }
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

#[test]
fn unresolved_type_suggests_a_close_local_type() {
    let dir = project(&[
        ("src/api/v1/mod.rs", "//! +groupName=t.example.com\n"),
        (
            "src/api/v1/thing_types.rs",
            &format!(
                "{ROOT}pub struct ThingSpec {{ pub part: Widgt }}\npub struct Widget {{ pub a: String }}\n"
            ),
        ),
    ]);
    let e = generate(dir.path(), &Options::default())
        .unwrap_err()
        .to_string();
    assert!(e.contains("error: cannot resolve type `Widgt`"), "{e}");
    assert!(e.contains("= help: did you mean `Widget`?"), "{e}");
}

#[test]
fn one_of_markers_must_name_fields() {
    let dir = project(&[
        ("src/api/v1/mod.rs", "//! +groupName=t.example.com\n"),
        (
            "src/api/v1/thing_types.rs",
            &format!(
                "{ROOT}/// +kubebuilder:validation:ExactlyOneOf=image;chart\npub struct ThingSpec {{\n    #[serde(default)]\n    pub image: Option<String>,\n    #[serde(default)]\n    pub helm: Option<String>,\n}}\n"
            ),
        ),
    ]);
    let e = generate(dir.path(), &Options::default())
        .unwrap_err()
        .to_string();
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
    let e = generate(dir.path(), &Options::default())
        .unwrap_err()
        .to_string();
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
    let out = generate(dir.path(), &Options::default()).unwrap();
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

#[test]
fn recursive_types_are_explained() {
    let node = "/// Node is recursive.\npub struct Node {\n    pub name: String,\n    #[serde(default)]\n    pub children: Vec<Node>,\n}\n";
    let root = ROOT.replace("ThingSpec", "Node");
    let dir = project(&[
        ("src/api/v1/mod.rs", "//! +groupName=t.example.com\n"),
        ("src/api/v1/thing_types.rs", &format!("{root}{node}")),
    ]);
    let e = generate(dir.path(), &Options::default())
        .unwrap_err()
        .to_string();
    assert!(e.contains("error: the v1 schema of `Thing` is not structural at `.spec.children[*]`: type must not be empty"), "{e}");
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
    let out = generate(dir.path(), &Options::default()).unwrap();
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
    let dir = project(&[
        ("src/api/v1/mod.rs", "//! +groupName=t.example.com\n"),
        ("src/api/v1/thing_types.rs", &format!("{ROOT}{spec}")),
    ]);
    let e = generate(dir.path(), &Options::default())
        .unwrap_err()
        .to_string();
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
    fs::write(
        dir.path().join("src/api/v1/thing_types.rs"),
        format!("{ROOT}{fixed}"),
    )
    .unwrap();
    let out = generate(dir.path(), &Options::default()).unwrap();
    assert!(
        out.crds[0].yaml.contains("optionalOldSelf: true"),
        "{}",
        out.crds[0].yaml
    );
}
