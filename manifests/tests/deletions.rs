//! A generated CRD is deleted only when its kind is really gone, and `--check` says why with the deletion; a tree
//! cargo would refuse deletes nothing (the run fails before anything is compared or written).

use rkb_manifests::{Error, Options, check, generate, write};
use std::fs;
use std::path::Path;

mod support;

const WIDGET: &str = "use rkb_runtime::k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;
use rkb_runtime::TypeMeta;
pub struct Widget {
    #[serde(flatten)]
    pub type_meta: TypeMeta,
    #[serde(default)]
    pub metadata: ObjectMeta,
    pub spec: WidgetSpec,
}
pub struct WidgetSpec {
    pub size: i32,
}
";

/// A project whose v1 module has group `w.example.com` and the Widget kind, generated and written once.
fn written_project() -> tempfile::TempDir {
    let dir = support::write_project(&[
        ("src/api/v1/mod.rs", "//! +groupName=w.example.com\n"),
        ("src/api/v1/widget_types.rs", WIDGET),
    ]);
    support::declare_modules(dir.path());
    let out = generate(dir.path(), &Options::default()).unwrap();
    assert_eq!(out.crds.len(), 1);
    write(dir.path(), &Options::default(), &out).unwrap();
    dir
}

/// The `--check` diff after `edit` changed the sources.
fn check_after(dir: &Path, edit: impl FnOnce(&Path)) -> String {
    edit(dir);
    let out = generate(dir, &Options::default()).unwrap();
    check(dir, &Options::default(), &out)
        .unwrap()
        .expect("the CRD is stale")
}

const CRD: &str = "config/crd/bases/w.example.com_widgets.yaml";

#[test]
fn a_removed_group_name_deletes_the_crd_with_the_reason() {
    let dir = written_project();
    let diff = check_after(dir.path(), |d| {
        fs::write(d.join("src/api/v1/mod.rs"), "pub mod widget_types;\n").unwrap();
    });
    assert!(
        diff.starts_with(&format!(
            "# {CRD} is deleted: no version module has `+groupName=w.example.com` any more\n--- a/{CRD}\n+++ /dev/null\n"
        )),
        "{diff}"
    );
}

#[test]
fn a_removed_kind_deletes_the_crd_with_the_reason() {
    let dir = written_project();
    let diff = check_after(dir.path(), |d| {
        fs::write(d.join("src/api/v1/widget_types.rs"), "pub struct Other;\n").unwrap();
    });
    assert!(
        diff.starts_with(&format!(
            "# {CRD} is deleted: no type `Widget` is left in group w.example.com\n"
        )),
        "{diff}"
    );
}

#[test]
fn a_type_that_is_no_longer_a_kind_deletes_the_crd_with_the_reason() {
    let dir = written_project();
    let diff = check_after(dir.path(), |d| {
        let path = d.join("src/api/v1/widget_types.rs");
        let text = WIDGET.replace(
            "pub struct Widget {",
            "/// +kubebuilder:object:root=false\npub struct Widget {",
        );
        fs::write(path, text).unwrap();
    });
    assert!(
        diff.starts_with(&format!(
            "# {CRD} is deleted: `Widget` of group w.example.com is no longer a kind"
        )),
        "{diff}"
    );
}

/// A declared module whose file went missing fails the run: the CRD of the kind it held stays on disk.
#[test]
fn a_broken_tree_deletes_nothing() {
    let dir = written_project();
    let crd = dir.path().join(CRD);
    let before = fs::read_to_string(&crd).unwrap();
    fs::remove_file(dir.path().join("src/api/v1/widget_types.rs")).unwrap();
    match generate(dir.path(), &Options::default()) {
        Err(Error::Diagnostics(d)) => assert!(
            d[0].message
                .starts_with("file not found for module `widget_types`"),
            "{d:?}"
        ),
        other => panic!("expected the missing module to fail the run: {other:?}"),
    }
    assert_eq!(fs::read_to_string(&crd).unwrap(), before);
}
