//! `rkb create webhook`: a kind's admission webhooks (defaulting, validation) and their envtest test, registered in
//! main.rs and recorded in PROJECT; the first webhook of a project also adds the kustomize pieces kubebuilder's do
//! (config/webhook, config/certmanager, the manager patch, CA injection, the network policy), enabled in
//! config/default. A kind that has webhooks gets the types it lacks added to its existing files (webhook_files.rs);
//! `--force` scaffolds them again from scratch.

use std::path::{Path, PathBuf};

use anyhow::{Result, bail};
use serde::Serialize;

use super::core_kinds;
use super::project_data::ProjectData;
use super::webhook_files::{self, Additions, Builder, Pieces, SpokeValues};
use crate::args::CreateWebhookArgs;
use crate::names;
use crate::project_config::{self, ProjectConfig, ResourceConfig, WebhooksConfig};
use crate::scaffold::{Plan, Renderer, insert_before_marker};

/// Values of one kind's webhooks, for the `webhook/` templates.
#[derive(Debug, Serialize)]
struct WebhookData {
    #[serde(flatten)]
    project: ProjectData,
    full_group: String,
    /// The full group with dots as dashes, as webhook paths spell it.
    group_path: String,
    version: String,
    kind: String,
    lower_kind: String,
    plural: String,
    /// Module path below `crate::api`.
    api_mod: String,
    /// Module path below `crate::webhook`, e.g. `v1::cronjob_webhook`.
    webhook_mod: String,
    /// Where the API server calls the defaulting and validating webhooks (`--defaulting-path`, or kubebuilder's).
    defaulting_path: String,
    validation_path: String,
    /// Whether those are custom: then webhooks() serves them at that path (`defaulter_at`, `validator_at`).
    #[serde(skip)]
    custom_paths: (bool, bool),
    defaulting: bool,
    validation: bool,
    /// Defaulting or validation: the test installs config/webhook/manifests.yaml.
    admission: bool,
    conversion: bool,
    /// This or another version of the kind is a conversion hub: the test turns conversion on, or the API server
    /// could not serve this version.
    kind_converted: bool,
    /// The versions converted to and from this one.
    spokes: Vec<SpokeData>,
    /// `<plural>.<full group>`.
    crd_name: String,
    namespaced: bool,
    /// The Rust path of the kind's type.
    kind_path: String,
    /// A kind of Kubernetes or of another crate: its own templates (no CRD, a sample object in the test).
    foreign: bool,
    /// A foreign kind's object the API server accepts (JSON); none known: the test is scaffolded ignored.
    sample: Option<&'static str>,
}

/// One spoke version of a conversion.
#[derive(Debug, Clone, Serialize)]
struct SpokeData {
    version: String,
    /// Module path below `crate::api`.
    api_mod: String,
}

pub fn run(args: &CreateWebhookArgs) -> Result<()> {
    let dir = &args.dir;
    if !dir.join(project_config::FILE_NAME).exists() {
        bail!(
            "{} is not an rkb project (no PROJECT file): run `rkb init --domain my.domain` first, or pass --dir <project>",
            dir.display()
        );
    }
    let mut config = ProjectConfig::load(dir)?;
    names::validate_group(&args.group, &config.domain)?;
    names::validate_version(&args.version)?;
    names::validate_kind(&args.kind)?;
    if !args.defaulting && !args.programmatic_validation && !args.conversion {
        bail!(
            "nothing to scaffold: pass --defaulting, --programmatic-validation and/or --conversion --spoke <version>"
        );
    }
    let resource = find_kind(&config, args)?;
    let before = resource.webhooks.clone().unwrap_or_default();
    let wanted = wanted_webhooks(&config, args, &before)?;
    if !args.force {
        refuse_what_exists(args, &before)?;
    }
    let data = webhook_data(&config, dir, &resource, &wanted);
    let renderer = Renderer::new();
    let render =
        |path: &str| -> Result<String> { renderer.render(&project_file_template(path)?, &data) };
    let mut plan = Plan::new(dir, "pass --force to overwrite it");
    let pieces = KindPieces {
        data: &data,
        renderer: &renderer,
    };
    let before_converted = kind_converted(&config, &resource, &before);
    add_kind_files(&mut plan, &pieces, &before, before_converted, args.force)?;
    if data.kind_converted && !before_converted {
        enable_conversion_in_other_tests(&mut plan, &config, &resource, &pieces)?;
    }
    let first_webhook = !config.resources.iter().any(|r| r.webhooks.is_some());
    if first_webhook {
        add_project_files(&mut plan, &render)?;
    }
    if wanted.conversion {
        add_conversion_files(&mut plan, &data, &renderer, args.force)?;
        list_crd_in_webhook_certs(&mut plan, &data)?;
        register_storage_migration(&mut plan, &data)?;
    }
    if data.admission {
        // A project whose first webhook was a conversion lists no configurations yet.
        ensure_line_after(
            &mut plan,
            Path::new("config/webhook/kustomization.yaml"),
            "resources:",
            "- manifests.yaml",
        )?;
    }
    enable_in_config_default(&mut plan, &data)?;
    let readme_note = describe_webhooks_in_readme(&mut plan)?;

    if let Some(spec) = &args.external.external_api_crate {
        core_kinds::add_crate_dependency(&mut plan, spec)?;
    }
    config.upsert(ResourceConfig {
        webhooks: Some(wanted.clone()),
        ..resource
    });
    plan.update(project_config::FILE_NAME, config.render()?)?;
    plan.finish()?;
    if let Some(note) = readme_note {
        eprintln!("{note}");
    }
    println!(
        "Scaffolded the {} webhooks of {}/{} {} in {}",
        describe(&wanted),
        // Kubernetes' legacy group is "", kubebuilder's `core`.
        if data.full_group.is_empty() {
            "core"
        } else {
            &data.full_group
        },
        args.version,
        args.kind,
        dir.display()
    );
    println!(
        "Next: write the webhook logic in src/webhook/{}.rs, run `rkb manifests` (or `make manifests`), then `make test`",
        data.webhook_mod.replace("::", "/")
    );
    Ok(())
}

