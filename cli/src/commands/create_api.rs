//! `rkb create api`: a kind's types, sample, roles and CRD entry, and its controller and test.

use std::path::{Path, PathBuf};

use anyhow::{Result, bail};
use serde::Serialize;

use super::api_conflicts::{self, NewApi};
use super::core_kinds;
use super::e2e_reconciled;
use super::project_data::ProjectData;
use crate::args::CreateApiArgs;
use crate::names;
use crate::project_config::{self, ApiConfig, NamedController, ProjectConfig, ResourceConfig};
use crate::scaffold::{Plan, Renderer, insert_before_marker};

/// Values of one API, for the `api/` templates.
#[derive(Debug, Serialize)]
struct ApiData {
    #[serde(flatten)]
    project: ProjectData,
    group: String,
    full_group: String,
    version: String,
    kind: String,
    lower_kind: String,
    plural: String,
    /// The plural differs from the one derived from the kind, so the types carry `+kubebuilder:resource:path`.
    custom_plural: bool,
    /// The per-kind roles' name stem: `<kind>`, or `<group>-<kind>` in multigroup projects, where a kind
    /// may exist in several groups (kubebuilder names them the same way).
    rbac_name: String,
    /// Module path below `crate::api`, e.g. `v1` or `devops::v1` (multigroup).
    api_mod: String,
    /// Module path below `crate::controller`, e.g. `demomicroservice_controller` or `devops::...`.
    controller_mod: String,
    /// The controller's name (metrics label, finalizer): `--controller-name`, else the lower-case kind.
    controller_label: String,
    /// `--controller-name` was given: the controller calls `.named(..)`.
    named: bool,
    namespaced: bool,
    /// The group as the controller's `+kubebuilder:rbac` markers write it (`core` for Kubernetes' legacy group).
    rbac_group: String,
    /// The Rust path of the kind's type: `crate::api::v1::Kind`, `k8s_openapi::api::apps::v1::Deployment`.
    kind_path: String,
    /// A kind the project does not define (core or external): its controller has no finalizer and its test
    /// creates `sample`.
    foreign: bool,
    /// JSON of an object of a foreign kind the API server accepts; none known: the test is scaffolded ignored.
    sample: Option<&'static str>,
}

pub fn run(args: &CreateApiArgs) -> Result<()> {
    let dir = &args.dir;
    let mut config = load_project(dir)?;
    let foreign = if args.resource {
        if args.external.external_api_path.is_some() {
            bail!(
                "--external-api-path names a kind defined outside this project, whose API is not scaffolded here: pass --resource=false"
            );
        }
        None
    } else {
        names::validate_version(&args.version)?;
        names::validate_kind(&args.kind)?;
        core_kinds::resolve(
            &config,
            dir,
            (&args.group, &args.version, &args.kind),
            &args.external,
            "scaffold its API with --resource=true",
        )?
    };
    let (existing, other_versions) = match &foreign {
        Some(entry) => {
            check_foreign_args(args, entry)?;
            (Some(entry.clone()), Vec::new())
        }
        None => check_args(&config, args)?,
    };
    let controller_name = controller_name(existing.as_ref(), args)?;

    let default_plural = names::default_plural(&args.kind);
    let plural = args
        .plural
        .clone()
        .unwrap_or_else(|| default_plural.clone());
    let data = api_data(
        &config,
        args,
        &plural,
        controller_name.as_deref(),
        foreign.as_ref(),
    );
    let api_mod = data.api_mod.clone();
    let group_mod = names::group_module(&args.group);

    let renderer = Renderer::new();
    let mut plan = Plan::new(dir, "pass --force to overwrite it");
    let render = |path: &str| -> Result<String> {
        let template = rkb_templates::api(path).ok_or_else(|| {
            anyhow::anyhow!("internal error: template api/{path} is not embedded")
        })?;
        renderer.render(&template, &data)
    };
    let api_dir = PathBuf::from("src/api").join(api_mod.replace("::", "/"));

    let scaffolding = Scaffolding {
        config: &config,
        args,
        data: &data,
        render: &render,
    };
    if args.resource {
        scaffolding.add_resource_files(&mut plan, &group_mod, &api_dir, &other_versions)?;
    }
    let e2e_note = if args.controller {
        scaffolding.add_controller_files(&mut plan, &group_mod)?
    } else {
        None
    };

    match foreign {
        Some(mut entry) => {
            if let Some(spec) = &args.external.external_api_crate {
                core_kinds::add_crate_dependency(&mut plan, spec)?;
            }
            add_controller_record(&mut entry, controller_name.as_deref());
            config.upsert(entry);
        }
        None => record_resource(
            &mut config,
            args,
            &api_mod,
            (&plural, &default_plural),
            existing.as_ref(),
            controller_name.as_deref(),
        ),
    }
    plan.update(project_config::FILE_NAME, config.render()?)?;
    plan.finish()?;

    if let Some(note) = e2e_note {
        eprintln!("{note}");
    }
    print_next_steps(args, &data, &api_dir);
    Ok(())
}

