//! Golden tests: the Rust fixture in tests/fixtures/demo mirrors the Go types in tests/fixtures/demo/go;
//! tests/fixtures/demo/expected holds what controller-gen v0.21.0 wrote for those Go types
//! (`controller-gen crd:allowDangerousTypes=true rbac:roleName=manager-role paths=./...`).
//! rkb must produce the same bytes.

use rkb_manifests::{Options, check, generate, write};
use std::fs;
use std::path::{Path, PathBuf};

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures")
        .join(name)
}

/// Copies a fixture's Cargo.toml and src/ into a fresh temp dir.
fn scratch(name: &str) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let src = fixture(name);
    for entry in walkdir(&src.join("src")) {
        let rel = entry.strip_prefix(&src).unwrap();
        let dst = dir.path().join(rel);
        fs::create_dir_all(dst.parent().unwrap()).unwrap();
        fs::copy(&entry, &dst).unwrap();
    }
    fs::copy(src.join("Cargo.toml"), dir.path().join("Cargo.toml")).unwrap();
    dir
}

fn walkdir(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    for e in fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if p.is_dir() {
            out.extend(walkdir(&p));
        } else {
            out.push(p);
        }
    }
    out
}

#[test]
fn demo_crd_and_role_match_controller_gen_byte_for_byte() {
    let out = generate(&fixture("demo"), &Options::default()).unwrap();
    assert!(out.warnings.is_empty(), "{:?}", out.warnings);
    assert_eq!(out.crds.len(), 1);
    let crd = &out.crds[0];
    assert_eq!(crd.file_name, "devops.my.domain_demoes.yaml");
    let expected =
        fs::read_to_string(fixture("demo/expected/devops.my.domain_demoes.yaml")).unwrap();
    assert_eq!(crd.yaml, expected);
    let role = fs::read_to_string(fixture("demo/expected/role.yaml")).unwrap();
    assert_eq!(out.rbac.as_deref(), Some(role.as_str()));
}

#[test]
fn write_then_check_is_clean_and_check_reports_stale_files() {
    let dir = scratch("demo");
    let opts = Options::default();
    let out = generate(dir.path(), &opts).unwrap();
    // Before writing, --check reports both files as new.
    let diff = check(dir.path(), &opts, &out)
        .unwrap()
        .expect("files are missing, so stale");
    assert!(
        diff.contains("+++ b/config/crd/bases/devops.my.domain_demoes.yaml"),
        "{diff}"
    );
    assert!(diff.contains("+++ b/config/rbac/role.yaml"), "{diff}");
    assert!(
        !dir.path().join("config").exists(),
        "--check must not write"
    );

    let written = write(dir.path(), &opts, &out).unwrap();
    assert_eq!(written.written.len(), 2);
    assert!(written.removed.is_empty());
    assert_eq!(check(dir.path(), &opts, &out).unwrap(), None);
    // Unchanged files are not rewritten.
    assert_eq!(
        write(dir.path(), &opts, &out).unwrap(),
        rkb_manifests::Written::default()
    );
    // No temp files left behind.
    let leftovers: Vec<_> = walkdir(&dir.path().join("config"))
        .into_iter()
        .filter(|p| p.to_string_lossy().contains("rkb-tmp"))
        .collect();
    assert!(leftovers.is_empty(), "{leftovers:?}");

    // Edit a type: the CRD is stale, and the diff shows the change.
    let types = dir.path().join("src/api/v1/demo_types.rs");
    let text = fs::read_to_string(&types)
        .unwrap()
        .replace("/// Labels for the pods.", "/// Labels for every pod.");
    fs::write(&types, text).unwrap();
    let out2 = generate(dir.path(), &opts).unwrap();
    let diff = check(dir.path(), &opts, &out2).unwrap().expect("stale");
    assert!(diff.contains("-                description: Labels for the pods.\n+                description: Labels for every pod."), "{diff}");
}

