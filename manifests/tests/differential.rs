//! Differential test: rkb-manifests against controller-gen v0.21.0 on the paired corpus in tests/corpus.
//!
//! Each case directory holds the same API twice: Go under `api/` (and RBAC markers under
//! `internal/controller/`, webhook markers under `internal/webhook/`), Rust under `src/` as an rkb project. controller-gen runs once over the whole
//! Go module for CRDs (each case owns distinct API groups, so CRD file names never collide) and once per
//! case that has RBAC markers; rkb-manifests runs on each case's project root. The parsed YAML documents
//! must be equal, descriptions included; every difference is printed with its JSON path. When they are,
//! the files must also be byte-identical (the first differing line is printed).
//!
//! A case may hold a `KNOWN_FAILURE` file naming a generator bug not fixed yet (listed in the findings):
//! its differences are printed but do not fail the test, and the test fails once the case passes, until
//! the file is deleted.
//!
//! `invalid_apis_fail_in_both` runs tests/corpus-errors: APIs controller-gen rejects, which rkb must reject too.
//!
//! A further test repeats a few cases with descriptions truncated (`crd:maxDescLen=0` and `=60` against
//! `Options::max_desc_len`).
//!
//! Needs Go and controller-gen: `hack/install-controller-gen.sh` installs it (CI runs it first). The test
//! fails, never skips, when controller-gen is missing. Environment:
//!   RKB_CONTROLLER_GEN   controller-gen binary to use (else CONTROLLER_GEN, else the install script's
//!                        cache, else PATH)
//!   RKB_DIFF_CASES       comma-separated case names to run (default: all)
//!   RKB_DIFF_KEEP        keep controller-gen's output directory and print its path

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;

const CONTROLLER_GEN_VERSION: &str = "v0.21.0";
const ROLE_NAME: &str = "manager-role";
/// Differences printed per case; the rest are counted.
const MAX_DIFFS_SHOWN: usize = 40;

/// Cases checked again with descriptions truncated (`crd:maxDescLen`): long and multi-paragraph docs,
/// k8s types with long upstream docs.
const MAX_DESC_LEN_CASES: &[&str] = &[
    "descriptions",
    "k8s-core",
    "k8s-workloads",
    "microservice-deploy",
];

#[test]
fn corpus_matches_controller_gen() {
    let corpus = corpus_dir();
    differential(&corpus, &select_cases(&corpus, None), None);
}

#[test]
fn corpus_matches_controller_gen_with_max_desc_len() {
    let corpus = corpus_dir();
    for len in [0, 60] {
        differential(
            &corpus,
            &select_cases(&corpus, Some(MAX_DESC_LEN_CASES)),
            Some(len),
        );
    }
}

/// The corpus cases that embed Kubernetes types, in a project targeting Kubernetes 1.34 (k8s-openapi feature
/// `v1_34`), against controller-gen over k8s.io/api v0.34: the cases are copied into a Go module of their own
/// (tests/corpus-k8s-1.34 holds its go.mod) with that feature in their Cargo.toml.
#[test]
fn kubernetes_1_34_corpus_matches_controller_gen() {
    let module = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/corpus-k8s-1.34");
    let corpus = OutDir::new();
    for file in ["go.mod", "go.sum"] {
        fs::copy(module.join(file), corpus.0.join(file)).unwrap();
    }
    for case in ["k8s-core", "k8s-workloads"] {
        copy_dir(&corpus_dir().join(case), &corpus.0.join(case));
        let manifest = format!(
            "[package]\nname = \"{case}\"\nversion = \"0.1.0\"\nedition = \"2024\"\n\n[dependencies]\nk8s-openapi = {{ version = \"0.29\", features = [\"v1_34\"] }}\n"
        );
        fs::write(corpus.0.join(case).join("Cargo.toml"), manifest).unwrap();
    }
    differential(&corpus.0, &select_cases(&corpus.0, None), None);
}

fn copy_dir(from: &Path, to: &Path) {
    fs::create_dir_all(to).unwrap();
    for entry in fs::read_dir(from).unwrap() {
        let path = entry.unwrap().path();
        let target = to.join(path.file_name().unwrap());
        if path.is_dir() {
            copy_dir(&path, &target);
        } else {
            fs::copy(&path, &target).unwrap();
        }
    }
}