/// The PROJECT file of the project in `dir`.
fn load_project(dir: &Path) -> Result<ProjectConfig> {
    if !dir.join(project_config::FILE_NAME).exists() {
        bail!(
            "{} is not an rkb project (no PROJECT file): run `rkb init --domain my.domain` first, or pass --dir <project>",
            dir.display()
        );
    }
    ProjectConfig::load(dir)
}

fn print_next_steps(args: &CreateApiArgs, data: &ApiData, api_dir: &Path) {
    if !args.resource {
        println!(
            "Scaffolded the {} controller of {} in {}",
            data.controller_label,
            data.kind_path,
            args.dir.display()
        );
        println!(
            "Next: write its reconcile in src/controller/{}.rs, then run `rkb manifests` (or `make manifests`)",
            data.controller_mod.replace("::", "/")
        );
        return;
    }
    println!(
        "Scaffolded {}/{} {} in {}",
        data.full_group,
        args.version,
        args.kind,
        args.dir.display()
    );
    println!(
        "Next: edit {}/{}_types.rs, then run `rkb manifests` (or `make manifests`)",
        api_dir.display(),
        data.lower_kind
    );
}

/// The template values of one `create api` run; `foreign` is the PROJECT entry of a kind the project does not
/// define (its controller is scaffolded from k8s-openapi's or another crate's type).
fn api_data(
    config: &ProjectConfig,
    args: &CreateApiArgs,
    plural: &str,
    controller_name: Option<&str>,
    foreign: Option<&ResourceConfig>,
) -> ApiData {
    let group_mod = names::group_module(&args.group);
    let api_mod = if config.multigroup {
        format!("{group_mod}::{}", args.version)
    } else {
        args.version.clone()
    };
    let lower = args.kind.to_lowercase();
    let controller_label = controller_name.map_or_else(|| lower.clone(), str::to_string);
    let module = format!("{}_controller", controller_label.replace('-', "_"));
    let facts = foreign.map(core_kinds::foreign_kind);
    let full_group = match foreign {
        Some(entry) => entry.full_group(),
        None => names::full_group(&args.group, &config.domain),
    };
    ApiData {
        project: ProjectData::load(config, &args.dir),
        group: args.group.clone(),
        rbac_group: facts
            .as_ref()
            .map_or_else(|| full_group.clone(), |f| f.rbac_group.clone()),
        full_group,
        version: args.version.clone(),
        kind: args.kind.clone(),
        lower_kind: lower.clone(),
        plural: facts
            .as_ref()
            .map_or_else(|| plural.to_string(), |f| f.plural.clone()),
        custom_plural: plural != names::default_plural(&args.kind),
        rbac_name: if config.multigroup {
            format!("{}-{lower}", args.group)
        } else {
            lower.clone()
        },
        kind_path: facts.as_ref().map_or_else(
            || format!("crate::api::{api_mod}::{}", args.kind),
            |f| f.type_path.clone(),
        ),
        api_mod,
        controller_mod: if config.multigroup {
            format!("{group_mod}::{module}")
        } else {
            module
        },
        controller_label,
        named: controller_name.is_some(),
        namespaced: facts.as_ref().map_or(args.namespaced, |f| f.namespaced),
        foreign: foreign.is_some(),
        sample: facts.and_then(|f| f.sample),
    }
}