#[test]
fn options_move_outputs_and_truncate_descriptions() {
    let dir = scratch("demo");
    let opts = Options {
        crd_dir: "out/crds".into(),
        rbac_dir: "out/rbac".into(),
        max_desc_len: Some(10),
        ..Options::default()
    };
    let out = generate(dir.path(), &opts).unwrap();
    write(dir.path(), &opts, &out).unwrap();
    let crd = fs::read_to_string(dir.path().join("out/crds/devops.my.domain_demoes.yaml")).unwrap();
    assert!(dir.path().join("out/rbac/role.yaml").exists());
    // "Demo is the Schema for the demos API." cut at 10 bytes, at the last blank: "Demo is..."
    assert!(crd.contains("        description: Demo is...\n"), "{crd}");
    let out0 = generate(
        dir.path(),
        &Options {
            max_desc_len: Some(0),
            ..Options::default()
        },
    )
    .unwrap();
    assert!(!out0.crds[0].yaml.contains("description:"));
}

#[test]
fn kind_identities_and_crd_yaml_agree_with_generate() {
    let root = fixture("demo");
    let ids = rkb_manifests::kind_identities(&root).unwrap();
    assert_eq!(ids.len(), 1);
    let id = &ids[0];
    assert_eq!(
        (id.group.as_str(), id.version.as_str(), id.kind.as_str()),
        ("devops.my.domain", "v1", "Demo")
    );
    assert_eq!(
        (id.plural.as_str(), id.singular.as_str()),
        ("demoes", "demo")
    );
    assert_eq!(id.short_names, vec!["dm", "dmo"]);
    assert!(id.namespaced && id.has_status && !id.has_scale);
    assert_eq!(id.rust_path, "api::v1::Demo");
    assert!(
        id.source_files
            .iter()
            .any(|p| p.ends_with("src/api/v1/demo_types.rs"))
    );
    let yaml = rkb_manifests::crd_yaml(&root, "devops.my.domain", "Demo").unwrap();
    assert_eq!(
        yaml,
        fs::read_to_string(fixture("demo/expected/devops.my.domain_demoes.yaml")).unwrap()
    );
    let err = rkb_manifests::crd_yaml(&root, "devops.my.domain", "Nope").unwrap_err();
    assert_eq!(
        err.to_string(),
        "no CRD for kind `Nope` in group `devops.my.domain` (known: devops.my.domain/Demo)"
    );
}

#[test]
fn write_is_all_or_nothing() {
    let dir = scratch("demo");
    let opts = Options::default();
    let out = generate(dir.path(), &opts).unwrap();
    // A regular file where the RBAC directory should be: staging role.yaml fails.
    fs::create_dir_all(dir.path().join("config")).unwrap();
    fs::write(dir.path().join("config/rbac"), "not a directory").unwrap();
    let err = write(dir.path(), &opts, &out).unwrap_err();
    assert!(err.to_string().contains("config/rbac"), "{err}");
    // The CRD, staged before the failure, was not put in place, and its temp file is gone.
    let crd_dir = dir.path().join("config/crd/bases");
    let left: Vec<_> = if crd_dir.exists() {
        walkdir(&crd_dir)
    } else {
        Vec::new()
    };
    assert!(left.is_empty(), "{left:?}");
}

#[test]
fn crd_yaml_memo_follows_source_edits() {
    let dir = scratch("demo");
    let first = rkb_manifests::crd_yaml(dir.path(), "devops.my.domain", "Demo").unwrap();
    assert_eq!(
        rkb_manifests::crd_yaml(dir.path(), "devops.my.domain", "Demo").unwrap(),
        first
    );
    let types = dir.path().join("src/api/v1/demo_types.rs");
    let text = fs::read_to_string(&types)
        .unwrap()
        .replace("/// Labels for the pods.", "/// Labels, edited.");
    fs::write(&types, text).unwrap();
    let second = rkb_manifests::crd_yaml(dir.path(), "devops.my.domain", "Demo").unwrap();
    assert!(second.contains("description: Labels, edited.") && !first.contains("Labels, edited."));
    let ids = rkb_manifests::kind_identities(dir.path()).unwrap();
    assert_eq!(ids[0].kind, "Demo");
    // Cargo.toml's settings are inputs too: a bad one is seen at once.
    let manifest = dir.path().join("Cargo.toml");
    let settings = "\n[package.metadata.rkb]\nallow-unknown-markers = \"sure\"\n";
    fs::write(&manifest, fs::read_to_string(&manifest).unwrap() + settings).unwrap();
    let refused = rkb_manifests::crd_yaml(dir.path(), "devops.my.domain", "Demo").unwrap_err();
    assert!(
        refused
            .to_string()
            .contains("`allow-unknown-markers` must be true or false"),
        "{refused}"
    );
}