fn corpus_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/corpus")
}

/// Runs both tools over `cases` of `corpus` (descriptions truncated to `max_desc_len` when set) and fails on any
/// difference outside the known failures.
fn differential(corpus: &Path, cases: &[Case], max_desc_len: Option<usize>) {
    assert!(
        !cases.is_empty(),
        "no corpus cases selected in {}",
        corpus.display()
    );

    let bin = controller_gen();
    let out = OutDir::new();
    let expected = run_controller_gen(&bin, corpus, cases, max_desc_len, &out.0);

    let mut failed = Vec::new();
    let mut known = Vec::new();
    let mut fixed = Vec::new();
    let mut report = String::new();
    for case in cases {
        let want = &expected[&case.name];
        // A case controller-gen writes nothing for would pass against an rkb that writes nothing.
        assert!(
            !want.crds.is_empty() || want.rbac.is_some() || want.webhooks.is_some(),
            "corpus case {}: controller-gen wrote no CRD and no role for it",
            case.name
        );
        let problems = match rkb_side(&case.dir, max_desc_len) {
            Err(e) => vec![format!("rkb-manifests error:\n{e}")],
            Ok(got) => compare_case(want, &got),
        };
        match (&case.known_failure, problems.is_empty()) {
            (None, true) => {
                let rbac = if want.rbac.is_some() {
                    " + role.yaml"
                } else {
                    ""
                };
                let webhooks = if want.webhooks.is_some() {
                    " + webhook manifests.yaml"
                } else {
                    ""
                };
                let _ = writeln!(
                    report,
                    "ok   {} ({} CRD{rbac}{webhooks})",
                    case.name,
                    want.crds.len()
                );
            }
            (Some(_), true) => {
                let _ = writeln!(
                    report,
                    "FIXED {}: passes now; delete its KNOWN_FAILURE file",
                    case.name
                );
                fixed.push(case.name.clone());
            }
            (reason, false) => {
                let tag = if reason.is_some() { "KNOWN" } else { "FAIL" };
                let _ = writeln!(
                    report,
                    "{tag} {}: {} difference(s)",
                    case.name,
                    problems.len()
                );
                if let Some(reason) = reason {
                    let _ = writeln!(report, "    (KNOWN_FAILURE: {reason})");
                }
                for d in problems.iter().take(MAX_DIFFS_SHOWN) {
                    let _ = writeln!(report, "    {d}");
                }
                if problems.len() > MAX_DIFFS_SHOWN {
                    let _ = writeln!(report, "    ... {} more", problems.len() - MAX_DIFFS_SHOWN);
                }
                if reason.is_some() {
                    known.push(case.name.clone())
                } else {
                    failed.push(case.name.clone())
                }
            }
        }
    }
    let passed = cases.len() - failed.len() - known.len() - fixed.len();
    let mode = max_desc_len.map_or(String::new(), |n| format!(" (maxDescLen={n})"));
    println!("{report}");
    println!(
        "differential{mode}: {passed} passed, {} failed",
        failed.len() + fixed.len()
    );
    if !known.is_empty() {
        println!(
            "known failures (KNOWN_FAILURE files, tracked in the findings): {}",
            known.join(", ")
        );
    }
    if std::env::var_os("RKB_DIFF_KEEP").is_some() {
        println!("controller-gen output kept in {}", out.keep().display());
    }
    assert!(
        failed.is_empty(),
        "cases differing from controller-gen: {}",
        failed.join(", ")
    );
    // A known failure that passes must lose its KNOWN_FAILURE file, so the list never hides a regression.
    assert!(
        fixed.is_empty(),
        "cases marked KNOWN_FAILURE now match controller-gen; delete their KNOWN_FAILURE files: {}",
        fixed.join(", ")
    );
}

