//! rkb-manifests: reads a Rust operator project's API types and `+kubebuilder` markers and produces the
//! CRD and RBAC YAML controller-gen v0.21.0 would produce for the equivalent Go types.
//!
//! How a run goes (each stage collects every diagnostic it can; nothing is generated unless the CRDs were
//! resolved and checked without an error, and nothing is written unless the whole run succeeded). Each stage is a
//! folder of src/, and a stage imports only the stages before it (tests/architecture.rs holds the tree to that:
//! no import circle between two files or two folders):
//! 1. **read/**: `load` reads the files of the module tree `modules` follows from the crate roots (`source`: one
//!    file and its doc lines); `scan` (or syn, `outline::from_syn`, where the scanner steps aside) turns each into
//!    an `outline`. `settings` reads the project's `[package.metadata.rkb]` from Cargo.toml.
//! 2. **model/**: `model` builds packages, types and fields; `doc_comment` hands `+` lines to rkb-markers, which
//!    checks each marker against the vocabulary (name, arguments, target) and gives it its `Effect`, and sorts
//!    them into each item's settings (`item_markers`, which also checks conflicts between one item's markers).
//! 3. **plan/**: `kinds::find_roots` finds the kinds, `plan::plan_crds` groups them into CRDs (`crd_plan`),
//!    applies CRD markers (`crd_markers`) and checks the versions of each (one storage version, one plural and
//!    scope) and that no two kinds share a plural.
//! 4. **schema/**: `resolve.rs` drives stages 4 and 5 for each CRD, version by version: `schema` resolves the
//!    version's types into its schema (a `node` tree: keywords as JSON, sub-schemas typed, a k8s type's children
//!    shared through the run's `shared` store, read from the `k8s/` tables), applying schema markers (`markers/`,
//!    one file per concern). Each marker checks the schema it lands on (e.g. Maximum needs a number) as it is
//!    applied: what a field's type is, resolving finds. XValidation rules are parsed (`cel/`, the CEL language:
//!    parser and evaluator, no schemas).
//! 5. **check/**: `check` runs its rules, one function each (`rule`: what a rule reads), on every CRD's resolved
//!    schemas: the API server's structural and map-list rules (`structural`), its defaults (`defaults`: each held
//!    to its schema's formats, `formats`, and CEL rules, `cel::eval`), its CEL cost limits (`cel_cost`).
//! 6. **emit/** (generate): `crd_document` assembles each checked CRD (a `node::Doc`) and `yaml` prints it,
//!    controller-gen's key order and quoting; `rbac` merges the RBAC markers into roles and `webhook` reads,
//!    checks and prints the webhook configurations. None of them can fail.
//! 7. **emit/** (write): `output` skips what is up to date and writes the rest all or nothing (`write`), or diffs
//!    it (`--check`); stale generated CRDs are removed.
//! 8. **compat/** (upgrade safety, `rkb manifests --check` and `--against <git ref>`): `walk` pairs a baseline CRD
//!    (a release's) with the one generated now, version by version and schema node by schema node, and runs
//!    `rules` on each pair (one function per rule: a field removed, a limit tightened, ...); `compare` is the one
//!    implementation. [`compat_check`] builds the schemas again with their provenance and `diagnostics` turns
//!    each finding into an error at the Rust field or marker behind it, unless a `+rkb:compat:allow` on it
//!    acknowledges the break. A baseline CRD the project no longer generates is a `crd-removed` error at the
//!    baseline file (`removed_crds`).
//!
//! ```no_run
//! let root = std::path::Path::new(".");
//! let opts = rkb_manifests::Options::default();
//! let out = rkb_manifests::generate(root, &opts)?;          // reads only
//! if let Some(diff) = rkb_manifests::check(root, &opts, &out)? { print!("{diff}"); }
//! rkb_manifests::write(root, &opts, &out)?;                  // all-or-nothing, then stale CRDs removed
//! # Ok::<(), rkb_manifests::Error>(())
//! ```

