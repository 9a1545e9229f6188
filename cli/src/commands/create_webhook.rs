//! `rkb create webhook`: a kind's admission webhooks (defaulting, validation) and their envtest test, registered in
//! main.rs and recorded in PROJECT; the first webhook of a project also adds the kustomize pieces kubebuilder's do
//! (config/webhook, config/certmanager, the manager patch, CA injection, the network policy), enabled in
//! config/default.

use std::path::{Path, PathBuf};

use anyhow::{Result, bail};
use serde::Serialize;

use super::project_data::ProjectData;
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
    /// What the webhook file imports from `rkb_runtime::webhook`.
    webhook_imports: String,
    defaulting: bool,
    validation: bool,
    namespaced: bool,
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
    if args.conversion || !args.spoke.is_empty() {
        bail!(
            "--conversion is not scaffolded yet: serve conversions with rkb_runtime::webhook::Webhooks::conversion::<Hub, Spoke>() and enable them in the CRD (docs/webhooks.md)"
        );
    }
    if !args.defaulting && !args.programmatic_validation {
        bail!("nothing to scaffold: pass --defaulting and/or --programmatic-validation");
    }
    let resource = find_kind(&config, args)?;
    let before = resource.webhooks.clone().unwrap_or_default();
    if (before.defaulting || before.validation) && !args.force {
        bail!(
            "{} {}/{} already has {} webhooks in PROJECT; pass --force to scaffold its webhook file and test again (carry your code over)",
            args.kind,
            args.group,
            args.version,
            describe(&before)
        );
    }
    let (defaulting, validation) = (
        args.defaulting || before.defaulting,
        args.programmatic_validation || before.validation,
    );
    let data = webhook_data(&config, dir, &resource, defaulting, validation);
    let renderer = Renderer::new();
    let render = |path: &str| -> Result<String> {
        let template = rkb_templates::webhook(path).ok_or_else(|| {
            anyhow::anyhow!("internal error: template webhook/{path} is not embedded")
        })?;
        renderer.render(&template, &data)
    };
    let mut plan = Plan::new(dir, "pass --force to overwrite it");
    add_kind_files(&mut plan, &config, &data, &render, args.force)?;
    let first_webhook = !config.resources.iter().any(|r| r.webhooks.is_some());
    if first_webhook {
        add_project_files(&mut plan, &render)?;
    }
    enable_in_config_default(&mut plan, defaulting, validation)?;

    let slot = config
        .resources
        .iter_mut()
        .find(|r| r.group == args.group && r.version == args.version && r.kind == args.kind)
        .expect("found above");
    slot.webhooks = Some(WebhooksConfig {
        defaulting,
        validation,
        webhook_version: "v1".into(),
    });
    plan.update(project_config::FILE_NAME, config.render()?)?;
    if !plan.format_rust()? {
        eprintln!("note: rustfmt is not installed; the scaffolded Rust files are left unformatted");
    }
    plan.commit()?;
    println!(
        "Scaffolded the {} webhooks of {}/{} {} in {}",
        describe(&WebhooksConfig {
            defaulting,
            validation,
            webhook_version: String::new()
        }),
        data.full_group,
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

/// The kind in PROJECT, with its API: webhooks need the kind's Rust type.
fn find_kind(config: &ProjectConfig, args: &CreateWebhookArgs) -> Result<ResourceConfig> {
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
    match (w.defaulting, w.validation) {
        (true, true) => "defaulting and validating".into(),
        (true, false) => "defaulting".into(),
        _ => "validating".into(),
    }
}

fn webhook_data(
    config: &ProjectConfig,
    dir: &Path,
    resource: &ResourceConfig,
    defaulting: bool,
    validation: bool,
) -> WebhookData {
    let full_group = names::full_group(&resource.group, &config.domain);
    let group_mod = names::group_module(&resource.group);
    let version_mod = if config.multigroup {
        format!("{group_mod}::{}", resource.version)
    } else {
        resource.version.clone()
    };
    let lower = resource.kind.to_lowercase();
    let mut imports = Vec::new();
    if defaulting {
        imports.extend(["Defaulter", "Denied"]);
    }
    if validation {
        imports.extend(["Validator", "Verdict"]);
    }
    imports.push("Webhooks");
    WebhookData {
        project: ProjectData::load(config, dir),
        group_path: full_group.replace('.', "-"),
        full_group,
        version: resource.version.clone(),
        kind: resource.kind.clone(),
        lower_kind: lower.clone(),
        plural: resource
            .plural
            .clone()
            .unwrap_or_else(|| names::default_plural(&resource.kind)),
        api_mod: version_mod.clone(),
        webhook_mod: format!("{version_mod}::{lower}_webhook"),
        webhook_imports: format!("{{{}}}", imports.join(", ")),
        defaulting,
        validation,
        namespaced: resource.api.as_ref().is_some_and(|a| a.namespaced),
    }
}

/// src/webhook/[<group>/]<version>/<kind>_webhook.rs with its modules, main.rs's registration, and the test.
fn add_kind_files(
    plan: &mut Plan,
    config: &ProjectConfig,
    data: &WebhookData,
    render: &dyn Fn(&str) -> Result<String>,
    overwrite: bool,
) -> Result<()> {
    let module_path: Vec<&str> = data.webhook_mod.split("::").collect();
    let (file_module, parents) = module_path.split_last().expect("a module path");
    ensure_line_after(
        plan,
        Path::new("src/lib.rs"),
        "pub mod controller;",
        "pub mod webhook;",
    )?;
    let mut dir = PathBuf::from("src/webhook");
    for (depth, module) in parents.iter().enumerate() {
        let mod_rs = dir.join("mod.rs");
        declare_module(plan, &mod_rs, module, depth == 0)?;
        dir = dir.join(module);
    }
    declare_module(plan, &dir.join("mod.rs"), file_module, false)?;
    plan.create(
        dir.join(format!("{file_module}.rs")),
        render("src/webhook.rs")?,
        overwrite,
    )?;
    let test = if config.multigroup {
        format!("{}_{file_module}.rs", parents[0])
    } else {
        format!("{file_module}.rs")
    };
    plan.create(
        Path::new("tests").join(test),
        render("tests/webhook.rs")?,
        overwrite,
    )?;
    let registration = format!(
        "mgr.serve_webhooks({}::webhook::{}::webhooks());",
        data.project.crate_ident, data.webhook_mod
    );
    let text = plan.read(Path::new("src/main.rs"))?;
    let updated = insert_before_marker(
        "src/main.rs",
        &text,
        "rkb:scaffold:controllers",
        &[registration],
    )?;
    plan.update("src/main.rs", updated)
}

/// Declares `pub mod <module>;` in `mod_rs`, creating the file (with a doc line) when it does not exist.
fn declare_module(plan: &mut Plan, mod_rs: &Path, module: &str, top: bool) -> Result<()> {
    let line = format!("pub mod {module};");
    if plan.is_planned(mod_rs) || plan.root().join(mod_rs).exists() {
        let text = plan.read(mod_rs)?;
        if text.lines().any(|l| l.trim() == line) {
            return Ok(());
        }
        return plan.update(mod_rs.to_path_buf(), format!("{text}{line}\n"));
    }
    let doc = if top {
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
fn add_project_files(plan: &mut Plan, render: &dyn Fn(&str) -> Result<String>) -> Result<()> {
    for file in [
        "config/webhook/kustomization.yaml",
        "config/webhook/service.yaml",
        "config/certmanager/kustomization.yaml",
        "config/certmanager/issuer.yaml",
        "config/certmanager/certificate-webhook.yaml",
        "config/certmanager/kustomizeconfig.yaml",
        "config/default/manager_webhook_patch.yaml",
        "config/network-policy/allow-webhook-traffic.yaml",
    ] {
        // Kept when present: they are the user's to edit.
        if !plan.root().join(file).exists() {
            plan.create(file, render(file)?, false)?;
        }
    }
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
fn enable_in_config_default(plan: &mut Plan, defaulting: bool, validation: bool) -> Result<()> {
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
        lines.splice(at + 1..at + 1, [
            "# [WEBHOOK] The webhook configurations and their Service.",
            "- ../webhook",
            "# [CERTMANAGER] The webhook server's certificate, issued by cert-manager (needs cert-manager installed).",
            "- ../certmanager",
        ]);
        text = lines.join("\n") + "\n";
    }
    if !text.contains("path: manager_webhook_patch.yaml") {
        text = add_to_list(&text, "patches", WEBHOOK_PATCH);
    }
    if !text.contains("[CERTMANAGER] DNS names") {
        text = add_to_list(&text, "replacements", CERTIFICATE_REPLACEMENTS);
    }
    for (wanted, kind) in [
        (defaulting, "MutatingWebhookConfiguration"),
        (validation, "ValidatingWebhookConfiguration"),
    ] {
        let tag = format!("[CERTMANAGER] CA of {kind}");
        if wanted && !text.contains(&tag) {
            text = add_to_list(&text, "replacements", &ca_injection(&tag, kind));
        }
    }
    plan.update(rel.to_path_buf(), text)
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

/// The replacements that make cert-manager inject the serving certificate's CA into `kind`.
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