/// APIs controller-gen rejects (tests/corpus-errors, one Go module, same layout) must be rejected by
/// rkb too: a project that does not build under controller-gen must not quietly build under rkb.
#[test]
fn invalid_apis_fail_in_both() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/corpus-errors");
    let mut cases: Vec<PathBuf> = fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.unwrap().path())
        .filter(|p| p.join("src").is_dir())
        .collect();
    cases.sort();
    assert!(
        cases.len() >= 5,
        "only {} error cases in {}",
        cases.len(),
        dir.display()
    );
    let bin = controller_gen();
    let out = OutDir::new();
    let mut wrong = Vec::new();
    for case in &cases {
        let name = case.file_name().unwrap().to_string_lossy().into_owned();
        let target = out.0.join(&name);
        let cg = Command::new(&bin)
            .args([
                "crd:allowDangerousTypes=true".to_owned(),
                format!("rbac:roleName={ROLE_NAME}"),
                format!("paths=./{name}/..."),
                format!("output:crd:dir={}", target.display()),
                format!("output:rbac:dir={}", target.display()),
            ])
            .current_dir(&dir)
            .env("GOFLAGS", "-mod=mod")
            .env("GOTOOLCHAIN", "local")
            .output()
            .unwrap_or_else(|e| panic!("running {}: {e}", bin.display()));
        let cg_err = String::from_utf8_lossy(&cg.stderr);
        let cg_first = cg_err.lines().next().unwrap_or("").to_owned();
        let rkb = rkb_side(case, None);
        println!("{name}:\n  controller-gen: {cg_first}");
        match &rkb {
            Err(e) => println!("  rkb: {}", e.lines().next().unwrap_or("")),
            Ok(_) => println!("  rkb: accepted"),
        }
        if cg.status.success() {
            wrong.push(format!(
                "{name}: controller-gen accepts it; the case belongs in tests/corpus"
            ));
        } else if cg_err.contains("cannot find module") || cg_err.contains("no required module") {
            panic!("{name}: controller-gen could not load the Go module:\n{cg_err}");
        }
        if rkb.is_ok() {
            wrong.push(format!(
                "{name}: rkb accepts an API controller-gen rejects ({cg_first})"
            ));
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

// ---------------------------------------------------------------------------------------------
// Corpus

struct Case {
    name: String,
    dir: PathBuf,
    /// API groups declared by the Go side (`+groupName=`): the CRD files controller-gen writes for them.
    groups: BTreeSet<String>,
    /// Whether the Go side has RBAC markers (controller-gen runs `rbac` for the case).
    has_rbac: bool,
    /// Whether the Go side has webhook markers (controller-gen runs `webhook` for the case).
    has_webhooks: bool,
    /// Contents of `<case>/KNOWN_FAILURE`: a mismatch the generator still has, reported but not failing.
    known_failure: Option<String>,
}

/// Every case, or the named ones; RKB_DIFF_CASES narrows the full run.
fn select_cases(corpus: &Path, names: Option<&[&str]>) -> Vec<Case> {
    let only: Option<BTreeSet<String>> = match names {
        Some(names) => Some(names.iter().map(|n| (*n).to_owned()).collect()),
        None => std::env::var("RKB_DIFF_CASES").ok().map(|v| {
            v.split(',')
                .map(|s| s.trim().to_owned())
                .filter(|s| !s.is_empty())
                .collect()
        }),
    };
    let mut cases = Vec::new();
    let mut owner: BTreeMap<String, String> = BTreeMap::new();
    let mut entries: Vec<_> = fs::read_dir(corpus)
        .unwrap_or_else(|e| panic!("{}: {e}", corpus.display()))
        .map(|e| e.unwrap().path())
        .filter(|p| p.join("src").is_dir())
        .collect();
    entries.sort();
    for dir in entries {
        let name = dir.file_name().unwrap().to_string_lossy().into_owned();
        let mut groups = BTreeSet::new();
        let mut has_rbac = false;
        let mut has_webhooks = false;
        for file in go_files(&dir) {
            let text = fs::read_to_string(&file).unwrap();
            for line in text.lines() {
                let line = line.trim_start_matches(['/', ' ', '\t']);
                if let Some(g) = line.strip_prefix("+groupName=") {
                    groups.insert(g.trim().to_owned());
                }
                has_rbac |= line.starts_with("+kubebuilder:rbac:");
                has_webhooks |= line.starts_with("+kubebuilder:webhook");
            }
        }
        for g in &groups {
            if let Some(other) = owner.insert(g.clone(), name.clone()) {
                assert_eq!(
                    other, name,
                    "cases {other} and {name} both declare group {g}: groups must be unique"
                );
            }
        }
        if only.as_ref().is_none_or(|o| o.contains(&name)) {
            let known_failure = fs::read_to_string(dir.join("KNOWN_FAILURE"))
                .ok()
                .map(|r| r.trim().to_owned());
            cases.push(Case {
                name,
                dir,
                groups,
                has_rbac,
                has_webhooks,
                known_failure,
            });
        }
    }
    if let Some(only) = &only {
        let known: BTreeSet<_> = cases.iter().map(|c| c.name.clone()).collect();
        let unknown: Vec<_> = only.difference(&known).collect();
        assert!(unknown.is_empty(), "unknown corpus cases: {unknown:?}");
    }
    cases
}

fn go_files(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in fs::read_dir(&d).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                stack.push(p);
            } else if p.extension().is_some_and(|x| x == "go") {
                out.push(p);
            }
        }
    }
    out.sort();
    out
}