mod cel;
mod check;
pub mod compat;
mod emit;
mod error;
pub mod k8s;
mod model;
mod parallel;
mod plan;
mod read;
mod resolve;
mod schema;

use emit::{crd_document, output, rbac, webhook, yaml};
use plan::kinds;
use read::{load, settings};
use schema::shared;

pub use crd_document::CONTROLLER_GEN_VERSION;
pub use emit::output::Written;
pub use emit::write;
pub use error::Error;
pub use load::module_path;
pub use rkb_markers::{Diagnostic, Severity, plural_of};
pub use yaml::to_yaml;

use std::path::{Path, PathBuf};

/// Options of `rkb manifests`.
#[derive(Clone, Debug)]
pub struct Options {
    /// Where CRDs go, relative to the project root (or absolute). Default `config/crd/bases`.
    pub crd_dir: PathBuf,
    /// Where `role.yaml` goes. Default `config/rbac`.
    pub rbac_dir: PathBuf,
    /// Where the webhook configurations (`manifests.yaml`) go. Default `config/webhook`.
    pub webhook_dir: PathBuf,
    /// Truncate descriptions to this many bytes (controller-gen's `crd:maxDescLen`); 0 drops them.
    pub max_desc_len: Option<usize>,
    /// Name of the ClusterRole/Roles. Default `manager-role`.
    pub role_name: String,
}

impl Default for Options {
    fn default() -> Self {
        Options {
            crd_dir: PathBuf::from("config/crd/bases"),
            rbac_dir: PathBuf::from("config/rbac"),
            webhook_dir: PathBuf::from("config/webhook"),
            max_desc_len: None,
            role_name: "manager-role".into(),
        }
    }
}

/// One generated CRD file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CrdFile {
    /// `<group>_<plural>.yaml`
    pub file_name: String,
    pub group: String,
    pub kind: String,
    pub yaml: String,
}

/// Everything a run generates, in memory.
#[derive(Clone, Debug)]
pub struct Output {
    pub crds: Vec<CrdFile>,
    /// The text of `role.yaml`; `None` when the project has no `+kubebuilder:rbac` markers.
    pub rbac: Option<String>,
    /// The text of the webhook configurations' `manifests.yaml`; `None` without `+kubebuilder:webhook` markers.
    pub webhooks: Option<String>,
    /// Warnings (the run succeeded); print them.
    pub warnings: Vec<Diagnostic>,
    /// Every file read.
    pub source_files: Vec<PathBuf>,
    /// The struct names of each API group the sources hold, to say why a CRD is no longer generated.
    groups: std::collections::BTreeMap<String, std::collections::BTreeSet<String>>,
}

impl Output {
    /// Why the generated CRD `crd_text` (a file this output does not write) is no longer generated: its group's
    /// `+groupName` is gone, its type is gone, or the type is no longer a kind.
    pub fn why_not_generated(&self, crd_text: &str) -> String {
        // A generated CRD's layout is fixed: `spec:` holds `  group:` and `  names:`, which holds `    kind:`.
        let value = |key: &str| {
            crd_text
                .lines()
                .skip_while(|l| *l != "spec:")
                .find_map(|l| l.strip_prefix(key))
                .map(|v| v.trim().trim_matches(['\'', '"']))
                .unwrap_or_default()
        };
        let (group, kind) = (value("  group: "), value("    kind: "));
        match self.groups.get(group) {
            None => format!("no version module has `+groupName={group}` any more"),
            Some(types) if !types.contains(kind) => {
                format!("no type `{kind}` is left in group {group}")
            }
            Some(_) => format!(
                "`{kind}` of group {group} is no longer a kind (one has a flattened `TypeMeta` and `metadata: ObjectMeta`) or has no version left"
            ),
        }
    }