/// What one `create api` run scaffolds from.
struct Scaffolding<'a> {
    config: &'a ProjectConfig,
    args: &'a CreateApiArgs,
    data: &'a ApiData,
    render: &'a dyn Fn(&str) -> Result<String>,
}

impl Scaffolding<'_> {
    /// The kind's types (and version module), sample, CRD entry, and the per-kind roles (first version only);
    /// a further version marks the existing one as the storage version.
    fn add_resource_files(
        &self,
        plan: &mut Plan,
        group_mod: &str,
        api_dir: &Path,
        other_versions: &[ResourceConfig],
    ) -> Result<()> {
        let (config, args, render) = (self.config, self.args, self.render);
        let lower = &self.data.lower_kind;
        let (full_group, plural) = (&self.data.full_group, &self.data.plural);
        add_api_modules(plan, config, group_mod, &args.version, &render)?;
        plan.create(
            api_dir.join(format!("{lower}_types.rs")),
            render("resource/types.rs")?,
            args.force,
        )?;
        insert(
            plan,
            &api_dir.join("mod.rs"),
            "rkb:scaffold:types",
            &[
                format!("pub mod {lower}_types;"),
                format!("pub use {lower}_types::*;"),
            ],
        )?;
        let sample = format!("{}_{}_{lower}.yaml", args.group, args.version);
        plan.create(
            format!("config/samples/{sample}"),
            render("resource/config/samples/sample.yaml")?,
            args.force,
        )?;
        insert(
            plan,
            Path::new("config/samples/kustomization.yaml"),
            "+kubebuilder:scaffold:manifestskustomizesamples",
            &[format!("- {sample}")],
        )?;
        insert(
            plan,
            Path::new("config/crd/kustomization.yaml"),
            "+kubebuilder:scaffold:crdkustomizeresource",
            &[format!("- bases/{full_group}_{plural}.yaml")],
        )?;
        // Roles are per kind, not per version: the first version of a kind writes them.
        if other_versions.is_empty() {
            let mut listed = Vec::new();
            for role in ["admin", "editor", "viewer"] {
                let file = if config.multigroup {
                    format!("{}_{lower}_{role}_role.yaml", args.group)
                } else {
                    format!("{lower}_{role}_role.yaml")
                };
                plan.create(
                    format!("config/rbac/{file}"),
                    render(&format!("resource/config/rbac/{role}_role.yaml"))?,
                    args.force,
                )?;
                listed.push(format!("- {file}"));
            }
            insert(
                plan,
                Path::new("config/rbac/kustomization.yaml"),
                "+kubebuilder:scaffold:rbacroles",
                &listed,
            )?;
        } else {
            mark_storage_version(plan, config, other_versions, &args.kind)?;
        }
        Ok(())
    }

    /// The controller module, its registration in main.rs, its envtest test, and (for a kind of the project) the
    /// kind's entry in the e2e test's reconciled kinds. Returns a note when the e2e test has no list to add it to.
    fn add_controller_files(&self, plan: &mut Plan, group_mod: &str) -> Result<Option<String>> {
        let (config, args, data, render) = (self.config, self.args, self.data, self.render);
        let controller_dir = if config.multigroup {
            PathBuf::from("src/controller").join(group_mod)
        } else {
            PathBuf::from("src/controller")
        };
        if config.multigroup {
            add_module(
                plan,
                Path::new("src/controller/mod.rs"),
                "rkb:scaffold:controller-modules",
                group_mod,
            )?;
        }
        let module = data
            .controller_mod
            .rsplit("::")
            .next()
            .unwrap_or_default()
            .to_string();
        // A kind this project does not define gets a controller without a finalizer (it would hold up the deletion
        // of every Deployment or Pod in the cluster), and a test that creates a sample of it.
        let (source, test_source) = if data.foreign {
            (
                "controller/foreign_controller.rs",
                "controller/tests/foreign_controller.rs",
            )
        } else {
            ("controller/controller.rs", "controller/tests/controller.rs")
        };
        plan.create(
            controller_dir.join(format!("{module}.rs")),
            render(source)?,
            args.force,
        )?;
        insert(
            plan,
            &controller_dir.join("mod.rs"),
            "rkb:scaffold:controller-modules",
            &[format!("pub mod {module};")],
        )?;
        insert(
            plan,
            Path::new("src/main.rs"),
            "rkb:scaffold:controllers",
            &[format!(
                "mgr.add({}::controller::{}::controller);",
                data.project.crate_ident, data.controller_mod
            )],
        )?;
        let test = if config.multigroup {
            format!("{group_mod}_{module}.rs")
        } else {
            format!("{module}.rs")
        };
        plan.create(
            Path::new("tests").join(test),
            render(test_source)?,
            args.force,
        )?;
        if data.foreign {
            return Ok(None);
        }
        e2e_reconciled::add(plan, &data.full_group, &args.kind)
    }
}