/// The kind's webhooks after this run: what it had and what the flags add, paths checked.
fn wanted_webhooks(
    config: &ProjectConfig,
    args: &CreateWebhookArgs,
    before: &WebhooksConfig,
) -> Result<WebhooksConfig> {
    Ok(WebhooksConfig {
        conversion: args.conversion || before.conversion,
        defaulting: args.defaulting || before.defaulting,
        defaulting_path: webhook_path(args.defaulting, "defaulting", &args.defaulting_path)?
            .or_else(|| before.defaulting_path.clone()),
        spoke: spokes(config, args, before)?,
        validation: args.programmatic_validation || before.validation,
        validation_path: webhook_path(
            args.programmatic_validation,
            "validation",
            &args.validation_path,
        )?
        .or_else(|| before.validation_path.clone()),
        webhook_version: "v1".into(),
    })
}

/// The kind in PROJECT, with its API: webhooks need the kind's Rust type. Or a kind of Kubernetes or of another
/// crate (core_kinds.rs), whose entry is added to PROJECT when it is not there.
fn find_kind(config: &ProjectConfig, args: &CreateWebhookArgs) -> Result<ResourceConfig> {
    let own_kind_hint = format!(
        "scaffold it first with `rkb create api --group {} --version {} --kind {}`",
        args.group, args.version, args.kind
    );
    let coordinates = (
        args.group.as_str(),
        args.version.as_str(),
        args.kind.as_str(),
    );
    if let Some(foreign) = core_kinds::resolve(
        config,
        &args.dir,
        coordinates,
        &args.external,
        &own_kind_hint,
    )? {
        if args.conversion {
            bail!(
                "--conversion converts between versions of a CRD this project defines; {} {}/{} is not defined here",
                args.kind,
                args.group,
                args.version
            );
        }
        return Ok(foreign);
    }
    match config.find(&args.group, &args.version, &args.kind) {
        Some(r) if r.api.is_some() => Ok(r.clone()),
        Some(_) => bail!(
            "{} {}/{} has no API in this project (it was scaffolded with --resource=false); webhooks need its Rust type",
            args.kind,
            args.group,
            args.version
        ),
        None => bail!(
            "no kind {} in {}/{} in PROJECT: scaffold it first with `rkb create api --group {} --version {} --kind {}`",
            args.kind,
            args.group,
            args.version,
            args.group,
            args.version,
            args.kind
        ),
    }
}

fn describe(w: &WebhooksConfig) -> String {
    let kinds: Vec<&str> = [
        (w.defaulting, "defaulting"),
        (w.validation, "validating"),
        (w.conversion, "conversion"),
    ]
    .into_iter()
    .filter_map(|(on, name)| on.then_some(name))
    .collect();
    match kinds.split_last() {
        Some((last, [])) => last.to_string(),
        Some((last, rest)) => format!("{} and {last}", rest.join(", ")),
        None => String::new(),
    }
}

/// The spokes of a conversion: versions of the kind in PROJECT with their API, other than the hub.
fn spokes(
    config: &ProjectConfig,
    args: &CreateWebhookArgs,
    before: &WebhooksConfig,
) -> Result<Vec<String>> {
    if args.conversion && args.spoke.is_empty() {
        bail!(
            "--conversion needs --spoke <version>[,<version>]: the versions of {} converted to and from {}, the hub",
            args.kind,
            args.version
        );
    }
    if !args.conversion && !args.spoke.is_empty() {
        bail!("--spoke names the versions of a conversion: pass --conversion too");
    }
    let mut spokes = before.spoke.clone();
    for spoke in &args.spoke {
        if spoke == &args.version {
            bail!(
                "--spoke {spoke} is the hub itself: the spokes are the other versions of {}",
                args.kind
            );
        }
        if config
            .find(&args.group, spoke, &args.kind)
            .is_none_or(|r| r.api.is_none())
        {
            bail!(
                "--spoke {spoke} is not a version of {} in PROJECT: scaffold it with `rkb create api --group {} --version {spoke} --kind {} --controller=false`",
                args.kind,
                args.group,
                args.kind
            );
        }
        if !spokes.contains(spoke) {
            spokes.push(spoke.clone());
        }
    }
    Ok(spokes)
}