    /// The files this output writes: (absolute path, path relative to the project root, content).
    pub fn files(&self, project_root: &Path, opts: &Options) -> Vec<(PathBuf, PathBuf, String)> {
        let mut v = Vec::new();
        for c in &self.crds {
            let rel = opts.crd_dir.join(&c.file_name);
            v.push((project_root.join(&rel), rel, c.yaml.clone()));
        }
        if let Some(r) = &self.rbac {
            let rel = opts.rbac_dir.join("role.yaml");
            v.push((project_root.join(&rel), rel, r.clone()));
        }
        if let Some(w) = &self.webhooks {
            let rel = opts.webhook_dir.join("manifests.yaml");
            v.push((project_root.join(&rel), rel, w.clone()));
        }
        v
    }

    fn planned(&self, project_root: &Path, opts: &Options) -> Vec<output::Planned> {
        self.files(project_root, opts)
            .into_iter()
            .map(|(path, rel, content)| output::Planned { path, rel, content })
            .collect()
    }
}

/// Identity of one root kind (one version of it), as the derive macro needs it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct KindIdentity {
    pub group: String,
    pub version: String,
    pub kind: String,
    pub plural: String,
    pub singular: String,
    pub short_names: Vec<String>,
    pub namespaced: bool,
    pub has_status: bool,
    pub has_scale: bool,
    /// Module path under the crate of the version module, then the kind: `api::v1::DemoMicroService`.
    pub rust_path: String,
    /// Deep copy is generated: neither the kind nor its package turns it off
    /// (`+kubebuilder:object:generate=false`, `+k8s:deepcopy-gen=false`).
    pub deep_copy: bool,
    /// Every file read.
    pub source_files: Vec<PathBuf>,
}

struct Analysis {
    model: model::Model,
    plans: Vec<plan::CrdPlan>,
    diags: Vec<Diagnostic>,
}

fn analyze(project_root: &Path) -> Result<Analysis, Error> {
    let mut diags = Vec::new();
    let files = load::load_sources(project_root, &mut diags)?;
    for f in &files {
        load::plain_comment_markers(f, &mut diags);
        load::kube_derives(f, &mut diags);
    }
    let mut model = model::Model::build(files, &mut diags);
    let roots = kinds::find_roots(&model, &mut diags);
    let plans = plan::plan_crds(&model, &roots, &mut diags);
    // An acknowledgment of a breaking change naming no rule is refused on every run, not only when a
    // baseline is compared (compat/diagnostics.rs).
    diags.extend(compat::diagnostics::check_allow_markers(&model));
    let settings = settings::Settings::read(project_root, &mut diags);
    settings.apply(&mut diags);
    model.k8s = settings.k8s_version;
    Ok(Analysis {
        model,
        plans,
        diags,
    })
}

fn finish<T>(value: T, diags: Vec<Diagnostic>) -> Result<(T, Vec<Diagnostic>), Error> {
    if diags.iter().any(Diagnostic::is_error) {
        return Err(Error::Diagnostics(diags));
    }
    Ok((value, diags))
}