/// Every refusal of `create api` (names, layout, existing kinds and controllers), before anything is planned.
/// Returns the API as PROJECT has it (when re-scaffolded with --force) and the kind's other versions.
fn check_args(
    config: &ProjectConfig,
    args: &CreateApiArgs,
) -> Result<(Option<ResourceConfig>, Vec<ResourceConfig>)> {
    names::validate_group(&args.group, &config.domain)?;
    names::validate_version(&args.version)?;
    names::validate_kind(&args.kind)?;
    if let Some(plural) = &args.plural {
        names::validate_plural(plural)?;
    }
    if !args.resource && !args.controller {
        bail!("nothing to scaffold: --resource=false and --controller=false; drop one of them");
    }
    check_group_layout(config, &args.group)?;
    if config.multigroup {
        names::validate_group_module(&args.group)?;
        check_group_module_is_free(config, &args.group)?;
    }
    check_kind_fits_beside_others(config, &args.group, &args.version, &args.kind)?;
    let new = NewApi {
        group: &args.group,
        version: &args.version,
        kind: &args.kind,
        plural: &args
            .plural
            .clone()
            .unwrap_or_else(|| names::default_plural(&args.kind)),
        plural_given: args.plural.is_some(),
        namespaced: args.namespaced,
    };
    api_conflicts::check(config, &new)?;
    if args.resource {
        api_conflicts::check_sources(&args.dir, config, &new)?;
    }
    let existing = config.find(&args.group, &args.version, &args.kind).cloned();
    // A controller added to a kind whose API exists (`--resource=false`) rewrites none of the API's files;
    // `controller_name` refuses a second unnamed one.
    let adds_controller = !args.resource && args.controller;
    if existing.is_some() && !args.force && !adds_controller {
        bail!(
            "the API {}/{} {} already exists in PROJECT; pass --force to scaffold its files again",
            args.group,
            args.version,
            args.kind
        );
    }
    let other_versions: Vec<ResourceConfig> = config
        .resources
        .iter()
        .filter(|r| r.group == args.group && r.kind == args.kind && r.version != args.version)
        .cloned()
        .collect();
    if args.controller
        && args.controller_name.is_none()
        && let Some(r) = other_versions.iter().find(|r| r.has_controller())
    {
        bail!(
            "kind {} already has a controller (scaffolded with version {}); one controller serves every version: pass --controller=false",
            args.kind,
            r.version
        );
    }
    let has_type = args.resource || existing.as_ref().is_some_and(|r| r.api.is_some());
    if !has_type {
        bail!(
            "kind {} {}/{} is not in PROJECT, and a controller needs its kind's Rust type: scaffold the API too (--resource=true)",
            args.kind,
            args.group,
            args.version
        );
    }

    Ok((existing, other_versions))
}