fn webhook_data(
    config: &ProjectConfig,
    dir: &Path,
    resource: &ResourceConfig,
    wanted: &WebhooksConfig,
) -> WebhookData {
    let (defaulting, validation) = (wanted.defaulting, wanted.validation);
    let full_group = resource.full_group();
    let foreign = (resource.core || resource.external).then(|| core_kinds::foreign_kind(resource));
    let group_mod = names::group_module(&resource.group);
    let lower = resource.kind.to_lowercase();
    let api_mod_of = |version: &str| {
        if config.multigroup {
            format!("{group_mod}::{version}")
        } else {
            version.to_string()
        }
    };
    let plural = foreign
        .as_ref()
        .map_or_else(|| resource.plural(), |f| f.plural.clone());
    let group_path = full_group.replace('.', "-");
    let path = |custom: &Option<String>, prefix: &str| {
        custom
            .clone()
            .unwrap_or_else(|| format!("/{prefix}-{group_path}-{}-{lower}", resource.version))
    };
    let (defaulting_path, validation_path) = (
        path(&wanted.defaulting_path, "mutate"),
        path(&wanted.validation_path, "validate"),
    );
    WebhookData {
        project: ProjectData::load(config, dir),
        group_path,
        full_group,
        version: resource.version.clone(),
        kind: resource.kind.clone(),
        lower_kind: lower.clone(),
        crd_name: format!("{plural}.{}", resource.full_group()),
        plural,
        api_mod: api_mod_of(&resource.version),
        webhook_mod: webhook_module(config, resource),
        defaulting_path,
        validation_path,
        custom_paths: (
            wanted.defaulting_path.is_some(),
            wanted.validation_path.is_some(),
        ),
        kind_path: foreign.as_ref().map_or_else(
            || {
                format!(
                    "crate::api::{}::{}",
                    api_mod_of(&resource.version),
                    resource.kind
                )
            },
            |f| f.type_path.clone(),
        ),
        defaulting,
        validation,
        admission: defaulting || validation,
        conversion: wanted.conversion,
        kind_converted: kind_converted(config, resource, wanted),
        spokes: wanted
            .spoke
            .iter()
            .map(|version| SpokeData {
                version: version.clone(),
                api_mod: api_mod_of(version),
            })
            .collect(),
        namespaced: foreign.as_ref().map_or_else(
            || resource.api.as_ref().is_some_and(|a| a.namespaced),
            |f| f.namespaced,
        ),
        sample: foreign.as_ref().and_then(|f| f.sample),
        foreign: foreign.is_some(),
    }
}

/// src/webhook/[<group>/]<version>/<kind>_webhook.rs with its modules, its entry in `webhook::webhooks()` (which
/// main.rs serves), and the test. Each file that exists gets what `before` lacks added (webhook_files.rs); a
/// missing one, or any with `--force`, is written whole.
fn add_kind_files(
    plan: &mut Plan,
    pieces: &KindPieces,
    before: &WebhooksConfig,
    before_converted: bool,
    force: bool,
) -> Result<()> {
    let data = pieces.data;
    let module_path: Vec<&str> = data.webhook_mod.split("::").collect();
    let (file_module, parents) = module_path.split_last().expect("a module path");
    ensure_line_after(
        plan,
        Path::new("src/lib.rs"),
        "pub mod controller;",
        "pub mod webhook;",
    )?;
    let mut dir = PathBuf::from("src/webhook");
    for module in parents {
        declare_module(plan, &dir.join("mod.rs"), module)?;
        dir = dir.join(module);
    }
    declare_module(plan, &dir.join("mod.rs"), file_module)?;
    let everything = Additions {
        defaulting: data.defaulting,
        validation: data.validation,
        admission: data.admission,
        conversion: data.kind_converted,
        spokes: (0..data.spokes.len()).collect(),
    };
    let new_spokes: Vec<usize> = (data.spokes.iter().enumerate())
        .filter(|(_, spoke)| !before.spoke.contains(&spoke.version))
        .map(|(at, _)| at)
        .collect();
    let missing = Additions {
        defaulting: data.defaulting && !before.defaulting,
        validation: data.validation && !before.validation,
        admission: data.admission && !(before.defaulting || before.validation),
        conversion: data.kind_converted && !before_converted,
        spokes: new_spokes,
    };
    let source = dir.join(format!("{file_module}.rs"));
    // Named by the module's path below src/webhook/, as kubebuilder's test sits in internal/webhook/<version>/:
    // each version of a kind gets its own test (tests/v1_cronjob_webhook.rs, tests/v2_cronjob_webhook.rs).
    let test = Path::new("tests").join(format!("{}.rs", module_path.join("_")));
    // A foreign kind's test installs config/webhook/manifests.yaml from the start and has no conversion: there is
    // nothing to add to it later.
    let (test_base, add_test): (&str, AddFn) = if data.foreign {
        ("tests/foreign_webhook.rs", keep_as_is)
    } else {
        ("tests/webhook.rs", webhook_files::add_to_test)
    };
    for (rel, base, add) in [
        (
            &source,
            "src/webhook.rs",
            webhook_files::add_to_source as AddFn,
        ),
        (&test, test_base, add_test),
    ] {
        let name = rel.display().to_string();
        if plan.exists(rel) && !force {
            let text = add(&name, &plan.read(rel)?, &missing, pieces)?;
            plan.update(rel.clone(), text)?;
        } else {
            let text = add(&name, &pieces.render(base)?, &everything, pieces)?;
            plan.create(rel.clone(), text, force)?;
        }
    }
    register_webhooks(plan, data)
}

type AddFn = fn(&str, &str, &Additions, &dyn Pieces) -> Result<String>;

/// The `AddFn` of a file rkb adds nothing to.
fn keep_as_is(_file: &str, text: &str, _add: &Additions, _pieces: &dyn Pieces) -> Result<String> {
    Ok(text.to_string())
}

/// When a kind becomes converted, the tests of its other versions turn the CRD's conversion on too: the API
/// server cannot serve those versions without it.
fn enable_conversion_in_other_tests(
    plan: &mut Plan,
    config: &ProjectConfig,
    resource: &ResourceConfig,
    pieces: &KindPieces,
) -> Result<()> {
    for other in &config.resources {
        let same_kind = other.group == resource.group && other.kind == resource.kind;
        if !same_kind || other.version == resource.version || other.webhooks.is_none() {
            continue;
        }
        let module = webhook_module(config, other);
        let test = Path::new("tests").join(format!("{}.rs", module.replace("::", "_")));
        if plan.exists(&test) {
            let name = test.display().to_string();
            let text = webhook_files::enable_conversion_in_test(&name, &plan.read(&test)?, pieces)?;
            plan.update(test, text)?;
        }
    }
    Ok(())
}