/// Reads the project at `project_root` (the directory with Cargo.toml and src/) and generates every CRD,
/// the RBAC role and the webhook configurations. Writes nothing. All problems of the run come back together in [`Error::Diagnostics`].
pub fn generate(project_root: &Path, opts: &Options) -> Result<Output, Error> {
    let Analysis {
        model,
        plans,
        mut diags,
    } = analyze(project_root)?;
    let uses = schema::type_uses(&model);
    let earlier_errors = diags.iter().any(Diagnostic::is_error);
    let yamls = {
        // The run's shared k8s sub-schemas and what is derived from them, freed once the CRDs are printed. The
        // one-thread build may reuse what a split build stored: nothing in it depends on who stored it.
        let shared = shared::SharedSchemas::new();
        let split = (!earlier_errors)
            .then(|| crd_yamls_parallel(&model, &uses, &shared, &plans, opts))
            .flatten();
        match split {
            Some(yamls) => yamls,
            // Nothing generated: the errors in `diags` end the run below.
            None => crd_yamls(&model, &uses, &shared, &plans, opts, &mut diags).unwrap_or_default(),
        }
    };
    let roles = rbac::roles(model.rbac.iter().map(|r| &r.value), &opts.role_name);
    let webhooks = webhook::configurations(&model, &mut diags);
    let source_files: Vec<PathBuf> = model.files.iter().map(|f| f.abs.clone()).collect();
    let groups = model.struct_names_by_group();
    // Freeing the model (many small allocations, made on the parsing threads) is slow and nothing
    // waits for it. Should no thread start, the closure and the model are dropped right here.
    let _ = std::thread::Builder::new().spawn(move || drop(model));
    let crds = plans
        .iter()
        .zip(yamls)
        .map(|(plan, yaml)| CrdFile {
            file_name: plan.file_name(),
            group: plan.group.clone(),
            kind: plan.kind.clone(),
            yaml,
        })
        .collect::<Vec<_>>();
    let rbac = if roles.is_empty() {
        None
    } else {
        Some(roles.iter().map(yaml::document).collect::<String>())
    };
    let ((crds, rbac, webhooks), warnings) = finish((crds, rbac, webhooks), diags)?;
    Ok(Output {
        crds,
        rbac,
        webhooks: webhooks.document(),
        warnings,
        source_files,
        groups,
    })
}

/// The YAML of every planned CRD, in plan order, on one thread: every CRD resolved and checked, then, when none
/// has an error, generated. Diagnostics go to `diags`; `None` when any is an error.
fn crd_yamls(
    model: &model::Model,
    uses: &[usize],
    shared: &shared::SharedSchemas,
    plans: &[plan::CrdPlan],
    opts: &Options,
    diags: &mut Vec<Diagnostic>,
) -> Option<Vec<String>> {
    let schemas = resolve_and_check_all(model, uses, shared, plans, opts.max_desc_len, diags)?;
    let yamls = plans
        .iter()
        .zip(schemas)
        .map(|(plan, schemas)| {
            yaml::crd_document(&crd_document::crd_document(plan, schemas), shared)
        })
        .collect();
    Some(yamls)
}

/// Stages 4 and 5 for every planned CRD, on one thread: the resolved schemas of each (one per version), or
/// `None` when `diags` holds an error, from these stages or the ones before.
fn resolve_and_check_all(
    model: &model::Model,
    uses: &[usize],
    shared: &shared::SharedSchemas,
    plans: &[plan::CrdPlan],
    max_desc_len: Option<usize>,
    diags: &mut Vec<Diagnostic>,
) -> Option<Vec<Vec<schema::Schema>>> {
    // Shared k8s sub-schemas cannot be truncated per run: copy them when descriptions are cut.
    let mut sg = schema::SchemaGen::new(model, uses, shared, max_desc_len.is_none());
    sg.earlier_errors = diags.iter().any(Diagnostic::is_error);
    let schemas = plans
        .iter()
        .map(|plan| resolve::resolve_and_check(&mut sg, plan, max_desc_len))
        .collect();
    let failed = sg.earlier_errors || sg.diags.iter().any(Diagnostic::is_error);
    diags.append(&mut sg.diags);
    (!failed).then_some(schemas)
}