// ---------------------------------------------------------------------------------------------
// controller-gen side

fn controller_gen() -> PathBuf {
    let hint = "install it with `hack/install-controller-gen.sh` (CI runs it before the tests), \
                or point RKB_CONTROLLER_GEN at a controller-gen binary";
    let mut candidates = Vec::new();
    // RKB_CONTROLLER_GEN, or CONTROLLER_GEN as kubebuilder Makefiles (and hack/test.sh) name it.
    if let Some(p) =
        std::env::var_os("RKB_CONTROLLER_GEN").or_else(|| std::env::var_os("CONTROLLER_GEN"))
    {
        candidates.push(PathBuf::from(p));
    } else {
        // The install script's default location, then PATH.
        let data = std::env::var_os("RKB_TOOLS_BIN")
            .map(PathBuf::from)
            .or_else(|| {
                std::env::var_os("XDG_DATA_HOME")
                    .map(PathBuf::from)
                    .or_else(|| {
                        std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".local/share"))
                    })
                    .map(|d| d.join("rkb-tools/bin"))
            });
        if let Some(d) = data {
            candidates.push(d.join("controller-gen"));
        }
        candidates.push(PathBuf::from("controller-gen"));
    }
    let mut seen = Vec::new();
    for bin in candidates {
        match Command::new(&bin).arg("--version").output() {
            Ok(o) => {
                let v = String::from_utf8_lossy(&o.stdout).trim().to_owned();
                if v == format!("Version: {CONTROLLER_GEN_VERSION}") {
                    return bin;
                }
                seen.push(format!("{} reports {v:?}", bin.display()));
            }
            Err(e) => seen.push(format!("{}: {e}", bin.display())),
        }
    }
    panic!(
        "controller-gen {CONTROLLER_GEN_VERSION} is required by the differential test and was not found ({}); {hint}",
        seen.join("; ")
    );
}

#[derive(Default)]
struct Expected {
    /// CRD file name -> parsed document.
    crds: BTreeMap<String, Value>,
    /// Parsed documents of role.yaml; None when controller-gen wrote none.
    rbac: Option<Vec<Value>>,
    /// Parsed documents of the webhook manifests.yaml; None when controller-gen wrote none.
    webhooks: Option<Vec<Value>>,
    /// File name (`role.yaml` for RBAC, `manifests.yaml` for webhooks) -> text as written.
    texts: BTreeMap<String, String>,
}