/// The module path of a kind's webhooks below `crate::webhook`: `[<group>::]<version>::<kind>_webhook`.
pub(super) fn webhook_module(config: &ProjectConfig, resource: &ResourceConfig) -> String {
    let version_mod = if config.multigroup {
        format!(
            "{}::{}",
            names::group_module(&resource.group),
            resource.version
        )
    } else {
        resource.version.clone()
    };
    format!("{version_mod}::{}_webhook", resource.kind.to_lowercase())
}

/// Whether a version of the kind is a conversion hub, once `webhooks` are the resource's.
fn kind_converted(
    config: &ProjectConfig,
    resource: &ResourceConfig,
    webhooks: &WebhooksConfig,
) -> bool {
    webhooks.conversion
        || config.resources.iter().any(|r| {
            r.group == resource.group
                && r.kind == resource.kind
                && r.version != resource.version
                && r.webhooks.as_ref().is_some_and(|w| w.conversion)
        })
}

/// The kind's templates rendered with its values, for webhook_files.
struct KindPieces<'a> {
    data: &'a WebhookData,
    renderer: &'a Renderer,
}

impl KindPieces<'_> {
    fn template(path: &str) -> Result<rkb_templates::Template> {
        rkb_templates::webhook(path).ok_or_else(|| {
            anyhow::anyhow!("internal error: template webhook/{path} is not embedded")
        })
    }

    fn spoke_values(&self, spoke: usize) -> SpokeValues<'_, WebhookData> {
        let spoke = &self.data.spokes[spoke];
        SpokeValues {
            webhook: self.data,
            spoke_version: &spoke.version,
            spoke_api_mod: &spoke.api_mod,
        }
    }
}

impl Pieces for KindPieces<'_> {
    fn render(&self, template: &str) -> Result<String> {
        self.renderer.render(&Self::template(template)?, self.data)
    }

    fn render_spoke(&self, template: &str, spoke: usize) -> Result<String> {
        self.renderer
            .render(&Self::template(template)?, &self.spoke_values(spoke))
    }

    fn builder(&self, builder: Builder) -> String {
        let data = self.data;
        let kind = &data.kind;
        // A custom path is served where the marker names it (`..._at`); the default one is derived from the kind.
        let (method, webhook, path, custom) = match builder {
            Builder::Conversion(spoke) => {
                let spoke_mod = &data.spokes[spoke].api_mod;
                return format!(".conversion::<{kind}, crate::api::{spoke_mod}::{kind}>()");
            }
            Builder::Defaulter => (
                "defaulter",
                "Defaulter",
                &data.defaulting_path,
                data.custom_paths.0,
            ),
            Builder::Validator => (
                "validator",
                "Validator",
                &data.validation_path,
                data.custom_paths.1,
            ),
        };
        if custom {
            format!(".{method}_at::<{kind}, _>(\"{path}\", {kind}Custom{webhook})")
        } else {
            format!(".{method}::<{kind}, _>({kind}Custom{webhook})")
        }
    }
}

/// `--defaulting-path` / `--validation-path`: only with their webhook type, and an absolute URL path the webhook
/// marker can hold (no `,` or `;`, which end a marker argument).
fn webhook_path(with_type: bool, what: &str, path: &Option<String>) -> Result<Option<String>> {
    let Some(path) = path else { return Ok(None) };
    let flag = if what == "defaulting" {
        "--defaulting"
    } else {
        "--programmatic-validation"
    };
    if !with_type {
        bail!("--{what}-path names where the {what} webhook is served: pass {flag} too");
    }
    if !path.starts_with('/') {
        bail!(
            "--{what}-path {path:?} must start with `/`: it is the URL path the API server calls, e.g. /my-{what}-path"
        );
    }
    let valid = |c: char| c.is_ascii_alphanumeric() || "/-._~".contains(c);
    if let Some(bad) = path.chars().find(|c| !valid(*c)) {
        bail!(
            "--{what}-path {path:?} has {bad:?}: a webhook path is made of letters, digits and `/-._~`"
        );
    }
    if path == "/convert" {
        bail!(
            "--{what}-path /convert is where the conversion webhook is served; choose another path"
        );
    }
    Ok(Some(path.clone()))
}

/// Without `--force`, every type a run asks for must be new to the kind, and so must a path flag's type.
fn refuse_what_exists(args: &CreateWebhookArgs, before: &WebhooksConfig) -> Result<()> {
    let kind = format!("{} {}/{}", args.kind, args.group, args.version);
    for (path, had, what) in [
        (&args.defaulting_path, before.defaulting, "defaulting"),
        (&args.validation_path, before.validation, "validation"),
    ] {
        if path.is_some() && had {
            bail!(
                "{kind} already has its {what} webhook: --{what}-path applies to a new one; change the path in its `+kubebuilder:webhook` marker and in webhooks() yourself, or pass --force to scaffold its webhook file and test again (carry your code over)"
            );
        }
    }
    // As kubebuilder: a type the kind has is refused, not skipped, even beside one it lacks.
    let mut present: Vec<String> = Vec::new();
    if args.defaulting && before.defaulting {
        present.push("--defaulting".into());
    }
    if args.programmatic_validation && before.validation {
        present.push("--programmatic-validation".into());
    }
    let old_spokes: Vec<&str> = (args.spoke.iter())
        .filter(|s| before.spoke.contains(s))
        .map(String::as_str)
        .collect();
    if args.conversion && !old_spokes.is_empty() {
        present.push(format!("--conversion --spoke {}", old_spokes.join(",")));
    }
    if !present.is_empty() {
        bail!(
            "{kind} already has what {} scaffold{} (PROJECT lists its {} webhooks): pass only what it lacks, or pass --force to scaffold its webhook file and test again (carry your code over)",
            present.join(" and "),
            if present.len() == 1 { "s" } else { "" },
            describe(before)
        );
    }
    Ok(())
}