/// [`crd_yamls`] with the plans shared between the cores, one schema generator per thread, all of them using the
/// run's `shared` (a k8s type is expanded and printed once, by whichever thread needs it first). `None` when
/// one thread would do, or when any generator reported something: its caches are per generator, so which
/// type a message is reported for first (and the hints that list what was seen so far) would depend on
/// the split. The caller then runs the single-threaded build, whose messages are the reference.
fn crd_yamls_parallel(
    model: &model::Model,
    uses: &[usize],
    shared: &shared::SharedSchemas,
    plans: &[plan::CrdPlan],
    opts: &Options,
) -> Option<Vec<String>> {
    if parallel::threads_for(plans.len(), parallel::MIN_CRDS_TO_BUILD) == 1 {
        return None;
    }
    parallel::map_indexed(
        plans.len(),
        parallel::MIN_CRDS_TO_BUILD,
        || schema::SchemaGen::new(model, uses, shared, opts.max_desc_len.is_none()),
        |sg, i| {
            let schemas = resolve::resolve_and_check(sg, &plans[i], opts.max_desc_len);
            // Diagnostics stay in the generator: any at all sends the caller to the one-thread build.
            sg.diags.is_empty().then(|| {
                yaml::crd_document(&crd_document::crd_document(&plans[i], schemas), shared)
            })
        },
    )
    .into_iter()
    .collect()
}

/// Writes `out` under `project_root`: only files whose content changed, all-or-nothing (temp file + rename), then
/// removes the stale CRDs ([`stale_crds`]).
pub fn write(project_root: &Path, opts: &Options, out: &Output) -> Result<Written, Error> {
    let stale = located(project_root, out, stale_crds(project_root, opts, out)?)?;
    output::write_all(&out.planned(project_root, opts), &stale)
}

/// `--check`: writes nothing; `Some(unified diff)` when a file on disk differs from `out` or is a stale CRD (shown
/// as its deletion). Behind the `check` feature (on by default): the derive macro, which runs in every
/// operator's build, never diffs.
#[cfg(feature = "check")]
pub fn check(project_root: &Path, opts: &Options, out: &Output) -> Result<Option<String>, Error> {
    let stale = located(project_root, out, stale_crds(project_root, opts, out)?)?;
    output::diff_all(&out.planned(project_root, opts), &stale)
}

/// Each stale CRD of `rel` with its absolute path and why it is no longer generated.
fn located(
    project_root: &Path,
    out: &Output,
    rel: Vec<PathBuf>,
) -> Result<Vec<output::Stale>, Error> {
    rel.into_iter()
        .map(|rel| {
            let path = project_root.join(&rel);
            let text = std::fs::read_to_string(&path).map_err(|source| Error::Io {
                path: path.clone(),
                source,
            })?;
            Ok(output::Stale {
                reason: out.why_not_generated(&text),
                path,
                rel,
            })
        })
        .collect()
}

/// The CRD files in `opts.crd_dir` that a generator wrote (they carry controller-gen's version annotation, as
/// rkb's do) and that this run no longer writes: their kind, version module or `+groupName` is gone. rkb owns
/// that directory as controller-gen's users expect a generator to; a CRD written by hand there, without the
/// annotation, is left alone. Paths relative to the project, sorted.
pub fn stale_crds(
    project_root: &Path,
    opts: &Options,
    out: &Output,
) -> Result<Vec<PathBuf>, Error> {
    let dir = project_root.join(&opts.crd_dir);
    let entries = match std::fs::read_dir(&dir) {
        Ok(entries) => entries,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(source) => return Err(Error::Io { path: dir, source }),
    };
    let mut stale = Vec::new();
    for entry in entries {
        let entry = entry.map_err(|source| Error::Io {
            path: dir.clone(),
            source,
        })?;
        let name = entry.file_name().to_string_lossy().into_owned();
        if !name.ends_with(".yaml") || out.crds.iter().any(|c| c.file_name == name) {
            continue;
        }
        let path = entry.path();
        let text = std::fs::read_to_string(&path).map_err(|source| Error::Io {
            path: path.clone(),
            source,
        })?;
        if is_generated_crd(&text) {
            stale.push(opts.crd_dir.join(&name));
        }
    }
    stale.sort();
    Ok(stale)
}

/// Whether a YAML file is a CRD a generator wrote: it carries controller-gen's version annotation, as rkb's do.
/// Such a file in the CRD directory is rkb's to remove when no kind makes it any more; one without is the user's.
pub fn is_generated_crd(yaml: &str) -> bool {
    yaml.contains("\nkind: CustomResourceDefinition\n")
        && yaml.contains("    controller-gen.kubebuilder.io/version: ")
}

