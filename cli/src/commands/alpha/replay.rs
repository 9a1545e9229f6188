//! The rkb command lines that rebuild a project's scaffold from its PROJECT, and running them with a given rkb
//! binary.
//!
//! Contract: `init` first (domain, project name, multigroup, namespaced, the license from hack/boilerplate.rs.txt),
//! then for each kind in PROJECT's order its `create api` commands (resource and unnamed controller, then each named
//! controller) and its `create webhook`, the latter deferred to just after the `create api` of the last of its
//! conversion's spoke versions when they come later in PROJECT; then `manifests`. PROJECT does not record how the
//! user interleaved these commands, so files that list kinds in creation order (main.rs, mod.rs) may list them in
//! another order than the project's when a kind's webhooks came long after its API.

use std::path::Path;
use std::process::Command;

use anyhow::{Result, bail};

use super::git;
use crate::project_config::{ProjectConfig, ResourceConfig};

/// Where init writes the license header that later commands copy into every file.
pub const BOILERPLATE: &str = "hack/boilerplate.rs.txt";

/// Scaffolds the project `config` describes into the new directory `dir` with the rkb binary `rkb`. `boilerplate`
/// is the project's license header file, written back after init so every later file carries it as the project's
/// do (init itself can only be given an owner, and dates the header this year).
pub fn scaffold(
    rkb: &Path,
    config: &ProjectConfig,
    boilerplate: Option<&str>,
    dir: &Path,
) -> Result<()> {
    std::fs::create_dir_all(dir)?;
    let (init, rest) = commands(config, boilerplate);
    run_rkb(rkb, &init, dir)?;
    if let Some(text) = boilerplate {
        std::fs::write(dir.join(BOILERPLATE), text)?;
    }
    for command in &rest {
        run_rkb(rkb, command, dir)?;
    }
    Ok(())
}

/// Runs `rkb <args> --dir <dir>`, quietly; a failure carries rkb's own error.
pub fn run_rkb(rkb: &Path, args: &[String], dir: &Path) -> Result<()> {
    let out = git::capture(Command::new(rkb).args(args).arg("--dir").arg(dir))?;
    if !out.status.success() {
        let stderr = String::from_utf8_lossy(&out.stderr);
        let reason = stderr.trim().trim_start_matches("error: ");
        bail!(
            "`{} {}` failed while re-scaffolding the project from PROJECT: {reason}",
            rkb.display(),
            args.join(" ")
        );
    }
    Ok(())
}

/// The init command line, then the others (create api, create webhook, manifests).
pub fn commands(
    config: &ProjectConfig,
    boilerplate: Option<&str>,
) -> (Vec<String>, Vec<Vec<String>>) {
    let mut init = strings(&[
        "init",
        "--domain",
        &config.domain,
        "--project-name",
        &config.project_name,
    ]);
    if config.multigroup {
        init.push("--multigroup".into());
    }
    if config.namespaced {
        init.push("--namespaced".into());
    }
    match boilerplate.map(str::trim) {
        None | Some("") => init.extend(strings(&["--license", "none"])),
        Some(header) => {
            if let Some(owner) = owner(header) {
                init.extend(strings(&["--owner", owner]));
            }
        }
    }
    let mut rest = Vec::new();
    // Webhooks waiting for the `create api` of their conversion's spoke versions.
    let mut waiting: Vec<(&ResourceConfig, Vec<String>)> = Vec::new();
    for (index, resource) in config.resources.iter().enumerate() {
        rest.extend(create_api(resource));
        waiting.extend(create_webhook(resource).map(|webhook| (resource, webhook)));
        let created = &config.resources[..=index];
        waiting.retain(|(hub, webhook)| {
            let ready = spokes_created(hub, created);
            if ready {
                rest.push(webhook.clone());
            }
            !ready
        });
    }
    rest.push(strings(&["manifests"]));
    (init, rest)
}