/// Adds the kind's `webhooks()` to the project's `webhook::webhooks()`, and has main.rs serve that once. One list
/// for the whole project, because the webhook test of one version must serve the others too: the API server
/// sends an object of any version to every version's webhooks (matchPolicy Equivalent), converting it first.
fn register_webhooks(plan: &mut Plan, data: &WebhookData) -> Result<()> {
    add_to_webhook_mod_and_main(
        plan,
        (WEBHOOKS_MARKER, ALL_WEBHOOKS_FN),
        format!("{}::webhooks(),", data.webhook_mod),
        format!(
            "mgr.serve_webhooks({}::webhook::webhooks());",
            data.project.crate_ident
        ),
    )
}

/// Adds `entry` above `marker` in src/webhook/mod.rs, appending `function` (which holds the marker) to the file
/// the first time, and `main_line` to main.rs above its controllers marker; each line once.
fn add_to_webhook_mod_and_main(
    plan: &mut Plan,
    (marker, function): (&str, &str),
    entry: String,
    main_line: String,
) -> Result<()> {
    let mod_rs = Path::new("src/webhook/mod.rs");
    let text = plan.read(mod_rs)?;
    // The function is added once: a file that declares it without the marker (edited away) is refused below by
    // insert_before_marker, rather than given a second, clashing declaration.
    let declaration = function
        .lines()
        .find_map(|l| l.strip_prefix("pub fn "))
        .and_then(|rest| rest.split('(').next())
        .map(|name| format!("pub fn {name}("));
    let declared = declaration.is_some_and(|d| text.contains(&d));
    let text = if text.contains(marker) || declared {
        text
    } else {
        format!("{text}{function}")
    };
    let updated = insert_before_marker("src/webhook/mod.rs", &text, marker, &[entry])?;
    plan.update(mod_rs, updated)?;
    let text = plan.read(Path::new("src/main.rs"))?;
    let updated = insert_before_marker(
        "src/main.rs",
        &text,
        "rkb:scaffold:controllers",
        &[main_line],
    )?;
    plan.update("src/main.rs", updated)
}

const WEBHOOKS_MARKER: &str = "rkb:scaffold:webhooks";

/// Appended to src/webhook/mod.rs with the project's first webhook.
const ALL_WEBHOOKS_FN: &str = "
/// Every webhook of this project: main.rs serves them, and so do the webhook tests.
pub fn webhooks() -> rkb_runtime::webhook::Webhooks {
    [
        // rkb:scaffold:webhooks (rkb create webhook adds each kind's webhooks above this line)
    ]
    .into_iter()
    .fold(rkb_runtime::webhook::Webhooks::new(), rkb_runtime::webhook::Webhooks::merge)
}
";

/// Names the hub of a converted kind in the project's `webhook::storage_migration()`, and has main.rs run that
/// migrator once. A kind served in several versions keeps its stored objects in the version they were written in
/// until something rewrites them, and the API server never drops an old version from the CRD's `storedVersions`
/// itself: without the migrator, moving the storage version to the hub would leave the spokes undeletable. The
/// function sits next to `webhooks()` because `--conversion` is what makes a kind multi-version in a scaffold; its
/// RBAC markers are on it, the kind's `get;list;update` on the conversion file.
fn register_storage_migration(plan: &mut Plan, data: &WebhookData) -> Result<()> {
    add_to_webhook_mod_and_main(
        plan,
        (STORAGE_MIGRATION_MARKER, STORAGE_MIGRATION_FN),
        format!(".kind::<crate::api::{}::{}>()", data.api_mod, data.kind),
        format!(
            "mgr.add(|ctx| {}::webhook::storage_migration(&ctx).run());",
            data.project.crate_ident
        ),
    )
}

const STORAGE_MIGRATION_MARKER: &str = "rkb:scaffold:storage-migration";

/// Appended to src/webhook/mod.rs with the project's first conversion webhook.
const STORAGE_MIGRATION_FN: &str = "
/// The kinds served in several versions: their stored objects move to the storage version when it changes
/// (rkb_runtime::storage_migration), so that an old version can be dropped from the CRD. main.rs runs it.
///
/// +kubebuilder:rbac:groups=apiextensions.k8s.io,resources=customresourcedefinitions,verbs=get
/// +kubebuilder:rbac:groups=apiextensions.k8s.io,resources=customresourcedefinitions/status,verbs=patch
pub fn storage_migration(ctx: &rkb_runtime::Context) -> rkb_runtime::storage_migration::StorageMigration {
    rkb_runtime::storage_migration::StorageMigration::new(ctx)
        // rkb:scaffold:storage-migration (rkb create webhook --conversion adds each multi-version kind above this line)
}
";