/// What a project's inputs look like on disk (path, size, mtime of every `src/**/*.rs`, and of Cargo.toml, whose
/// `[package.metadata.rkb]` settings change the output): when it is unchanged, results computed for it are still
/// valid. The derive macro runs once per kind in one compiler process, so without this every kind would re-read
/// and re-generate the whole project; a long-lived process (rust-analyzer's macro server) sees edits.
type Fingerprint = Vec<(PathBuf, u64, Option<std::time::SystemTime>)>;

fn fingerprint(root: &Path) -> Fingerprint {
    let sources = walkdir::WalkDir::new(root.join("src"))
        .into_iter()
        .filter_map(Result::ok)
        .filter(|e| e.file_type().is_file() && e.path().extension().is_some_and(|x| x == "rs"))
        .map(walkdir::DirEntry::into_path);
    let mut v: Fingerprint = sources
        .chain([root.join("Cargo.toml")])
        .map(|path| {
            let md = std::fs::metadata(&path).ok();
            (
                path,
                md.as_ref().map_or(0, |m| m.len()),
                md.and_then(|m| m.modified().ok()),
            )
        })
        .collect();
    v.sort();
    v
}

/// A per-process memo keyed by project root, valid while the root's fingerprint is unchanged.
struct Memo<T>(
    std::sync::OnceLock<std::sync::Mutex<std::collections::HashMap<PathBuf, (Fingerprint, T)>>>,
);

impl<T: Clone> Memo<T> {
    const fn new() -> Self {
        Memo(std::sync::OnceLock::new())
    }

    fn get_or_try(
        &self,
        root: &Path,
        compute: impl FnOnce() -> Result<T, Error>,
    ) -> Result<T, Error> {
        let map = self.0.get_or_init(Default::default);
        let fp = fingerprint(root);
        if let Ok(m) = map.lock()
            && let Some((f, v)) = m.get(root)
            && *f == fp
        {
            return Ok(v.clone());
        }
        let v = compute()?;
        if let Ok(mut m) = map.lock() {
            m.insert(root.to_path_buf(), (fp, v.clone()));
        }
        Ok(v)
    }
}

/// The root kinds of the project (for the derive macro). Reads and checks the markers, but does not
/// build schemas, so it stays cheap at compile time.
pub fn kind_identities(project_root: &Path) -> Result<Vec<KindIdentity>, Error> {
    static MEMO: Memo<Vec<KindIdentity>> = Memo::new();
    MEMO.get_or_try(project_root, || kind_identities_uncached(project_root))
}

fn kind_identities_uncached(project_root: &Path) -> Result<Vec<KindIdentity>, Error> {
    let Analysis {
        model,
        plans,
        diags,
    } = analyze(project_root)?;
    let source_files: Vec<PathBuf> = model.files.iter().map(|f| f.abs.clone()).collect();
    let mut out = Vec::new();
    for plan in &plans {
        for v in &plan.versions {
            let t = &model.types[v.ty];
            let pkg = &model.packages[t.package];
            let module = pkg.module_path();
            out.push(KindIdentity {
                group: plan.group.clone(),
                version: v.name.clone(),
                kind: plan.kind.clone(),
                plural: plan.plural.clone(),
                singular: plan.singular.clone(),
                short_names: plan.short_names.clone(),
                namespaced: plan.scope == "Namespaced",
                has_status: v.status,
                has_scale: v.scale.is_some(),
                rust_path: if module.is_empty() {
                    t.name.clone()
                } else {
                    format!("{module}::{}", t.name)
                },
                deep_copy: !(pkg.deep_copy_off || t.doc.markers.deep_copy_off),
                source_files: source_files.clone(),
            });
        }
    }
    finish(out, diags).map(|(v, _)| v)
}