/// kubebuilder's single-group layout holds one group; more need `--multigroup` at init.
fn check_group_layout(config: &ProjectConfig, group: &str) -> Result<()> {
    if config.multigroup {
        return Ok(());
    }
    // Controllers of Kubernetes' or other crates' kinds are not APIs of a group of this project.
    if let Some(other) = config
        .resources
        .iter()
        .find(|r| r.group != group && !r.core && !r.external)
    {
        bail!(
            "this project's APIs are in group {:?}; a second group ({group:?}) needs a multigroup project (src/api/<group>/<version>/): run `rkb edit --multigroup` first (it moves the {:?} APIs under src/api/{}/)",
            other.group,
            other.group,
            names::group_module(&other.group)
        );
    }
    Ok(())
}

/// Two groups whose names differ only in '-' or '.' would share one Rust module.
fn check_group_module_is_free(config: &ProjectConfig, group: &str) -> Result<()> {
    let module = names::group_module(group);
    if let Some(other) = config.resources.iter().find(|r| {
        r.group != group && !r.core && !r.external && names::group_module(&r.group) == module
    }) {
        bail!(
            "invalid --group {group:?}: its Rust module src/api/{module}/ already holds group {:?}; choose a group that differs from it in more than '-' and '.'",
            other.group
        );
    }
    Ok(())
}

/// Kinds of one group share src/controller/ and tests/ (file names from the lower-case kind), and kinds of
/// one version share a module (their types and the derive's are re-exported side by side).
fn check_kind_fits_beside_others(
    config: &ProjectConfig,
    group: &str,
    version: &str,
    kind: &str,
) -> Result<()> {
    let ours = names::type_names_of(kind);
    for other in config
        .resources
        .iter()
        .filter(|r| r.group == group && r.kind != kind)
    {
        if other.kind.eq_ignore_ascii_case(kind) {
            bail!(
                "invalid --kind {kind:?}: group {group:?} already has kind {}, and both would be scaffolded as {}_*.rs; choose a name that differs in more than letter case",
                other.kind,
                kind.to_lowercase()
            );
        }
        if other.version != version {
            continue;
        }
        let theirs = names::type_names_of(&other.kind);
        if let Some(clash) = ours.iter().find(|name| theirs.contains(name)) {
            bail!(
                "invalid --kind {kind:?}: kind {} of {group}/{version} already defines a type named {clash} (<Kind>, <Kind>Spec, <Kind>Status, <Kind>Client, <Kind>Lister, <Kind>Informer); choose another name",
                other.kind
            );
        }
    }
    Ok(())
}

pub(super) fn insert(plan: &mut Plan, rel: &Path, marker: &str, lines: &[String]) -> Result<()> {
    let text = plan.read(rel)?;
    let updated = insert_before_marker(&rel.display().to_string(), &text, marker, lines)?;
    plan.update(rel, updated)
}

/// Declares `module` in the mod.rs at `parent`, creating `<dir>/<module>/mod.rs` with its own scaffold marker.
pub(super) fn add_module(plan: &mut Plan, parent: &Path, marker: &str, module: &str) -> Result<()> {
    insert(plan, parent, marker, &[format!("pub mod {module};")])?;
    let child = parent
        .parent()
        .unwrap_or(Path::new(""))
        .join(module)
        .join("mod.rs");
    if !plan.is_planned(&child) && !plan.root().join(&child).exists() {
        plan.create(
            child,
            format!("//! The {module} modules.\n\n// {marker}\n"),
            false,
        )?;
    }
    Ok(())
}

/// Makes sure `src/api/[<group>/]<version>/mod.rs` exists and is declared by its parent module.
fn add_api_modules(
    plan: &mut Plan,
    config: &ProjectConfig,
    group: &str,
    version: &str,
    render: &dyn Fn(&str) -> Result<String>,
) -> Result<()> {
    let marker = "rkb:scaffold:api-modules";
    let (parent, dir) = if config.multigroup {
        add_module(plan, Path::new("src/api/mod.rs"), marker, group)?;
        (
            PathBuf::from("src/api").join(group).join("mod.rs"),
            PathBuf::from("src/api").join(group).join(version),
        )
    } else {
        (
            PathBuf::from("src/api/mod.rs"),
            PathBuf::from("src/api").join(version),
        )
    };
    insert(plan, &parent, marker, &[format!("pub mod {version};")])?;
    let module = dir.join("mod.rs");
    if !plan.is_planned(&module) && !plan.root().join(&module).exists() {
        plan.create(module, render("version/mod.rs")?, false)?;
    }
    Ok(())
}