/// Declares `pub mod <module>;` in `mod_rs` after its other declarations, creating the file (with a doc line)
/// when it does not exist.
pub(super) fn declare_module(plan: &mut Plan, mod_rs: &Path, module: &str) -> Result<()> {
    let line = format!("pub mod {module};");
    if plan.is_planned(mod_rs) || plan.root().join(mod_rs).exists() {
        let text = plan.read(mod_rs)?;
        let mut lines: Vec<&str> = text.lines().collect();
        if lines.iter().any(|l| l.trim() == line) {
            return Ok(());
        }
        let after = lines
            .iter()
            .rposition(|l| l.starts_with("pub mod "))
            .map_or(lines.len(), |at| at + 1);
        lines.insert(after, &line);
        return plan.update(mod_rs.to_path_buf(), lines.join("\n") + "\n");
    }
    let doc = if mod_rs == Path::new("src/webhook/mod.rs") {
        "//! Admission webhooks, one module per API version (`rkb create webhook`).".to_string()
    } else {
        let name = mod_rs
            .parent()
            .and_then(Path::file_name)
            .map_or_else(String::new, |n| n.to_string_lossy().into_owned());
        format!("//! The webhooks of {name}.")
    };
    plan.create(mod_rs.to_path_buf(), format!("{doc}\n\n{line}\n"), false)
}

/// Adds `line` after the line `anchor` of `rel` unless it is there already.
fn ensure_line_after(plan: &mut Plan, rel: &Path, anchor: &str, line: &str) -> Result<()> {
    let text = plan.read(rel)?;
    if text.lines().any(|l| l.trim() == line) {
        return Ok(());
    }
    let Some(at) = text.lines().position(|l| l.trim() == anchor) else {
        bail!(
            "{} has no `{anchor}` line to add `{line}` after; add `{line}` to it yourself and run again",
            rel.display()
        );
    };
    let mut lines: Vec<&str> = text.lines().collect();
    lines.insert(at + 1, line);
    plan.update(rel.to_path_buf(), lines.join("\n") + "\n")
}

/// The kustomize pieces every project with webhooks has, and the manager's volume lists the patch appends to.
/// What the scaffold README says once a project has webhooks: the layout row of src/webhook/ and, under "Deploy to a
/// cluster", that `make deploy` then needs cert-manager. Added at the README's scaffold markers, once. A README
/// without them (edited, or from an older rkb) is left alone, and the returned note says so.
fn describe_webhooks_in_readme(plan: &mut Plan) -> Result<Option<String>> {
    const README: &str = "README.md";
    const LAYOUT: &str = "rkb:scaffold:readme-layout";
    const DEPLOY: &str = "rkb:scaffold:readme-deploy";
    let Ok(text) = plan.read(Path::new(README)) else {
        return Ok(None);
    };
    if !text.contains(LAYOUT) || !text.contains(DEPLOY) {
        return Ok(Some(format!(
            "note: README.md has no `<!-- {LAYOUT} -->` and `<!-- {DEPLOY} -->` lines, so rkb did not describe the webhooks there"
        )));
    }
    let row = "| `src/webhook/` | admission and conversion webhooks; `+kubebuilder:webhook` markers drive \
               `config/webhook/manifests.yaml` |";
    let deploy = "With webhooks, `make deploy` needs [cert-manager](https://cert-manager.io/docs/installation/) in the \
                  cluster: it issues the webhook server's certificate (config/certmanager) and puts its CA into the \
                  webhook configurations. Without cert-manager, switch config/default to config/webhook-certs as its \
                  `[WEBHOOK-CERTS]` comment says: the manager then makes, injects and rotates its own certificate.";
    let text = insert_before_marker(README, &text, LAYOUT, &[row.to_string()])?;
    let text = insert_before_marker(README, &text, DEPLOY, &[deploy.to_string()])?;
    plan.update(README, text)?;
    Ok(None)
}

/// The files of config/certmanager that `rkb init` writes (for the metrics certificate) and a project an older rkb
/// initialised lacks: `create webhook` renders them from init's templates, so the two commands write the same text.
const CERTMANAGER_FROM_INIT: [&str; 2] = [
    "config/certmanager/issuer.yaml",
    "config/certmanager/kustomizeconfig.yaml",
];

/// The files the first webhook of a project adds when they are missing, each rendered by [`project_file_template`].
const PROJECT_FILES: [&str; 13] = [
    "config/webhook/kustomization.yaml",
    "config/webhook/service.yaml",
    "config/certmanager/kustomization.yaml",
    "config/certmanager/issuer.yaml",
    "config/certmanager/certificate-webhook.yaml",
    "config/certmanager/kustomizeconfig.yaml",
    "config/webhook-certs/kustomization.yaml",
    "config/webhook-certs/secret.yaml",
    "config/webhook-certs/rbac.yaml",
    "config/webhook-certs/manager_patch.yaml",
    "config/webhook-certs/kustomizeconfig.yaml",
    "config/default/manager_webhook_patch.yaml",
    "config/network-policy/allow-webhook-traffic.yaml",
];

/// The template of one of [`PROJECT_FILES`]: init's for [`CERTMANAGER_FROM_INIT`], webhook's for the rest.
fn project_file_template(path: &str) -> Result<rkb_templates::Template> {
    let (template, folder) = if CERTMANAGER_FROM_INIT.contains(&path) {
        (rkb_templates::init_file(path), "init")
    } else {
        (rkb_templates::webhook(path), "webhook")
    };
    template
        .ok_or_else(|| anyhow::anyhow!("internal error: template {folder}/{path} is not embedded"))
}