fn run_controller_gen(
    bin: &Path,
    corpus: &Path,
    cases: &[Case],
    max_desc_len: Option<usize>,
    out: &Path,
) -> BTreeMap<String, Expected> {
    let crd_dir = out.join("crd");
    // One run over the whole module for CRDs (or over the selected cases when truncating descriptions).
    // Floats are allowed so the corpus can map f64.
    let (crd, paths) = match max_desc_len {
        None => (
            "crd:allowDangerousTypes=true".to_owned(),
            "paths=./...".to_owned(),
        ),
        Some(n) => {
            let dirs: Vec<String> = cases.iter().map(|c| format!("./{}/...", c.name)).collect();
            (
                format!("crd:allowDangerousTypes=true,maxDescLen={n}"),
                format!("paths={{{}}}", dirs.join(",")),
            )
        }
    };
    cg(
        bin,
        corpus,
        &[crd, paths, format!("output:crd:dir={}", crd_dir.display())],
    );
    let mut crd_files: BTreeMap<String, (Value, String)> = BTreeMap::new();
    for e in fs::read_dir(&crd_dir).unwrap() {
        let p = e.unwrap().path();
        let name = p.file_name().unwrap().to_string_lossy().into_owned();
        let text = fs::read_to_string(&p).unwrap();
        let docs = parse_yaml(&text).unwrap_or_else(|e| panic!("{}: {e}", p.display()));
        assert_eq!(docs.len(), 1, "{name}: expected one document");
        crd_files.insert(name, (docs.into_iter().next().unwrap(), text));
    }

    let mut expected = BTreeMap::new();
    for case in cases {
        let mut exp = Expected::default();
        for (name, (doc, text)) in &crd_files {
            if doc
                .pointer("/spec/group")
                .and_then(Value::as_str)
                .is_some_and(|g| case.groups.contains(g))
            {
                exp.crds.insert(name.clone(), doc.clone());
                exp.texts.insert(name.clone(), text.clone());
            }
        }
        if case.has_rbac {
            let generator = format!("rbac:roleName={ROLE_NAME}");
            exp.rbac = run_per_case(bin, corpus, case, out, (&generator, "rbac"), "role.yaml")
                .map(|text| exp_text(&mut exp.texts, "role.yaml", text));
        }
        if case.has_webhooks {
            let generator = ("webhook", "webhook");
            exp.webhooks = run_per_case(bin, corpus, case, out, generator, "manifests.yaml")
                .map(|text| exp_text(&mut exp.texts, "manifests.yaml", text));
        }
        expected.insert(case.name.clone(), exp);
    }
    expected
}

/// Runs one controller-gen generator (`(its argument, its output rule)`) over one case; the text of the file it
/// wrote, if it wrote one.
fn run_per_case(
    bin: &Path,
    corpus: &Path,
    case: &Case,
    out: &Path,
    (generator, output): (&str, &str),
    file: &str,
) -> Option<String> {
    let dir = out.join(output).join(&case.name);
    cg(
        bin,
        corpus,
        &[
            generator.to_owned(),
            format!("paths=./{}/...", case.name),
            format!("output:{output}:dir={}", dir.display()),
        ],
    );
    fs::read_to_string(dir.join(file)).ok()
}

/// Keeps `text` as the file's expected text and returns its parsed documents.
fn exp_text(texts: &mut BTreeMap<String, String>, file: &str, text: String) -> Vec<Value> {
    let docs = parse_yaml(&text).unwrap();
    texts.insert(file.into(), text);
    docs
}