/// A kind served in several versions must store exactly one. When a second version arrives, the version that
/// already holds the data stays the storage version: mark it, unless some version is marked already.
fn mark_storage_version(
    plan: &mut Plan,
    config: &ProjectConfig,
    others: &[ResourceConfig],
    kind: &str,
) -> Result<()> {
    // These files are rkb's own scaffolds: their marker lines are found as text, as kubebuilder's scaffold
    // edits find theirs, not through rkb-manifests' model (which would need the whole project to be valid).
    let marker = "+kubebuilder:storageversion";
    let files: Vec<PathBuf> = others
        .iter()
        .filter(|r| r.api.is_some())
        .map(|r| {
            let module = if config.multigroup {
                format!("{}/{}", names::group_module(&r.group), r.version)
            } else {
                r.version.clone()
            };
            PathBuf::from("src/api")
                .join(module)
                .join(format!("{}_types.rs", kind.to_lowercase()))
        })
        .collect();
    let mut texts = Vec::new();
    for file in &files {
        let text = plan.read(file)?;
        if text.contains(marker) {
            return Ok(());
        }
        texts.push(text);
    }
    let (Some(file), Some(text)) = (files.first(), texts.first()) else {
        return Ok(());
    };
    let lines: Vec<&str> = text.lines().collect();
    let Some(decl) = lines
        .iter()
        .position(|l| l.trim_start().starts_with(&format!("pub struct {kind} ")))
    else {
        bail!(
            "cannot find `pub struct {kind}` in {} to mark it +kubebuilder:storageversion; add the marker to one version by hand",
            file.display()
        );
    };
    let at = storage_marker_line(&lines, decl);
    let decl_line = lines[decl];
    let indent = &decl_line[..decl_line.len() - decl_line.trim_start().len()];
    let mut out: Vec<String> = lines.iter().map(|l| l.to_string()).collect();
    out.insert(at, format!("{indent}/// {marker}"));
    plan.update(file.clone(), out.join("\n") + "\n")
}

/// Where the storage marker goes among the doc lines and attributes right above the kind's `pub struct` (line
/// `decl`): after its root marker, else after its last doc line (a struct with a flattened TypeMeta and
/// `metadata: ObjectMeta` is a kind without the root marker, as in controller-gen), else above its attributes.
/// Only that block is searched: a root marker further up belongs to another type.
fn storage_marker_line(lines: &[&str], decl: usize) -> usize {
    let item_start = (0..decl)
        .rev()
        .take_while(|&n| {
            let line = lines[n].trim_start();
            line.starts_with("///") || line.starts_with("#[")
        })
        .last()
        .unwrap_or(decl);
    let item = &lines[item_start..decl];
    let after = |found: Option<usize>| found.map(|n| item_start + n + 1);
    after(
        item.iter()
            .position(|l| l.contains("+kubebuilder:object:root=true")),
    )
    .or_else(|| after(item.iter().rposition(|l| l.trim_start().starts_with("///"))))
    .unwrap_or(item_start)
}

fn record_resource(
    config: &mut ProjectConfig,
    args: &CreateApiArgs,
    api_mod: &str,
    (plural, default_plural): (&str, &str),
    existing: Option<&ResourceConfig>,
    controller_name: Option<&str>,
) {
    // A further controller (`--resource=false`) of a kind with an API keeps what PROJECT says of that API: the flags'
    // defaults describe no API, and would lose a custom plural or a cluster scope.
    let kept_api = existing.filter(|r| !args.resource && r.api.is_some());
    let mut resource = ResourceConfig {
        api: match kept_api {
            Some(r) => r.api.clone(),
            None => args.resource.then(|| ApiConfig {
                crd_version: "v1".to_string(),
                namespaced: args.namespaced,
            }),
        },
        controller: existing.is_some_and(|r| r.controller),
        controllers: existing.and_then(|r| r.controllers.clone()),
        core: false,
        domain: config.domain.clone(),
        external: false,
        group: args.group.clone(),
        kind: args.kind.clone(),
        module: None,
        path: Some(format!("{}::api::{api_mod}", config.repo)),
        plural: match kept_api {
            Some(r) => r.plural.clone(),
            None => (plural != default_plural).then(|| plural.to_string()),
        },
        version: args.version.clone(),
        webhooks: existing.and_then(|r| r.webhooks.clone()),
    };
    if args.controller {
        add_controller_record(&mut resource, controller_name);
    }
    config.upsert(resource);
}