fn add_project_files(plan: &mut Plan, render: &dyn Fn(&str) -> Result<String>) -> Result<()> {
    for file in PROJECT_FILES {
        // Kept when present: they are the user's to edit.
        if !plan.root().join(file).exists() {
            plan.create(file, render(file)?, false)?;
        }
    }
    // `rkb init` writes config/certmanager for the metrics certificate; the webhook's certificate joins it.
    ensure_line_after(
        plan,
        Path::new("config/certmanager/kustomization.yaml"),
        "resources:",
        "- certificate-webhook.yaml",
    )?;
    ensure_line_after(
        plan,
        Path::new("config/network-policy/kustomization.yaml"),
        "resources:",
        "- allow-webhook-traffic.yaml",
    )?;
    let manager = Path::new("config/manager/manager.yaml");
    let text = plan.read(manager)?;
    if !text.contains("volumeMounts:") {
        ensure_line_after(plan, manager, "ports: []", "        volumeMounts: []")?;
    }
    if !plan.read(manager)?.contains("volumes:") {
        ensure_line_after(
            plan,
            manager,
            "terminationGracePeriodSeconds: 10",
            "      volumes: []",
        )?;
    }
    Ok(())
}

/// Enables the webhook pieces in config/default/kustomization.yaml: the resources, the manager patch, and the
/// replacements that put cert-manager's CA into the configurations of the webhook types the project has.
fn enable_in_config_default(plan: &mut Plan, data: &WebhookData) -> Result<()> {
    let rel = Path::new("config/default/kustomization.yaml");
    let mut text = plan.read(rel)?;
    if !text.lines().any(|l| l.trim() == "- ../webhook") {
        let Some(at) = text.lines().position(|l| l.trim() == "- ../manager") else {
            bail!(
                "{} has no `- ../manager` resource to add the webhook resources after; add `- ../webhook` and `- ../certmanager` yourself",
                rel.display()
            );
        };
        let mut lines: Vec<&str> = text.lines().collect();
        // Already there when the metrics certificate was enabled ([METRICS-WITH-CERTS]); kustomize refuses it twice.
        let certmanager = lines.iter().any(|l| l.trim() == "- ../certmanager");
        lines.splice(
            at + 1..at + 1,
            [
                "# [WEBHOOK] The webhook configurations and their Service.",
                "- ../webhook",
                "# [CERTMANAGER] The webhook server's certificate, issued by cert-manager (needs cert-manager installed).",
                "- ../certmanager",
            ]
            .into_iter()
            .take(if certmanager { 2 } else { 4 }),
        );
        text = lines.join("\n") + "\n";
    }
    if !text.contains("path: manager_webhook_patch.yaml") {
        text = add_to_list(&text, "patches", WEBHOOK_PATCH);
    }
    if !text.contains("[WEBHOOK-CERTS]") {
        text = format!("{}\n\n{WEBHOOK_CERTS_COMPONENT}", text.trim_end());
    }
    // A project that switched to config/webhook-certs has no Certificate for the replacements to read.
    let webhook_certs = text.lines().any(|l| l.trim() == "- ../webhook-certs");
    if !text.contains("[CERTMANAGER] DNS names") && !webhook_certs {
        text = add_to_list(&text, "replacements", CERTIFICATE_REPLACEMENTS);
    }
    let crd_select = format!("CustomResourceDefinition\n      name: {}", data.crd_name);
    for (wanted, what, select) in [
        (
            data.defaulting,
            "MutatingWebhookConfiguration",
            "MutatingWebhookConfiguration",
        ),
        (
            data.validation,
            "ValidatingWebhookConfiguration",
            "ValidatingWebhookConfiguration",
        ),
        (data.conversion, data.crd_name.as_str(), crd_select.as_str()),
    ] {
        let tag = format!("[CERTMANAGER] CA of {what}");
        if wanted && !text.contains(&tag) && !webhook_certs {
            text = add_to_list(&text, "replacements", &ca_injection(&tag, select));
        }
    }
    plan.update(rel.to_path_buf(), text)
}

/// A spoke's conversion file in its version module, and the CRD's conversion patch, listed in
/// config/crd/kustomization.yaml with kustomize's CRD configuration enabled.
fn add_conversion_files(
    plan: &mut Plan,
    data: &WebhookData,
    renderer: &Renderer,
    force: bool,
) -> Result<()> {
    let conversion = rkb_templates::webhook("src/conversion.rs").ok_or_else(|| {
        anyhow::anyhow!("internal error: template webhook/src/conversion.rs is not embedded")
    })?;
    for spoke in &data.spokes {
        let values = SpokeValues {
            webhook: data,
            spoke_version: &spoke.version,
            spoke_api_mod: &spoke.api_mod,
        };
        let module_dir = PathBuf::from("src/api").join(spoke.api_mod.replace("::", "/"));
        let file = module_dir.join(format!("{}_conversion.rs", data.lower_kind));
        if !plan.root().join(&file).exists() || force {
            plan.create(file, renderer.render(&conversion, &values)?, force)?;
        }
        let mod_rs = module_dir.join("mod.rs");
        let text = plan.read(&mod_rs)?;
        let line = format!("mod {}_conversion;", data.lower_kind);
        let updated = insert_before_marker(
            &mod_rs.display().to_string(),
            &text,
            "rkb:scaffold:types",
            &[line],
        )?;
        plan.update(mod_rs, updated)?;
    }
    let patch = PathBuf::from(format!(
        "config/crd/patches/webhook_in_{}.yaml",
        data.plural
    ));
    if !plan.root().join(&patch).exists() || force {
        let template =
            rkb_templates::webhook("config/crd/patches/webhook_in.yaml").ok_or_else(|| {
                anyhow::anyhow!("internal error: the CRD patch template is not embedded")
            })?;
        plan.create(&patch, renderer.render(&template, data)?, force)?;
    }
    let kustomization = Path::new("config/crd/kustomization.yaml");
    let text = plan.read(kustomization)?;
    let entry = format!("- path: patches/webhook_in_{}.yaml", data.plural);
    let mut updated = insert_before_marker(
        "config/crd/kustomization.yaml",
        &text,
        "+kubebuilder:scaffold:crdkustomizewebhookpatch",
        &[entry],
    )?;
    // The conversion service reference must follow namePrefix and namespace: kustomizeconfig.yaml says where it is.
    if updated.contains("#configurations:") {
        updated = updated
            .replace("#configurations:", "configurations:")
            .replace("#- kustomizeconfig.yaml", "- kustomizeconfig.yaml");
    }
    plan.update(kustomization, updated)
}

