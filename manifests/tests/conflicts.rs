//! Conflicts between kinds and between the versions of one kind are refused where they start, with an error at
//! both places, instead of one side silently winning (a renamed CRD, a changed scope, a file written twice).

use rkb_manifests::{Options, generate};

mod support;

use support::diagnostics;

/// A project of `files` under `src/api/` (module declarations added), group `c.example.com` in every version.
fn project(files: &[(&str, &str)]) -> tempfile::TempDir {
    let under_api: Vec<(String, &str)> = files
        .iter()
        .map(|(rel, text)| (format!("src/api/{rel}"), *text))
        .collect();
    let under_api: Vec<(&str, &str)> = under_api.iter().map(|(p, t)| (p.as_str(), *t)).collect();
    let dir = support::write_project(&under_api);
    support::declare_modules(dir.path());
    dir
}

const GROUP: &str = "//! +groupName=c.example.com\n";

/// A kind `name` as the scaffold writes it, with `markers` (doc lines) above it.
fn kind(name: &str, markers: &str) -> String {
    format!(
        "use rkb_runtime::k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;
use rkb_runtime::TypeMeta;
{markers}pub struct {name} {{
    #[serde(flatten)]
    pub type_meta: TypeMeta,
    #[serde(default)]
    pub metadata: ObjectMeta,
}}
"
    )
}

/// `create api --version v2 --namespaced=false` for a namespaced kind, written by hand: controller-gen would make the
/// CRD cluster-scoped, which a live CRD cannot become.
#[test]
fn versions_of_a_kind_with_different_scopes_are_refused_at_both() {
    let v1 = kind("Foo", "");
    let v2 = kind(
        "Foo",
        "/// +kubebuilder:storageversion\n/// +kubebuilder:resource:scope=Cluster\n",
    );
    let dir = project(&[
        ("v1/mod.rs", GROUP),
        ("v1/foo_types.rs", &v1),
        ("v2/mod.rs", GROUP),
        ("v2/foo_types.rs", &v2),
    ]);
    assert_eq!(
        diagnostics(dir.path()),
        "error: version v1 of c.example.com/Foo has scope `Namespaced`, but version v2 has scope `Cluster` (src/api/v2/foo_types.rs:4:5)
 --> src/api/v1/foo_types.rs:3:12
  |
3 | pub struct Foo {
  |            ^^^
  = help: a kind has one plural and one scope in all its versions: write the same `+kubebuilder:resource` on every version

error: version v2 of c.example.com/Foo has scope `Cluster`, but version v1 has scope `Namespaced` (src/api/v1/foo_types.rs:3:12)
 --> src/api/v2/foo_types.rs:4:5
  |
4 | /// +kubebuilder:resource:scope=Cluster
  |     ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
  = help: a kind has one plural and one scope in all its versions: write the same `+kubebuilder:resource` on every version

error: aborting due to 2 previous errors; no file written
"
    );
}

#[test]
fn versions_of_a_kind_with_different_plurals_are_refused() {
    let v1 = kind("Foo", "/// +kubebuilder:resource:path=foos\n");
    let v2 = kind(
        "Foo",
        "/// +kubebuilder:storageversion\n/// +kubebuilder:resource:path=fooz\n",
    );
    let dir = project(&[
        ("v1/mod.rs", GROUP),
        ("v1/foo_types.rs", &v1),
        ("v2/mod.rs", GROUP),
        ("v2/foo_types.rs", &v2),
    ]);
    let rendered = diagnostics(dir.path());
    assert!(
        rendered.starts_with("error: version v1 of c.example.com/Foo has plural `foos`, but version v2 has plural `fooz` (src/api/v2/foo_types.rs:4:5)\n --> src/api/v1/foo_types.rs:3:5\n"),
        "{rendered}"
    );
}

/// The same markers on every version (the multi-version layout kubebuilder writes) are one CRD.
#[test]
fn versions_that_agree_make_one_crd() {
    let markers = "/// +kubebuilder:resource:path=foos,scope=Cluster\n";
    let v1 = kind("Foo", markers);
    let v2 = kind(
        "Foo",
        &format!("/// +kubebuilder:storageversion\n{markers}"),
    );
    let dir = project(&[
        ("v1/mod.rs", GROUP),
        ("v1/foo_types.rs", &v1),
        ("v2/mod.rs", GROUP),
        ("v2/foo_types.rs", &v2),
    ]);
    let out = generate(dir.path(), &Options::default()).unwrap();
    assert_eq!(out.crds.len(), 1);
    assert!(out.crds[0].yaml.contains("  scope: Cluster\n"));
}

/// `create api --kind Foo --plural bars`, then `--kind Bar`: two CRDs named `bars.c.example.com`, in one file.
#[test]
fn two_kinds_with_one_plural_are_refused_at_both() {
    let foo = kind("Foo", "/// +kubebuilder:resource:path=bars\n");
    let bar = kind("Bar", "");
    let dir = project(&[
        ("v1/mod.rs", GROUP),
        ("v1/foo_types.rs", &foo),
        ("v1/bar_types.rs", &bar),
    ]);
    assert_eq!(
        diagnostics(dir.path()),
        "error: kinds `Bar` and `Foo` of group c.example.com both have the plural `bars` (src/api/v1/foo_types.rs:3:5 is the other)
 --> src/api/v1/bar_types.rs:3:12
  |
3 | pub struct Bar {
  |            ^^^
  = help: the plural names the CRD (`bars.c.example.com`): give one of them another with `+kubebuilder:resource:path=<plural>`

error: kinds `Foo` and `Bar` of group c.example.com both have the plural `bars` (src/api/v1/bar_types.rs:3:12 is the other)
 --> src/api/v1/foo_types.rs:3:5
  |
3 | /// +kubebuilder:resource:path=bars
  |     ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
  = help: the plural names the CRD (`bars.c.example.com`): give one of them another with `+kubebuilder:resource:path=<plural>`

error: aborting due to 2 previous errors; no file written
"
    );
}
