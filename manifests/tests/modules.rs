//! The module tree: rkb reads the files cargo compiles, found from the crate root through `mod` declarations,
//! and a tree cargo would refuse is an error at the declaration, never a kind (and its CRD) silently lost.

use rkb_manifests::{Options, generate};
use std::fs;

mod support;

use support::{diagnostics, write_project as project};

const KIND: &str = "use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;
/// +kubebuilder:object:root=true
pub struct Widget {
    #[serde(default)]
    pub metadata: ObjectMeta,
    pub spec: WidgetSpec,
}
pub struct WidgetSpec {
    /// +kubebuilder:validation:Minimum=1
    pub size: i32,
}
";

const GADGET: &str = "use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;
/// +kubebuilder:object:root=true
pub struct Gadget {
    #[serde(default)]
    pub metadata: ObjectMeta,
}
";

/// lib.rs -> api -> v1, whose mod.rs declares `widget_types` and `gadget_types`.
fn tree() -> Vec<(&'static str, &'static str)> {
    vec![
        ("src/lib.rs", "pub mod api;\n"),
        ("src/api/mod.rs", "pub mod v1;\n"),
        (
            "src/api/v1/mod.rs",
            "//! +groupName=t.example.com\nmod widget_types;\nmod gadget_types;\npub use widget_types::*;\n",
        ),
        ("src/api/v1/widget_types.rs", KIND),
        ("src/api/v1/gadget_types.rs", GADGET),
    ]
}

#[test]
fn the_tree_from_the_crate_root_is_read() {
    let dir = project(&tree());
    let out = generate(dir.path(), &Options::default()).unwrap();
    let kinds: Vec<&str> = out.crds.iter().map(|c| c.kind.as_str()).collect();
    assert_eq!(kinds, ["Gadget", "Widget"]);
    assert!(out.warnings.is_empty(), "{:?}", out.warnings);
}

/// A declared module whose file is gone: today's cargo refuses the tree, and so does rkb, instead of dropping the
/// kind and with it the CRD.
#[test]
fn a_declared_module_without_its_file_is_an_error() {
    let files: Vec<_> = tree()
        .into_iter()
        .filter(|(p, _)| *p != "src/api/v1/gadget_types.rs")
        .collect();
    let dir = project(&files);
    assert_eq!(
        diagnostics(dir.path()),
        "error: file not found for module `gadget_types`
 --> src/api/v1/mod.rs:3:1
  |
3 | mod gadget_types;
  | ^^^^^^^^^^^^^^^^^
  = help: create \"src/api/v1/gadget_types.rs\" or \"src/api/v1/gadget_types/mod.rs\", or remove the declaration (cargo refuses this tree too)

error: aborting due to 1 previous error; no file written
"
    );
}

#[cfg(unix)]
#[test]
fn a_dangling_symlink_is_a_missing_file() {
    let files: Vec<_> = tree()
        .into_iter()
        .filter(|(p, _)| *p != "src/api/v1/gadget_types.rs")
        .collect();
    let dir = project(&files);
    std::os::unix::fs::symlink(
        dir.path().join("elsewhere/gadget_types.rs"),
        dir.path().join("src/api/v1/gadget_types.rs"),
    )
    .unwrap();
    let rendered = diagnostics(dir.path());
    assert!(
        rendered.starts_with(
            "error: file not found for module `gadget_types`: \"src/api/v1/gadget_types.rs\" is a symbolic link to a file that does not exist\n --> src/api/v1/mod.rs:3:1\n"
        ),
        "{rendered}"
    );
}

/// A module file that is not UTF-8 (or cannot be read at all) is an error at its declaration.
#[test]
fn an_unreadable_module_file_is_an_error_at_its_declaration() {
    let dir = project(&tree());
    fs::write(
        dir.path().join("src/api/v1/gadget_types.rs"),
        b"pub struct \xff;\n",
    )
    .unwrap();
    assert_eq!(
        diagnostics(dir.path()),
        "error: cannot read src/api/v1/gadget_types.rs: stream did not contain valid UTF-8
 --> src/api/v1/mod.rs:3:1
  |
3 | mod gadget_types;
  | ^^^^^^^^^^^^^^^^^
  = help: module `gadget_types` is declared here; make its file a readable UTF-8 file, or remove the declaration

error: aborting due to 1 previous error; no file written
"
    );
}