fn cg(bin: &Path, corpus: &Path, args: &[String]) {
    let out = Command::new(bin)
        .args(args)
        .current_dir(corpus)
        .env("GOFLAGS", "-mod=mod")
        .env("GOTOOLCHAIN", "local")
        .output()
        .unwrap_or_else(|e| panic!("running {}: {e}", bin.display()));
    assert!(
        out.status.success(),
        "controller-gen {} failed ({}); it needs Go and the Go module proxy for the corpus module's dependencies:\n{}{}",
        args.join(" "),
        out.status,
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
}

// ---------------------------------------------------------------------------------------------
// rkb side

struct Actual {
    crds: BTreeMap<String, Value>,
    rbac: Option<Vec<Value>>,
    webhooks: Option<Vec<Value>>,
    texts: BTreeMap<String, String>,
}

fn rkb_side(project_root: &Path, max_desc_len: Option<usize>) -> Result<Actual, String> {
    let opts = rkb_manifests::Options {
        role_name: ROLE_NAME.into(),
        max_desc_len,
        ..Default::default()
    };
    let out = rkb_manifests::generate(project_root, &opts).map_err(|e| e.to_string())?;
    let mut crds = BTreeMap::new();
    let mut texts = BTreeMap::new();
    for f in out.crds {
        let docs = parse_yaml(&f.yaml)
            .map_err(|e| format!("{}: rkb wrote YAML that does not parse: {e}", f.file_name))?;
        if docs.len() != 1 {
            return Err(format!(
                "{}: rkb wrote {} documents, expected one",
                f.file_name,
                docs.len()
            ));
        }
        if crds
            .insert(f.file_name.clone(), docs.into_iter().next().unwrap())
            .is_some()
        {
            return Err(format!("rkb wrote {} twice", f.file_name));
        }
        texts.insert(f.file_name, f.yaml);
    }
    let rbac = match out.rbac {
        Some(text) => {
            let docs = parse_yaml(&text)
                .map_err(|e| format!("role.yaml: rkb wrote YAML that does not parse: {e}"))?;
            texts.insert("role.yaml".into(), text);
            Some(docs)
        }
        None => None,
    };
    let webhooks = match out.webhooks {
        Some(text) => {
            let docs = parse_yaml(&text)
                .map_err(|e| format!("manifests.yaml: rkb wrote YAML that does not parse: {e}"))?;
            texts.insert("manifests.yaml".into(), text);
            Some(docs)
        }
        None => None,
    };
    Ok(Actual {
        crds,
        rbac,
        webhooks,
        texts,
    })
}

// ---------------------------------------------------------------------------------------------
// Comparison

/// The non-empty documents of `text`.
fn parse_yaml(text: &str) -> Result<Vec<Value>, serde_saphyr::Error> {
    serde_saphyr::from_multiple(text)
}

fn compare_case(want: &Expected, got: &Actual) -> Vec<String> {
    let mut diffs = Vec::new();
    let names: BTreeSet<&String> = want.crds.keys().chain(got.crds.keys()).collect();
    for name in names {
        match (want.crds.get(name), got.crds.get(name)) {
            (Some(w), Some(g)) => diff(&format!("{name}:"), w, g, &mut diffs),
            (Some(_), None) => diffs.push(format!(
                "{name}: missing (controller-gen writes it, rkb does not)"
            )),
            (None, Some(_)) => diffs.push(format!(
                "{name}: unexpected (rkb writes it, controller-gen does not)"
            )),
            (None, None) => unreachable!(),
        }
    }
    compare_file("role.yaml", &want.rbac, &got.rbac, &mut diffs);
    compare_file("manifests.yaml", &want.webhooks, &got.webhooks, &mut diffs);
    if diffs.is_empty() {
        // Same documents: the files must also be the same bytes (key order, quoting, line folding), so
        // switching a project from controller-gen to rkb leaves `git diff` empty.
        for (name, want_text) in &want.texts {
            if let Some(got_text) = got.texts.get(name) {
                text_diff(name, want_text, got_text, &mut diffs);
            }
        }
    }
    diffs
}

/// Compares the documents of a file both tools may write (role.yaml, the webhook manifests.yaml).
fn compare_file(
    name: &str,
    want: &Option<Vec<Value>>,
    got: &Option<Vec<Value>>,
    diffs: &mut Vec<String>,
) {
    match (want, got) {
        (Some(w), Some(g)) => diff(
            &format!("{name}:"),
            &Value::Array(w.clone()),
            &Value::Array(g.clone()),
            diffs,
        ),
        (Some(_), None) => diffs.push(format!(
            "{name}: missing (controller-gen writes it, rkb does not)"
        )),
        (None, Some(_)) => diffs.push(format!(
            "{name}: unexpected (rkb writes it, controller-gen does not)"
        )),
        (None, None) => {}
    }
}

/// Reports the first line where two texts part.
fn text_diff(name: &str, want: &str, got: &str, out: &mut Vec<String>) {
    if want == got {
        return;
    }
    let (mut w, mut g) = (want.split_inclusive('\n'), got.split_inclusive('\n'));
    for line in 1.. {
        match (w.next(), g.next()) {
            (Some(a), Some(b)) if a == b => continue,
            (a, b) => {
                out.push(format!(
                    "{name}: same documents, different text from line {line}: expected {:?}, got {:?}",
                    a.unwrap_or("<end of file>"),
                    b.unwrap_or("<end of file>")
                ));
                return;
            }
        }
    }
}

/// Appends one line per difference: `<path>: expected <v>, got <v>`. Paths are JSON-path-like,
/// e.g. `x.yaml:spec.versions[0].schema.openAPIV3Schema.properties.spec.required`.
fn diff(path: &str, want: &Value, got: &Value, out: &mut Vec<String>) {
    match (want, got) {
        (Value::Object(w), Value::Object(g)) => {
            let keys: BTreeSet<&String> = w.keys().chain(g.keys()).collect();
            for k in keys {
                let p = join(path, k);
                match (w.get(k), g.get(k)) {
                    (Some(wv), Some(gv)) => diff(&p, wv, gv, out),
                    (Some(wv), None) => out.push(format!("{p}: missing, expected {}", show(wv))),
                    (None, Some(gv)) => out.push(format!("{p}: unexpected {}", show(gv))),
                    (None, None) => unreachable!(),
                }
            }
        }
        (Value::Array(w), Value::Array(g)) => {
            for (i, (wv, gv)) in w.iter().zip(g).enumerate() {
                diff(&format!("{path}[{i}]"), wv, gv, out);
            }
            for (i, wv) in w.iter().enumerate().skip(g.len()) {
                out.push(format!("{path}[{i}]: missing, expected {}", show(wv)));
            }
            for (i, gv) in g.iter().enumerate().skip(w.len()) {
                out.push(format!("{path}[{i}]: unexpected {}", show(gv)));
            }
        }
        _ if want == got => {}
        _ => out.push(format!(
            "{path}: expected {}, got {}",
            show(want),
            show(got)
        )),
    }
}

fn join(path: &str, key: &str) -> String {
    let plain = !key.is_empty()
        && key
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-');
    let sep = if path.ends_with(':') { "" } else { "." };
    if plain {
        format!("{path}{sep}{key}")
    } else {
        format!("{path}[{key:?}]")
    }
}

fn show(v: &Value) -> String {
    let s = v.to_string();
    if s.chars().count() > 200 {
        format!("{}...", s.chars().take(200).collect::<String>())
    } else {
        s
    }
}

/// Output directory, removed on drop unless kept.
struct OutDir(PathBuf);

impl OutDir {
    fn new() -> Self {
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .unwrap()
            .subsec_nanos();
        let dir =
            std::env::temp_dir().join(format!("rkb-differential-{}-{nanos}", std::process::id()));
        fs::create_dir_all(&dir).unwrap();
        Self(dir)
    }

    fn keep(self) -> PathBuf {
        let dir = self.0.clone();
        std::mem::forget(self);
        dir
    }
}

impl Drop for OutDir {
    fn drop(&mut self) {
        let _ = fs::remove_dir_all(&self.0);
    }
}

#[test]
fn differences_are_reported_with_json_paths() {
    let want = serde_json::json!({
        "spec": {"versions": [{"name": "v1", "schema": {"openAPIV3Schema": {"properties": {
            "spec": {"description": "a\nb", "required": ["x", "y"], "type": "object"}}}}}]},
        "kind": "CustomResourceDefinition"
    });
    let got = serde_json::json!({
        "spec": {"versions": [{"name": "v1", "schema": {"openAPIV3Schema": {"properties": {
            "spec": {"description": "a b", "required": ["x"], "type": "object", "x-kubernetes-map-type": "atomic"}}}}}]},
        "kind": "CustomResourceDefinition"
    });
    let mut out = Vec::new();
    diff("f.yaml:", &want, &want, &mut out);
    assert!(out.is_empty(), "{out:?}");
    diff("f.yaml:", &want, &got, &mut out);
    let base = "f.yaml:spec.versions[0].schema.openAPIV3Schema.properties.spec";
    assert_eq!(
        out,
        [
            format!(r#"{base}.description: expected "a\nb", got "a b""#),
            format!(r#"{base}.required[1]: missing, expected "y""#),
            format!(r#"{base}.x-kubernetes-map-type: unexpected "atomic""#),
        ]
    );
}

#[test]
fn text_differences_name_the_first_line() {
    let mut out = Vec::new();
    text_diff("f.yaml", "a: 1\nb: 2\n", "a: 1\nb: 2\n", &mut out);
    assert!(out.is_empty());
    text_diff("f.yaml", "a: 1\nb: '2'\n", "a: 1\nb: \"2\"\n", &mut out);
    text_diff("g.yaml", "a: 1\n", "a: 1\nb: 2\n", &mut out);
    assert_eq!(
        out,
        [
            r#"f.yaml: same documents, different text from line 2: expected "b: '2'\n", got "b: \"2\"\n""#,
            r#"g.yaml: same documents, different text from line 2: expected "<end of file>", got "b: 2\n""#,
        ]
    );
}
