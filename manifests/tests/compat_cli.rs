//! The CRD upgrade gate as users run it: `rkb manifests --check` against the files on disk, `--against <tag>`
//! against a release read from git, a plain `rkb manifests` that warns and writes, and `+rkb:compat:allow`.
//! Diagnostics are asserted word for word; a refusal exits 1 and leaves every file as it was.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::OnceLock;

/// The `rkb` binary, built once per test run by the cargo that runs the tests.
fn rkb_bin() -> &'static Path {
    static BIN: OnceLock<PathBuf> = OnceLock::new();
    BIN.get_or_init(|| {
        let workspace = Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap();
        let status = Command::new(env!("CARGO"))
            .args(["build", "--quiet", "-p", "rkb", "--bin", "rkb"])
            .current_dir(workspace)
            .status()
            .expect("cargo runs");
        assert!(status.success(), "building rkb failed");
        std::env::var_os("CARGO_TARGET_DIR")
            .map(PathBuf::from)
            .unwrap_or_else(|| workspace.join("target"))
            .join("debug/rkb")
    })
}

fn rkb(dir: &Path, args: &[&str]) -> Output {
    Command::new(rkb_bin())
        .args(args)
        .current_dir(dir)
        .output()
        .expect("rkb runs")
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

const CRD: &str = "config/crd/bases/example.my.domain_widgets.yaml";
const TYPES: &str = "src/api/v1/widget_types.rs";

/// The types file of the released Widget, as `rkb create api` scaffolds it, with two fields.
const WIDGET_TYPES: &str = r#"//! The Widget kind.

use rkb_runtime::k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;
use rkb_runtime::{DeepCopy, Kind, TypeMeta};
use serde::{Deserialize, Serialize};

/// WidgetSpec defines the desired state of Widget.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, DeepCopy)]
#[serde(rename_all = "camelCase")]
pub struct WidgetSpec {
    /// replicas is how many widgets run.
    /// +kubebuilder:validation:Maximum=10
    /// +optional
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub replicas: Option<i32>,

    /// image is the widget's container image.
    /// +optional
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub image: Option<String>,
}

/// Widget is the Schema for the widgets API.
/// +kubebuilder:object:root=true
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize, Kind)]
pub struct Widget {
    #[serde(flatten)]
    pub type_meta: TypeMeta,

    /// +optional
    #[serde(default)]
    pub metadata: ObjectMeta,

    /// +required
    pub spec: WidgetSpec,
}
"#;

/// The released project, its manifests written.
fn released() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let files = [
        (
            "Cargo.toml",
            "[package]\nname = \"widgets\"\nversion = \"0.1.0\"\nedition = \"2024\"\n",
        ),
        ("src/lib.rs", "pub mod api;\n"),
        ("src/api/mod.rs", "pub mod v1;\n"),
        (
            "src/api/v1/mod.rs",
            "//! API types of example.my.domain v1.\n//!\n//! +kubebuilder:object:generate=true\n//! +groupName=example.my.domain\n\npub mod widget_types;\npub use widget_types::*;\n",
        ),
        (TYPES, WIDGET_TYPES),
    ];
    for (rel, text) in files {
        let p = dir.path().join(rel);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, text).unwrap();
    }
    let o = rkb(dir.path(), &["manifests"]);
    assert!(o.status.success(), "{}", stderr(&o));
    dir
}

/// Edits the types file: `from` (which must be there) becomes `to`.
fn edit(dir: &Path, from: &str, to: &str) {
    let p = dir.join(TYPES);
    let text = std::fs::read_to_string(&p).unwrap();
    assert!(text.contains(from), "{from}");
    std::fs::write(p, text.replacen(from, to, 1)).unwrap();
}

fn read(dir: &Path, rel: &str) -> String {
    std::fs::read_to_string(dir.join(rel)).unwrap()
}

/// Commits the project and tags it `v0.1.0`.
fn tag_release(dir: &Path) {
    for args in [
        &["init", "-q"][..],
        &["add", "."],
        &[
            "-c",
            "user.name=t",
            "-c",
            "user.email=t@example.com",
            "commit",
            "-q",
            "-m",
            "v0.1.0",
        ],
        &["tag", "v0.1.0"],
    ] {
        let s = Command::new("git")
            .args(args)
            .current_dir(dir)
            .status()
            .unwrap();
        assert!(s.success(), "git {args:?}");
    }
}

const TIGHTENED: &str = "\
error: [limit-tightened] `.spec.replicas` of Widget v1 is narrowed from `maximum: 10` to `maximum: 5` (against config/crd/bases/example.my.domain_widgets.yaml)
  --> src/api/v1/widget_types.rs:12:9
   |
