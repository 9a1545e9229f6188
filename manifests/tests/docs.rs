//! docs/markers.md is the marker contract: it must name every marker rkb understands, and its examples
//! (assembled into tests/fixtures/docs-examples) must generate without a diagnostic.

use rkb_markers::{Registry, Use};
use std::path::Path;

#[test]
fn markers_md_names_every_marker() {
    let doc =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("../docs/markers.md"))
            .unwrap();
    let missing: Vec<&str> = Registry::get()
        .all()
        .iter()
        // items: variants are documented once, as a rule ("Each also exists as ...items:<Name>").
        .filter(|d| !d.name.starts_with("kubebuilder:validation:items:"))
        .filter(|d| {
            let short = d
                .name
                .strip_prefix("kubebuilder:validation:")
                .unwrap_or(d.name);
            !(doc.contains(&format!("+{}", d.name))
                || (d.usage == Use::Used && doc.contains(&format!("`{short}"))))
        })
        .map(|d| d.name)
        .collect();
    assert!(
        missing.is_empty(),
        "docs/markers.md does not mention: {missing:?}"
    );
}

#[test]
fn markers_md_examples_generate_cleanly() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/docs-examples");
    let out = rkb_manifests::generate(&root, &rkb_manifests::Options::default())
        .unwrap_or_else(|e| panic!("{e}"));
    assert!(out.warnings.is_empty(), "{:?}", out.warnings);
    assert_eq!(out.crds.len(), 1);
    let y = &out.crds[0].yaml;
    for needle in [
        "x-kubernetes-list-map-keys:",
        "additionalPrinterColumns:",
        "scale:",
        "deprecationWarning:",
        "selectableFields:",
        "externalDocs:",
        "x-kubernetes-validations:",
    ] {
        assert!(y.contains(needle), "{needle} missing from\n{y}");
    }
    let role = out.rbac.expect("role.yaml");
    assert!(
        role.contains("kind: Role") && role.contains("name: other-role"),
        "{role}"
    );
}