/// Exactly the text `rkb manifests` writes for the CRD of `group`/`kind`.
/// Memoized per process while the sources are unchanged (the derive asks once per kind).
pub fn crd_yaml(project_root: &Path, group: &str, kind: &str) -> Result<String, Error> {
    static MEMO: Memo<std::sync::Arc<Output>> = Memo::new();
    let out = MEMO.get_or_try(project_root, || {
        generate(project_root, &Options::default()).map(std::sync::Arc::new)
    })?;
    let crds = out
        .crds
        .iter()
        .map(|c| (c.group.as_str(), c.kind.as_str(), &c.yaml));
    find_crd(crds, group, kind)
}

/// The document [`crd_yaml`] prints, as compact JSON, for code that parses the CRD at run time without a YAML
/// parser (the derive embeds it). Memoized the same way.
pub fn crd_json(project_root: &Path, group: &str, kind: &str) -> Result<String, Error> {
    static MEMO: Memo<std::sync::Arc<Vec<(String, String, String)>>> = Memo::new();
    let all = MEMO.get_or_try(project_root, || {
        crd_jsons(project_root).map(std::sync::Arc::new)
    })?;
    let crds = all
        .iter()
        .map(|(g, k, json)| (g.as_str(), k.as_str(), json));
    find_crd(crds, group, kind)
}

/// A project read, and every CRD's schemas resolved and checked (nothing generated yet).
struct Resolved {
    model: model::Model,
    plans: Vec<plan::CrdPlan>,
    /// Warnings only: an error ends [`resolve_project`] with all of them.
    diags: Vec<Diagnostic>,
    shared: shared::SharedSchemas,
    /// Each plan's schemas, one per version.
    schemas: Vec<Vec<schema::Schema>>,
}

/// Reads the project at `project_root` and resolves and checks every CRD's schemas, on one thread.
fn resolve_project(project_root: &Path) -> Result<Resolved, Error> {
    let Analysis {
        model,
        plans,
        mut diags,
    } = analyze(project_root)?;
    let uses = schema::type_uses(&model);
    let shared = shared::SharedSchemas::new();
    let Some(schemas) = resolve_and_check_all(&model, &uses, &shared, &plans, None, &mut diags)
    else {
        return Err(Error::Diagnostics(diags));
    };
    Ok(Resolved {
        model,
        plans,
        diags,
        shared,
        schemas,
    })
}

/// A released CRD the one generated now must be able to replace (`rkb manifests --check`, `--against`).
#[derive(Clone, Debug)]
pub struct Baseline {
    /// The CRD file's name, `<group>_<plural>.yaml` ([`CrdFile::file_name`]): the generated CRD it is compared with.
    pub file_name: String,
    /// Where it was read, as messages name it: `config/crd/bases/<file>` or `<git ref>:config/crd/bases/<file>`.
    pub source: String,
    /// The CustomResourceDefinition document.
    pub document: serde_json::Value,
}

/// Stage 8, compat: an error for each breaking change from a baseline to the CRD the project generates now
/// (`compat::compare`'s findings, at the Rust field or marker behind each), leaving out those a
/// `+rkb:compat:allow` acknowledges (one that names no rule fails every run, in `analyze`). A baseline whose
/// CRD the project no longer generates is not compared here: `compat::removed_crds` reports it as `crd-removed`.
/// Builds the schemas again, with their provenance: call it only for baselines that differ from the output.
pub fn compat_check(project_root: &Path, baselines: &[Baseline]) -> Result<Vec<Diagnostic>, Error> {
    let Resolved {
        model,
        plans,
        shared,
        schemas,
        ..
    } = resolve_project(project_root)?;
    let mut out = Vec::new();
    for (plan, schemas) in plans.iter().zip(schemas) {
        let Some(baseline) = baselines.iter().find(|b| b.file_name == plan.file_name()) else {
            continue;
        };
        let located = schemas.clone();
        let new = crd_document::crd_document(plan, schemas).to_json(&shared);
        let findings = compat::compare(&baseline.document, &new);
        let at = compat::diagnostics::Located {
            model: &model,
            plan,
            schemas: &located,
            baseline: &baseline.source,
        };
        out.extend(at.diagnose(&findings));
    }
    Ok(out)
}

