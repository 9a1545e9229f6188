//! docs/markers.md is the marker contract: it must name every marker rkb understands, and its examples
//! (assembled into tests/fixtures/docs-examples) must generate without a diagnostic.

use rkb_markers::{Location, Registry, Target, parse_marker};
use std::path::Path;

fn markers_md() -> String {
    std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("../docs/markers.md"))
        .unwrap()
}

/// Markers that markers.md shows but the docs-examples fixture leaves out, because each would change what the
/// fixture is (one group, one served, stored version), with why. They must still parse.
const SHOWN_NOT_GENERATED: &[(&str, &str)] = &[
    (
        "+groupName=devops.my.domain",
        "the fixture's group is another",
    ),
    (
        "+versionName=v1beta1",
        "the fixture's version keeps its module name",
    ),
    ("+kubebuilder:skip", "would drop the fixture's only version"),
    (
        "+kubebuilder:object:generate=false",
        "read by #[derive(Kind)]: nothing to see in the YAML",
    ),
    (
        "+kubebuilder:unservedversion",
        "the only version must be served",
    ),
    (
        "+kubebuilder:skipversion",
        "would drop the fixture's only version",
    ),
];

/// (comment prefix, marker) of every marker line in the ```rust blocks of markers.md.
fn documented_markers(doc: &str) -> Vec<(&str, &str)> {
    let mut out = Vec::new();
    for block in doc.split("```rust\n").skip(1) {
        let block = block.split("```").next().unwrap_or_default();
        for line in block.lines() {
            let line = line.trim_start();
            let Some((prefix, rest)) = line.split_at_checked(3) else {
                continue;
            };
            let marker = rest.trim_start();
            if (prefix == "///" || prefix == "//!") && marker.starts_with('+') {
                // Explanations after the marker are `//` comments.
                out.push((
                    prefix,
                    marker.split("  //").next().unwrap_or(marker).trim_end(),
                ));
            }
        }
    }
    out
}

#[test]
fn markers_md_names_every_marker() {
    let doc = markers_md();
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
                || (d.family.is_used() && doc.contains(&format!("`{short}"))))
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
    // Every marker the examples show is in the fixture (so it is generated below), or listed with a reason and
    // at least parses.
    let doc = markers_md();
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/docs-examples");
    let fixture: String = [
        "src/api/v1/mod.rs",
        "src/api/v1/t.rs",
        "src/webhook/cronjob_webhook.rs",
    ]
    .iter()
    .map(|f| std::fs::read_to_string(root.join(f)).unwrap())
    .collect();
    let documented = documented_markers(&doc);
    assert!(
        documented.len() > 50,
        "markers.md's rust examples were not found"
    );
    for (prefix, marker) in documented {
        if fixture.contains(marker) {
            continue;
        }
        assert!(
            SHOWN_NOT_GENERATED.iter().any(|(m, _)| *m == marker),
            "markers.md shows {marker} but tests/fixtures/docs-examples does not use it: add it there (or to SHOWN_NOT_GENERATED, with the reason)"
        );
        let target = if prefix == "//!" {
            Target::Package
        } else {
            Target::Type
        };
        let loc = Location {
            file: Path::new("docs/markers.md"),
            line: 1,
            col: 1,
            source_line: marker,
        };
        if let Err(d) = parse_marker(marker, target, &loc) {
            panic!("markers.md shows {marker}, which does not parse: {d:?}");
        }
    }

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
    let webhooks = out.webhooks.expect("manifests.yaml");
    assert!(
        webhooks.contains("name: my-mutating-configuration")
            && webhooks.contains("name: mcronjob-v1.kb.io"),
        "{webhooks}"
    );
}

/// The "Adding a marker" section shows a real diff: each of its hunks, context and added lines, is in the file it
/// names, in that order, so the example cannot drift from the code it teaches.
#[test]
fn adding_a_marker_shows_the_code_as_it_is() {
    let doc = markers_md();
    let section = doc
        .split("## Adding a marker")
        .nth(1)
        .expect("markers.md has an \"Adding a marker\" section");
    let diff = section
        .split("```diff\n")
        .nth(1)
        .and_then(|d| d.split("```").next())
        .expect("the section shows a diff");
    let workspace = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let mut files = 0;
    for file_diff in diff.split("--- a/").skip(1) {
        let (path, rest) = file_diff.split_once('\n').unwrap();
        let code = std::fs::read_to_string(workspace.join(path))
            .unwrap_or_else(|e| panic!("markers.md's diff names {path}: {e}"));
        for hunk in rest.split("\n@@ ").skip(1) {
            let after: Vec<&str> = hunk
                .lines()
                .skip(1)
                .filter_map(|l| l.strip_prefix(' ').or_else(|| l.strip_prefix('+')))
                .collect();
            assert!(
                code.contains(&after.join("\n")),
                "markers.md's diff of {path} is not the code any more:\n{}",
                after.join("\n")
            );
        }
        files += 1;
    }
    assert_eq!(
        files, 3,
        "the diff touches effect.rs, registry.rs and string.rs"
    );
}