/// `items` (YAML list entries, comment first) at the start of the top-level list `key`, which is created at the
/// end of `text` when missing (a second `key:` would be a duplicate key).
fn add_to_list(text: &str, key: &str, items: &str) -> String {
    let header = format!("{key}:");
    let mut lines: Vec<&str> = text.lines().collect();
    match lines.iter().position(|l| *l == header) {
        Some(at) => {
            lines.splice(at + 1..at + 1, items.lines());
            lines.join("\n") + "\n"
        }
        None => format!("{}\n\n{header}\n{items}", text.trim_end()),
    }
}

const WEBHOOK_CERTS_COMPONENT: &str = "# [WEBHOOK-CERTS] Without cert-manager: the manager makes its own CA and certificate, injects the CA into
# the webhook configurations and conversion CRDs, and rotates both (config/webhook-certs). To use it, comment
# out `- ../certmanager` and the [CERTMANAGER] replacements, and uncomment the two lines below.
#components:
#- ../webhook-certs
";

const WEBHOOK_PATCH: &str = "# [WEBHOOK] Serve the webhooks on :9443 with cert-manager's certificate (see manager_webhook_patch.yaml).
- path: manager_webhook_patch.yaml
  target:
    kind: Deployment
";

const CERTIFICATE_REPLACEMENTS: &str = "# [CERTMANAGER] DNS names of the webhook certificate: the webhook Service's name and namespace.
- source:
    kind: Service
    version: v1
    name: webhook-service
    fieldPath: .metadata.name
  targets:
  - select:
      kind: Certificate
      group: cert-manager.io
      version: v1
      name: serving-cert
    fieldPaths:
    - .spec.dnsNames.0
    - .spec.dnsNames.1
    options:
      delimiter: '.'
      index: 0
      create: true
- source:
    kind: Service
    version: v1
    name: webhook-service
    fieldPath: .metadata.namespace
  targets:
  - select:
      kind: Certificate
      group: cert-manager.io
      version: v1
      name: serving-cert
    fieldPaths:
    - .spec.dnsNames.0
    - .spec.dnsNames.1
    options:
      delimiter: '.'
      index: 1
      create: true
";

/// The replacements that make cert-manager inject the serving certificate's CA into the objects `kind` selects
/// (a kind, or a kind and `name:` line).
fn ca_injection(tag: &str, kind: &str) -> String {
    let part = |field: &str, index: u8| {
        format!(
            "- source:
    kind: Certificate
    group: cert-manager.io
    version: v1
    name: serving-cert
    fieldPath: .metadata.{field}
  targets:
  - select:
      kind: {kind}
    fieldPaths:
    - .metadata.annotations.[cert-manager.io/inject-ca-from]
    options:
      delimiter: '/'
      index: {index}
      create: true
"
        )
    };
    format!(
        "# {tag} (cert-manager.io/inject-ca-from).\n{}{}",
        part("namespace", 0),
        part("name", 1)
    )
}

/// Lists a conversion CRD in config/webhook-certs (when the project has it): its name in the manager's
/// --webhook-ca-crds and in the injector role's rules, each at its scaffold marker, once.
fn list_crd_in_webhook_certs(plan: &mut Plan, data: &WebhookData) -> Result<()> {
    let entries = [
        (
            "config/webhook-certs/manager_patch.yaml",
            "+kubebuilder:scaffold:webhookcertscrdargs",
            format!(
                "- op: add\n  path: /spec/template/spec/containers/0/args/-\n  value: --webhook-ca-crds={}",
                data.crd_name
            ),
        ),
        (
            "config/webhook-certs/rbac.yaml",
            "+kubebuilder:scaffold:webhookcertscrdrules",
            format!(
                "- apiGroups:\n  - apiextensions.k8s.io\n  resourceNames:\n  - {}\n  resources:\n  - customresourcedefinitions\n  verbs:\n  - get\n  - patch",
                data.crd_name
            ),
        ),
    ];
    for (file, marker, entry) in entries {
        let rel = Path::new(file);
        if !plan.is_planned(rel) && !plan.root().join(rel).exists() {
            continue;
        }
        let text = plan.read(rel)?;
        if text.contains(&format!("- {}\n", data.crd_name))
            || text.contains(&format!("={}\n", data.crd_name))
        {
            continue;
        }
        // Spliced whole: insert_before_marker would drop the lines this entry shares with earlier ones.
        let Some(at) = text.lines().position(|l| l.contains(marker)) else {
            bail!(
                "{file} has no `# {marker}` line, so rkb cannot list {} in it; restore the line",
                data.crd_name
            );
        };
        let mut lines: Vec<&str> = text.lines().collect();
        lines.splice(at..at, entry.lines());
        plan.update(rel, lines.join("\n") + "\n")?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Goldens scaffold with today's `rkb init`, which writes config/certmanager, so they never render the files an
    /// older project lacks: this holds each of them to a template that is embedded.
    #[test]
    fn every_project_file_has_a_template() {
        for path in PROJECT_FILES {
            let template = project_file_template(path).unwrap_or_else(|e| panic!("{e}"));
            assert_eq!(template.path, path);
        }
        for path in CERTMANAGER_FROM_INIT {
            assert!(PROJECT_FILES.contains(&path), "{path} is never written");
        }
    }
}