/// (group, kind, JSON) of every CRD of the project.
fn crd_jsons(project_root: &Path) -> Result<Vec<(String, String, String)>, Error> {
    let Resolved {
        plans,
        diags,
        shared,
        schemas,
        ..
    } = resolve_project(project_root)?;
    let jsons = plans
        .iter()
        .zip(schemas)
        .map(|(plan, schemas)| {
            let doc = crd_document::crd_document(plan, schemas);
            (
                plan.group.clone(),
                plan.kind.clone(),
                doc.to_json(&shared).to_string(),
            )
        })
        .collect();
    finish(jsons, diags).map(|(v, _)| v)
}

/// The text of the CRD of `group`/`kind` among `crds` (group, kind, text), or the error listing what there is.
fn find_crd<'a>(
    crds: impl Iterator<Item = (&'a str, &'a str, &'a String)> + Clone,
    group: &str,
    kind: &str,
) -> Result<String, Error> {
    if let Some((_, _, text)) = crds.clone().find(|(g, k, _)| *g == group && *k == kind) {
        return Ok(text.clone());
    }
    let known = crds
        .map(|(g, k, _)| format!("{g}/{k}"))
        .collect::<Vec<_>>()
        .join(", ");
    Err(Error::UnknownKind {
        group: group.into(),
        kind: kind.into(),
        known,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The derive embeds `crd_json`; it must be the document `rkb manifests` writes, shared k8s sub-schemas
    /// (references in the generator) written out.
    #[test]
    fn crd_json_is_the_document_crd_yaml_prints() {
        for corpus in ["k8s-core", "k8s-workloads", "multi-version"] {
            let root = Path::new(env!("CARGO_MANIFEST_DIR"))
                .join("tests/corpus")
                .join(corpus);
            let out = generate(&root, &Options::default()).unwrap();
            assert!(!out.crds.is_empty(), "{corpus}");
            for crd in &out.crds {
                let json = crd_json(&root, &crd.group, &crd.kind).unwrap();
                let from_json: serde_json::Value = serde_json::from_str(&json).unwrap();
                let from_yaml: serde_json::Value = serde_saphyr::from_str(&crd.yaml).unwrap();
                assert_eq!(from_json, from_yaml, "{corpus}: {}/{}", crd.group, crd.kind);
            }
            let err = crd_json(&root, "no.such", "Kind").unwrap_err().to_string();
            assert!(err.contains("no.such"), "{err}");
        }
    }

    /// The split build must print exactly what the one-thread build prints, in the same order.
    #[test]
    fn crds_built_on_several_threads_match_the_one_thread_build() {
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/corpus/naming");
        let Analysis {
            model,
            plans,
            mut diags,
        } = analyze(&root).expect("the naming case loads");
        assert!(
            plans.len() >= 3 * parallel::MIN_CRDS_TO_BUILD,
            "a case with enough kinds for three threads"
        );
        let opts = Options::default();
        let uses = schema::type_uses(&model);
        let one_thread = crd_yamls(
            &model,
            &uses,
            &shared::SharedSchemas::new(),
            &plans,
            &opts,
            &mut diags,
        )
        .expect("the naming case has no errors");
        assert!(diags.is_empty(), "{diags:?}");
        // Three threads whatever this machine has, so the split and the merge really run.
        let split = parallel::with_cores(3, || {
            assert_eq!(
                parallel::threads_for(plans.len(), parallel::MIN_CRDS_TO_BUILD),
                3
            );
            let shared = shared::SharedSchemas::new();
            crd_yamls_parallel(&model, &uses, &shared, &plans, &opts)
                .expect("split, with no diagnostics")
        });
        assert_eq!(split, one_thread);
    }
}