12 |     /// +kubebuilder:validation:Maximum=5
   |         ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
   = help: a manifest with a value outside the new limit is refused as a new object (HTTP 422), as a re-install, another namespace or a restore from backup makes one, and so is an update of a stored object to another value it refuses; a stored object's own manifest, unchanged, still applies (the API server ratchets unchanged values). Instead: keep the old limit (relaxing a limit is safe); or tighten it in a new API version, with a conversion; or, if the break is intended, acknowledge it with `+rkb:compat:allow:rule=limit-tightened,reason=\"...\"` on the field

error: nothing written: 1 breaking CRD change against the files on disk
";

#[test]
fn check_refuses_a_tightened_limit_at_its_marker_and_writes_nothing() {
    let dir = released();
    let before = read(dir.path(), CRD);
    edit(dir.path(), "Maximum=10", "Maximum=5");
    let o = rkb(dir.path(), &["manifests", "--check"]);
    assert_eq!(o.status.code(), Some(1));
    assert_eq!(stderr(&o), TIGHTENED);
    assert_eq!(read(dir.path(), CRD), before);
}

#[test]
fn a_removed_field_is_reported_at_the_struct_that_lost_it() {
    let dir = released();
    edit(
        dir.path(),
        "    /// replicas is how many widgets run.\n    /// +kubebuilder:validation:Maximum=10\n    /// +optional\n    #[serde(default, skip_serializing_if = \"Option::is_none\")]\n    pub replicas: Option<i32>,\n\n",
        "",
    );
    let o = rkb(dir.path(), &["manifests", "--check"]);
    assert_eq!(o.status.code(), Some(1));
    assert_eq!(
        stderr(&o),
        "\
error: [field-removed] field `.spec.replicas` of Widget v1 is removed (it was integer) (against config/crd/bases/example.my.domain_widgets.yaml)
  --> src/api/v1/widget_types.rs:10:12
   |
10 | pub struct WidgetSpec {
   |            ^^^^^^^^^^
   = help: its value disappears from every read of the stored objects at once (pruned on read, lost for good at their next write); a create that sets it succeeds with the value dropped, and a server-side apply that sets it fails (HTTP 500, `field not declared in schema`, under kubectl's strict field validation). Instead: keep the field and say in its doc comment that it is deprecated; or remove it in a new API version, with a conversion that carries its value; or, if the break is intended, acknowledge it with `+rkb:compat:allow:rule=field-removed,field=replicas,reason=\"...\"` on the struct that lost it

error: nothing written: 1 breaking CRD change against the files on disk
"
    );
}

#[test]
fn a_plain_run_warns_and_writes() {
    let dir = released();
    edit(dir.path(), "Maximum=10", "Maximum=5");
    let o = rkb(dir.path(), &["manifests"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let warned = TIGHTENED
        .replacen("error: [limit", "warning: [limit", 1)
        .replace(
            "error: nothing written: 1 breaking CRD change against the files on disk\n",
            "warning: 1 breaking CRD change against the files on disk, written anyway (`rkb manifests --check --against <release tag>` refuses them once released)\n",
        );
    assert_eq!(stderr(&o), warned);
    assert!(read(dir.path(), CRD).contains("maximum: 5"));
}

#[test]
fn against_a_release_tag_refuses_what_breaks_it_and_writes_nothing() {
    let dir = released();
    tag_release(dir.path());
    edit(dir.path(), "Maximum=10", "Maximum=5");
    // Written (with a warning): the files on disk now agree with the sources, so --check alone passes ...
    assert!(rkb(dir.path(), &["manifests"]).status.success());
    let o = rkb(dir.path(), &["manifests", "--check"]);
    assert!(o.status.success(), "{}", stderr(&o));
    // ... and the release is what refuses the change.
    let o = rkb(dir.path(), &["manifests", "--check", "--against", "v0.1.0"]);
    assert_eq!(o.status.code(), Some(1));
    let against_tag = TIGHTENED
        .replace("(against config/crd/", "(against v0.1.0:config/crd/")
        .replace("against the files on disk", "against `v0.1.0`");
    assert_eq!(stderr(&o), against_tag);
    // Without --check, --against still refuses, and writes nothing (the description edit stays unwritten).
    edit(
        dir.path(),
        "is how many widgets run",
        "is how many widgets serve",
    );
    let before = read(dir.path(), CRD);
    let o = rkb(dir.path(), &["manifests", "--against", "v0.1.0"]);
    assert_eq!(o.status.code(), Some(1));
    assert_eq!(read(dir.path(), CRD), before);
    let o = rkb(dir.path(), &["manifests", "--check", "--against", "v9.9.9"]);
    assert_eq!(o.status.code(), Some(1));
    assert!(
        stderr(&o).contains(
            "--against v9.9.9: no such commit or tag in the git repository of . (list the tags with `git tag`)"
        ),
        "{}",
        stderr(&o)
    );
}

#[test]
fn safe_changes_pass_against_the_release() {
    let dir = released();
    tag_release(dir.path());
    edit(dir.path(), "Maximum=10", "Maximum=20");
    edit(
        dir.path(),
        "    pub image: Option<String>,\n",
        "    pub image: Option<String>,\n\n    /// size of each widget.\n    /// +optional\n    #[serde(default, skip_serializing_if = \"Option::is_none\")]\n    pub size: Option<String>,\n",
    );
    let o = rkb(dir.path(), &["manifests", "--against", "v0.1.0"]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(read(dir.path(), CRD).contains("size:"));
    let o = rkb(dir.path(), &["manifests", "--check", "--against", "v0.1.0"]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(stderr(&o), "");
}

#[test]
fn an_acknowledged_break_passes_and_a_misnamed_rule_is_refused() {
    let dir = released();
    tag_release(dir.path());
    edit(dir.path(), "Maximum=10", "Maximum=5");
    edit(
        dir.path(),
        "    /// +kubebuilder:validation:Maximum=5\n",
        "    /// +kubebuilder:validation:Maximum=5\n    /// +rkb:compat:allow:rule=limit-tightened,reason=\"more than five never worked\"\n",
    );
    assert!(rkb(dir.path(), &["manifests"]).status.success());
    let o = rkb(dir.path(), &["manifests", "--check", "--against", "v0.1.0"]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(stderr(&o), "");
    // An acknowledgment of another rule does not count.
    edit(dir.path(), "rule=limit-tightened", "rule=limit-added");
    let o = rkb(dir.path(), &["manifests", "--check", "--against", "v0.1.0"]);
    assert_eq!(o.status.code(), Some(1));
    edit(dir.path(), "rule=limit-added", "rule=limit-tighten");
    let before = read(dir.path(), CRD);
    let o = rkb(dir.path(), &["manifests"]);
    assert_eq!(o.status.code(), Some(1));
    assert_eq!(
        stderr(&o),
        "\
error: `+rkb:compat:allow` names no rule `limit-tighten`
  --> src/api/v1/widget_types.rs:13:9
   |
13 |     /// +rkb:compat:allow:rule=limit-tighten,reason=\"more than five never worked\"
   |         ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
   = help: did you mean `limit-tightened`? The rules: scope-changed, stored-version-removed, served-version-removed, field-removed, type-changed, required-added, default-added, default-changed, default-removed, enum-added, enum-value-removed, limit-tightened, limit-added, preserve-unknown-fields-narrowed, list-type-changed, cel-rule-added, cel-rule-changed, nullable-changed, crd-removed

error: aborting due to 1 previous error; no file written

"
    );
    assert_eq!(read(dir.path(), CRD), before);
}

#[test]
fn a_removed_version_is_reported_at_the_kind_and_acknowledged_there() {
    let dir = released();
    // v1 becomes v2: the module is renamed, as a user moves a kind to its next version.
    let api = dir.path().join("src/api");
    std::fs::rename(api.join("v1"), api.join("v2")).unwrap();
    std::fs::write(api.join("mod.rs"), "pub mod v2;\n").unwrap();
    let module = api.join("v2/mod.rs");
    let text = std::fs::read_to_string(&module).unwrap();
    std::fs::write(
        &module,
        text.replace("example.my.domain v1", "example.my.domain v2"),
    )
    .unwrap();
    let before = read(dir.path(), CRD);
    let o = rkb(dir.path(), &["manifests", "--check"]);
    assert_eq!(o.status.code(), Some(1));
    assert_eq!(
        stderr(&o),
        "\
error: [stored-version-removed] version v1 of Widget, the baseline's storage version, is removed (against config/crd/bases/example.my.domain_widgets.yaml)
  --> src/api/v2/widget_types.rs:26:12
   |
26 | pub struct Widget {
   |            ^^^^^^
   = help: the API server refuses the new CRD while the version is in `status.storedVersions` (objects stored in it stay so until each is rewritten), and clients that use it get 404 Not Found once it is gone. Instead: keep the version (stop serving it with `+kubebuilder:unservedversion`) until a storage-version migration (rkb-runtime's `StorageMigration`, docs/webhooks.md) has rewritten every object and dropped it from `status.storedVersions`; or, if the break is intended, acknowledge it with `+rkb:compat:allow:rule=stored-version-removed,version=v1,reason=\"...\"` on the kind

error: nothing written: 1 breaking CRD change against the files on disk
"
    );
    assert_eq!(read(dir.path(), CRD), before);
    let types = api.join("v2/widget_types.rs");
    let text = std::fs::read_to_string(&types).unwrap();
    let acknowledged = text.replace(
        "/// +kubebuilder:object:root=true\n",
        "/// +kubebuilder:object:root=true\n\
         /// +rkb:compat:allow:rule=stored-version-removed,version=v1,reason=\"no v1 object was ever stored\"\n",
    );
    std::fs::write(&types, acknowledged).unwrap();
    let o = rkb(dir.path(), &["manifests"]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(stderr(&o), "", "acknowledged: no warning");
}

/// The released project with a second kind, Gadget, whose CRD the release has and the sources then lose.
fn released_with_gadget() -> tempfile::TempDir {
    let dir = released();
    std::fs::write(
        dir.path().join(GADGET_TYPES),
        WIDGET_TYPES
            .replace("Widget", "Gadget")
            .replace("widget", "gadget"),
    )
    .unwrap();
    let module = dir.path().join("src/api/v1/mod.rs");
    let text = std::fs::read_to_string(&module).unwrap();
    std::fs::write(&module, format!("{text}pub mod gadget_types;\n")).unwrap();
    let o = rkb(dir.path(), &["manifests"]);
    assert!(o.status.success(), "{}", stderr(&o));
    dir
}

const GADGET_TYPES: &str = "src/api/v1/gadget_types.rs";
const GADGET_CRD: &str = "config/crd/bases/example.my.domain_gadgets.yaml";

/// Removes Gadget from the sources, as a user drops a kind.
fn drop_gadget(dir: &Path) {
    std::fs::remove_file(dir.join(GADGET_TYPES)).unwrap();
    let module = dir.join("src/api/v1/mod.rs");
    let text = std::fs::read_to_string(&module).unwrap();
    std::fs::write(&module, text.replace("pub mod gadget_types;\n", "")).unwrap();
}

const GADGET_REMOVED: &str = "\
error: [crd-removed] CRD gadgets.example.my.domain is no longer generated: no type `Gadget` is left in group example.my.domain (against config/crd/bases/example.my.domain_gadgets.yaml)
 --> config/crd/bases/example.my.domain_gadgets.yaml:7:9
  |
7 |   name: gadgets.example.my.domain
  |         ^^^^^^^^^^^^^^^^^^^^^^^^^
  = help: applied with pruning (`kubectl apply --prune`, a GitOps tool), the release deletes the CRD, and the API server deletes every object of it with it; applied without, the CRD and its objects stay, and no controller acts on them. Instead: keep the kind (its versions deprecated with `+kubebuilder:deprecatedversion`) until its objects are moved or deleted on purpose; or, if the break is intended, acknowledge it with `+rkb:compat:allow:rule=crd-removed,crd=gadgets.example.my.domain,reason=\"...\"` on any type of the project (the kind that replaces it, say)

error: nothing written: 1 breaking CRD change against the files on disk
";

#[test]
fn a_crd_no_longer_generated_is_refused_at_the_baseline_file() {
    let dir = released_with_gadget();
    drop_gadget(dir.path());
    let before = read(dir.path(), GADGET_CRD);
    let o = rkb(dir.path(), &["manifests", "--check"]);
    assert_eq!(o.status.code(), Some(1));
    assert_eq!(stderr(&o), GADGET_REMOVED);
    assert_eq!(read(dir.path(), GADGET_CRD), before);
    // Against the release the same, once a plain run removed the file (with a warning).
    tag_release(dir.path());
    let o = rkb(dir.path(), &["manifests"]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(
        stderr(&o).starts_with("warning: [crd-removed] CRD gadgets.example.my.domain"),
        "{}",
        stderr(&o)
    );
    assert!(!dir.path().join(GADGET_CRD).exists());
    let o = rkb(dir.path(), &["manifests", "--check", "--against", "v0.1.0"]);
    assert_eq!(o.status.code(), Some(1));
    let against_tag = GADGET_REMOVED
        .replace("(against config/crd/", "(against v0.1.0:config/crd/")
        .replace(" --> config/crd/", " --> v0.1.0:config/crd/")
        .replace("against the files on disk", "against `v0.1.0`");
    assert_eq!(stderr(&o), against_tag);
}

#[test]
fn a_removed_crd_is_acknowledged_on_any_type_and_needs_crd() {
    let dir = released_with_gadget();
    tag_release(dir.path());
    drop_gadget(dir.path());
    edit(
        dir.path(),
        "/// +kubebuilder:object:root=true\n",
        "/// +kubebuilder:object:root=true\n/// +rkb:compat:allow:rule=crd-removed,reason=\"gadgets were never used\"\n",
    );
    let o = rkb(dir.path(), &["manifests", "--check", "--against", "v0.1.0"]);
    assert_eq!(o.status.code(), Some(1));
    assert_eq!(
        stderr(&o),
        "\
error: `+rkb:compat:allow:rule=crd-removed` needs `crd=<plural>.<group>`: which removed CRD it acknowledges
  --> src/api/v1/widget_types.rs:25:5
   |
25 | /// +rkb:compat:allow:rule=crd-removed,reason=\"gadgets were never used\"
   |     ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
   = help: name the CRD as its `metadata.name` does, e.g. `crd=widgets.example.my.domain`

error: aborting due to 1 previous error; no file written

"
    );
    edit(
        dir.path(),
        "rule=crd-removed,",
        "rule=crd-removed,crd=gadgets.example.my.domain,",
    );
    let o = rkb(dir.path(), &["manifests", "--check", "--against", "v0.1.0"]);
    // Acknowledged: what is left is the stale file on disk, which --check shows as usual.
    assert!(!stderr(&o).contains("crd-removed"), "{}", stderr(&o));
    let o = rkb(dir.path(), &["manifests", "--against", "v0.1.0"]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(!dir.path().join(GADGET_CRD).exists());
    let o = rkb(dir.path(), &["manifests", "--check", "--against", "v0.1.0"]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(stderr(&o), "");
}

/// The `run:` script of the scaffolded CI's manifests step, as the template writes it.
fn ci_gate_script() -> String {
    let workflow = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../templates/init/.github/workflows/test.yml.hbs");
    let text = std::fs::read_to_string(workflow).unwrap();
    let step = text
        .split("      - name: ")
        .find(|s| s.starts_with("Manifests are up to date"))
        .expect("the manifests step");
    let script = step.split_once("run: |\n").expect("a run block").1;
    script
        .lines()
        .take_while(|l| l.starts_with("          "))
        .map(|l| format!("{}\n", &l[10..]))
        .collect()
}

#[test]
fn the_scaffolded_ci_gates_against_the_last_tag_and_without_one_checks_only() {
    let dir = tempfile::tempdir().unwrap();
    // A stand-in `rkb` that records how the step calls it.
    let bin = dir.path().join("bin");
    std::fs::create_dir(&bin).unwrap();
    let fake = bin.join("rkb");
    std::fs::write(&fake, "#!/bin/sh\necho \"$@\" >> \"$CALLS\"\n").unwrap();
    let mut perms = std::fs::metadata(&fake).unwrap().permissions();
    std::os::unix::fs::PermissionsExt::set_mode(&mut perms, 0o755);
    std::fs::set_permissions(&fake, perms).unwrap();
    let repo = dir.path().join("repo");
    std::fs::create_dir(&repo).unwrap();
    std::fs::write(repo.join("README.md"), "a project\n").unwrap();
    let calls = dir.path().join("calls");
    let run_step = || {
        let path = format!("{}:{}", bin.display(), std::env::var("PATH").unwrap());
        let s = Command::new("bash")
            .args(["-e", "-c", &ci_gate_script()])
            .current_dir(&repo)
            .env("PATH", path)
            .env("CALLS", &calls)
            .status()
            .unwrap();
        assert!(s.success());
        let recorded = std::fs::read_to_string(&calls).unwrap();
        std::fs::remove_file(&calls).unwrap();
        recorded
    };
    let git = |args: &[&str]| {
        let s = Command::new("git")
            .args(["-c", "user.name=t", "-c", "user.email=t@example.com"])
            .args(args)
            .current_dir(&repo)
            .status()
            .unwrap();
        assert!(s.success(), "git {args:?}");
    };
    git(&["init", "-q"]);
    git(&["add", "."]);
    git(&["commit", "-q", "-m", "first"]);
    assert_eq!(
        run_step(),
        "manifests --check\n",
        "no tag: nothing to break yet"
    );
    git(&["tag", "v0.1.0"]);
    git(&["commit", "-q", "--allow-empty", "-m", "after the release"]);
    assert_eq!(run_step(), "manifests --check --against v0.1.0\n");
    git(&["tag", "v0.2.0"]);
    git(&["commit", "-q", "--allow-empty", "-m", "after the next"]);
    assert_eq!(
        run_step(),
        "manifests --check --against v0.2.0\n",
        "the last tag"
    );
}