#[test]
fn a_module_in_two_files_is_an_error() {
    let mut files = tree();
    files.push(("src/api/v1/gadget_types/mod.rs", GADGET));
    let dir = project(&files);
    let rendered = diagnostics(dir.path());
    assert!(
        rendered.starts_with(
            "error: file for module `gadget_types` found at both \"src/api/v1/gadget_types.rs\" and \"src/api/v1/gadget_types/mod.rs\"\n --> src/api/v1/mod.rs:3:1\n"
        ),
        "{rendered}"
    );
}

/// A file no `mod` reaches is not compiled by cargo, so its kinds make no CRD; one with markers says so.
#[test]
fn files_no_module_declares_are_not_read() {
    let relic = KIND.replace("Widget", "Relic");
    let mut files = tree();
    files.push(("src/api/v1/old_types.rs", &relic));
    files.push(("src/notes.rs", "// nothing declared, no markers\n"));
    let dir = project(&files);
    let out = generate(dir.path(), &Options::default()).unwrap();
    let kinds: Vec<&str> = out.crds.iter().map(|c| c.kind.as_str()).collect();
    assert_eq!(kinds, ["Gadget", "Widget"]);
    let rendered: Vec<String> = out.warnings.iter().map(|w| w.render()).collect();
    assert_eq!(
        rendered,
        ["warning: src/api/v1/old_types.rs is not part of the crate (no `mod` declares it): its markers are not read
 --> src/api/v1/old_types.rs:2:1
  |
2 | /// +kubebuilder:object:root=true
  | ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
  = help: declare it with `mod <name>;` in its parent module, or delete it (cargo does not compile it either)
"]
    );
}

/// `#[path]`, inline modules and `x.rs` beside `x/` are followed as rustc follows them; a `#[cfg]`-ed declaration
/// whose file is absent is left to the configuration.
#[test]
fn paths_inline_modules_and_cfg_are_followed_as_rustc_does() {
    let dir = project(&[
        (
            "src/lib.rs",
            "pub mod api;\n#[cfg(test)]\nmod tests;\n#[path = \"generated/gadget.rs\"]\nmod gadget;\n",
        ),
        ("src/api.rs", "pub mod group {\n    pub mod v1;\n}\n"),
        (
            "src/api/group/v1.rs",
            "//! +groupName=t.example.com\nmod widget_types;\n",
        ),
        ("src/api/group/v1/widget_types.rs", KIND),
        ("src/generated/gadget.rs", "pub mod v1;\n"),
        (
            "src/generated/v1/mod.rs",
            "//! +groupName=u.example.com\nmod kinds;\n",
        ),
        ("src/generated/v1/kinds.rs", GADGET),
    ]);
    let out = generate(dir.path(), &Options::default()).unwrap();
    let crds: Vec<(&str, &str)> = out
        .crds
        .iter()
        .map(|c| (c.kind.as_str(), c.group.as_str()))
        .collect();
    assert_eq!(
        crds,
        [("Gadget", "u.example.com"), ("Widget", "t.example.com")]
    );
    assert!(out.warnings.is_empty(), "{:?}", out.warnings);
}

#[test]
fn a_project_without_a_crate_root_is_an_error() {
    let files: Vec<_> = tree()
        .into_iter()
        .filter(|(p, _)| *p != "src/lib.rs")
        .collect();
    let dir = project(&files);
    let rendered = diagnostics(dir.path());
    assert!(
        rendered.contains(": neither src/lib.rs nor src/main.rs exists\n"),
        "{rendered}"
    );
}

/// Inline modules nested far past any real project are the scanner's located error, not a stack overflow while the
/// tree is followed (the test thread has the default 2 MiB stack).
#[test]
fn deeply_nested_inline_modules_are_an_error() {
    let depth = 20_000;
    let lib = format!(
        "{}mod leaf;\n{}",
        "mod m {\n".repeat(depth),
        "}\n".repeat(depth)
    );
    let dir = project(&[("src/lib.rs", &lib)]);
    let rendered = std::thread::Builder::new()
        .stack_size(2 << 20)
        .spawn(move || diagnostics(dir.path()))
        .unwrap()
        .join()
        .unwrap();
    assert!(rendered.contains(" --> src/lib.rs:"), "{rendered}");
    assert!(rendered.contains("nest"), "{rendered}");
}