/// Records a new controller of `resource` as kubebuilder does: `controller: true` for the kind's one unnamed
/// controller; once one is named, every controller by name in `controllers` (the unnamed one as the lower-case kind).
fn add_controller_record(resource: &mut ResourceConfig, name: Option<&str>) {
    let Some(name) = name else {
        if resource.controllers.is_none() {
            resource.controller = true;
        }
        return;
    };
    let mut named = resource.controllers.take().unwrap_or_default();
    if std::mem::take(&mut resource.controller) {
        named.push(NamedController {
            name: resource.kind.to_lowercase(),
        });
    }
    if !named.iter().any(|c| c.name == name) {
        named.push(NamedController {
            name: name.to_string(),
        });
    }
    resource.controllers = Some(named);
}

/// `--controller-name`, checked against the kind's controllers; `None` for the kind's unnamed controller.
fn controller_name(
    existing: Option<&ResourceConfig>,
    args: &CreateApiArgs,
) -> Result<Option<String>> {
    let names = existing
        .map(ResourceConfig::controller_names)
        .unwrap_or_default();
    let Some(name) = &args.controller_name else {
        if args.controller && !args.resource && existing.is_some_and(|r| r.has_controller()) {
            bail!(
                "kind {} {}/{} already has a controller ({}); pass --controller-name <name> for another one",
                args.kind,
                args.group,
                args.version,
                names.join(", ")
            );
        }
        return Ok(None);
    };
    if !args.controller {
        bail!("--controller-name names a controller to scaffold: drop --controller=false");
    }
    if !names::is_dns1035_label(name) {
        bail!(
            "invalid --controller-name {name:?}: a controller name is a DNS-1035 label (lower-case letters, digits and '-', starting with a letter, at most 63 characters), e.g. --controller-name {}-backup",
            args.kind.to_lowercase()
        );
    }
    if names.contains(name) {
        bail!(
            "kind {} {}/{} already has a controller named {name:?}; choose another --controller-name",
            args.kind,
            args.group,
            args.version
        );
    }
    Ok(Some(name.clone()))
}

/// The refusals of `create api --resource=false` for a kind this project does not define.
fn check_foreign_args(args: &CreateApiArgs, entry: &ResourceConfig) -> Result<()> {
    if !args.controller {
        bail!(
            "nothing to scaffold: kind {} is not defined in this project (--resource=false) and --controller=false",
            entry.kind
        );
    }
    if args.plural.is_some() {
        bail!(
            "--plural names the resource of an API scaffolded here; kind {} is not defined in this project: drop --plural",
            entry.kind
        );
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn placed(text: &str) -> usize {
        let lines: Vec<&str> = text.lines().collect();
        let decl = lines
            .iter()
            .position(|l| l.starts_with("pub struct Foo "))
            .unwrap();
        storage_marker_line(&lines, decl)
    }

    #[test]
    fn the_storage_marker_joins_the_kinds_own_markers() {
        let scaffolded = "/// Foo is a kind.\n/// +kubebuilder:object:root=true\n/// +kubebuilder:subresource:status\n#[derive(Kind)]\npub struct Foo {\n";
        assert_eq!(placed(scaffolded), 2);
        let without_root = "/// Foo is a kind.\n/// +kubebuilder:subresource:status\n#[derive(Kind)]\npub struct Foo {\n";
        assert_eq!(placed(without_root), 2);
        // The root marker of the type above is not Foo's.
        let undocumented = "/// +kubebuilder:object:root=true\npub struct Bar {}\n\n#[derive(Kind)]\npub struct Foo {\n";
        assert_eq!(placed(undocumented), 3);
    }
}