/// Whether every spoke version of `hub`'s conversion webhook is among the `created` resources.
fn spokes_created(hub: &ResourceConfig, created: &[ResourceConfig]) -> bool {
    let spokes = hub.webhooks.as_ref().map_or(&[][..], |w| &w.spoke[..]);
    spokes.iter().all(|spoke| {
        created
            .iter()
            .any(|r| r.group == hub.group && r.kind == hub.kind && &r.version == spoke)
    })
}

/// The owner in the header's first line, `// Copyright <year> <owner>.`.
fn owner(header: &str) -> Option<&str> {
    let first = header.lines().next()?.strip_prefix("// Copyright ")?;
    let (_year, owner) = first.split_once(' ')?;
    Some(owner.strip_suffix('.').unwrap_or(owner))
}

/// `create api` for the kind's resource and its unnamed controller, then one per named controller
/// (`--controller-name`). A kind with neither (a core kind with webhooks only) has none.
fn create_api(resource: &ResourceConfig) -> Vec<Vec<String>> {
    let unnamed = resource.kind.to_lowercase();
    let names = resource.controller_names();
    let unnamed_controller = names.contains(&unnamed);
    let mut commands = Vec::new();
    if resource.api.is_some() || unnamed_controller {
        let mut args = kind_args("api", resource);
        match &resource.api {
            None => args.push("--resource=false".into()),
            Some(api) => {
                if !api.namespaced {
                    args.push("--namespaced=false".into());
                }
                if let Some(plural) = &resource.plural {
                    args.extend(strings(&["--plural", plural]));
                }
            }
        }
        if !unnamed_controller {
            args.push("--controller=false".into());
        }
        args.extend(external_flags(resource, true));
        commands.push(args);
    }
    for name in names.iter().filter(|name| **name != unnamed) {
        let mut args = kind_args("api", resource);
        args.extend(strings(&["--resource=false", "--controller-name", name]));
        args.extend(external_flags(resource, commands.is_empty()));
        commands.push(args);
    }
    commands
}

fn create_webhook(resource: &ResourceConfig) -> Option<Vec<String>> {
    let webhooks = resource.webhooks.as_ref()?;
    let mut args = kind_args("webhook", resource);
    if webhooks.defaulting {
        args.push("--defaulting".into());
    }
    if let Some(path) = &webhooks.defaulting_path {
        args.extend(strings(&["--defaulting-path", path]));
    }
    if webhooks.validation {
        args.push("--programmatic-validation".into());
    }
    if let Some(path) = &webhooks.validation_path {
        args.extend(strings(&["--validation-path", path]));
    }
    if webhooks.conversion {
        args.push("--conversion".into());
        if !webhooks.spoke.is_empty() {
            args.extend(strings(&["--spoke", &webhooks.spoke.join(",")]));
        }
    }
    // The crate was added to Cargo.toml by the kind's `create api`, when it has one.
    let adds_crate = resource.api.is_none() && !resource.has_controller();
    args.extend(external_flags(resource, adds_crate));
    Some(args)
}

fn kind_args(what: &str, resource: &ResourceConfig) -> Vec<String> {
    strings(&[
        "create",
        what,
        "--group",
        &resource.group,
        "--version",
        &resource.version,
        "--kind",
        &resource.kind,
    ])
}

/// The `--external-api-*` flags an external kind was created with; `--external-api-crate` only where the crate is
/// to be added to Cargo.toml.
fn external_flags(resource: &ResourceConfig, with_crate: bool) -> Vec<String> {
    if !resource.external {
        return Vec::new();
    }
    let mut flags = Vec::new();
    if let Some(path) = &resource.path {
        flags.extend(strings(&["--external-api-path", path]));
    }
    if let (true, Some(module)) = (with_crate, &resource.module) {
        flags.extend(strings(&["--external-api-crate", module]));
    }
    if !resource.domain.is_empty() {
        flags.extend(strings(&["--external-api-domain", &resource.domain]));
    }
    flags
}

fn strings(items: &[&str]) -> Vec<String> {
    items.iter().map(|s| (*s).to_string()).collect()
}
