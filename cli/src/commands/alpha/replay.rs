//! The rkb command lines that rebuild a project's scaffold from its PROJECT, and running them with a given rkb
//! binary.
//!
//! Contract: `init` first (domain, project name, multigroup, namespaced, sharded, the license from
//! hack/boilerplate.rs.txt), then for each kind in PROJECT's order its `create api` (resource and unnamed
//! controller), its `create webhook` and a `create api --controller-name` per named controller, the last two deferred
//! to just after the `create api` of the last of its conversion's spoke versions when they come later in PROJECT;
//! then `manifests`. PROJECT does not record how the user interleaved these commands, so files that list kinds in
//! creation order (main.rs) may list them in another order than the project's when a kind's webhooks or named
//! controllers came after later kinds.

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
        bail!("`{} {}` failed: {reason}", rkb.display(), args.join(" "));
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
    if config.sharded {
        init.push("--sharded".into());
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
    // Per kind, the commands after its first `create api`: its webhooks, then its further (named) controllers,
    // waiting for the `create api` of their conversion's spoke versions.
    let mut waiting: Vec<(&ResourceConfig, Vec<Vec<String>>)> = Vec::new();
    for (index, resource) in config.resources.iter().enumerate() {
        let first = create_api(resource);
        let introduced = first.is_some();
        rest.extend(first);
        let mut later: Vec<Vec<String>> = create_webhook(resource).into_iter().collect();
        later.extend(named_controllers(resource));
        // An external kind's first command records it in PROJECT; later ones are refused with the flags again.
        if let (false, Some(command)) = (introduced, later.first_mut()) {
            command.extend(external_flags(resource));
        }
        waiting.push((resource, later));
        let created = &config.resources[..=index];
        waiting.retain(|(hub, commands)| {
            let ready = spokes_created(hub, created);
            if ready {
                rest.extend(commands.iter().cloned());
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

/// The `create api` for the kind's resource and its unnamed controller; none for a kind with neither (a core kind
/// with webhooks or named controllers only).
fn create_api(resource: &ResourceConfig) -> Option<Vec<String>> {
    let unnamed_controller = resource
        .controller_names()
        .contains(&resource.kind.to_lowercase());
    if resource.api.is_none() && !unnamed_controller {
        return None;
    }
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
    args.extend(external_flags(resource));
    Some(args)
}

/// One `create api --controller-name` per named controller of the kind.
fn named_controllers(resource: &ResourceConfig) -> Vec<Vec<String>> {
    let unnamed = resource.kind.to_lowercase();
    let names = resource.controller_names();
    let named = names.iter().filter(|name| **name != unnamed);
    named
        .map(|name| {
            let mut args = kind_args("api", resource);
            args.extend(strings(&["--resource=false", "--controller-name", name]));
            args
        })
        .collect()
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

/// The `--external-api-*` flags an external kind was introduced with, for the first command that names it.
fn external_flags(resource: &ResourceConfig) -> Vec<String> {
    if !resource.external {
        return Vec::new();
    }
    let mut flags = Vec::new();
    if let Some(path) = &resource.path {
        flags.extend(strings(&["--external-api-path", path]));
    }
    if let Some(module) = &resource.module {
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

#[cfg(test)]
mod tests {
    use super::*;

    /// PROJECT as rkb writes it for a project with every kind of entry: a kind with a plural, a named controller,
    /// custom webhook paths and a conversion to a version listed later; a core kind's controller; an external kind's
    /// controller and webhook; a core kind with a webhook only.
    const PROJECT: &str = "cliVersion: 0.1.0
domain: example.com
layout:
- rust.rkb.io/v1
multigroup: true
namespaced: true
projectName: demo
repo: demo
resources:
- api:
    crdVersion: v1
  controllers:
  - name: frigate
  - name: frigate-backup
  domain: example.com
  group: ship
  kind: Frigate
  path: demo::api::ship::v1
  plural: frigatez
  version: v1
  webhooks:
    conversion: true
    defaulting: true
    defaultingPath: /my-mutate
    spoke:
    - v2
    webhookVersion: v1
- controller: true
  core: true
  group: apps
  kind: Deployment
  path: k8s_openapi::api::apps::v1
  version: v1
- controller: true
  domain: io
  external: true
  group: cert-manager
  kind: Certificate
  module: cert-manager-crds@0.3
  path: cert_manager_crds::v1
  version: v1
  webhooks:
    validation: true
    validationPath: /my-validate
    webhookVersion: v1
- core: true
  group: core
  kind: Pod
  path: k8s_openapi::api::core::v1
  version: v1
  webhooks:
    defaulting: true
    webhookVersion: v1
- api:
    crdVersion: v1
    namespaced: true
  domain: example.com
  group: ship
  kind: Frigate
  path: demo::api::ship::v2
  version: v2
sharded: true
version: '3'
";

    #[test]
    fn every_entry_of_project_becomes_the_command_that_made_it() {
        let config: ProjectConfig = serde_saphyr::from_str(PROJECT).unwrap();
        let header =
            "// Copyright 2026 The demo Authors.\n//\n// Licensed under the Apache License";
        let (init, rest) = commands(&config, Some(header));
        let lines: Vec<String> = std::iter::once(init)
            .chain(rest)
            .map(|args| args.join(" "))
            .collect();
        let kind = |g: &str, v: &str, k: &str| format!("--group {g} --version {v} --kind {k}");
        let certificate = kind("cert-manager", "v1", "Certificate");
        assert_eq!(
            lines,
            [
                "init --domain example.com --project-name demo --multigroup --namespaced --sharded --owner The demo Authors"
                    .to_string(),
                format!("create api {} --namespaced=false --plural frigatez", kind("ship", "v1", "Frigate")),
                format!("create api {} --resource=false", kind("apps", "v1", "Deployment")),
                format!(
                    "create api {certificate} --resource=false --external-api-path cert_manager_crds::v1 \
                     --external-api-crate cert-manager-crds@0.3 --external-api-domain io"
                ),
                format!(
                    "create webhook {certificate} --programmatic-validation --validation-path /my-validate"
                ),
                format!("create webhook {} --defaulting", kind("core", "v1", "Pod")),
                format!("create api {} --controller=false", kind("ship", "v2", "Frigate")),
                format!(
                    "create webhook {} --defaulting --defaulting-path /my-mutate --conversion --spoke v2",
                    kind("ship", "v1", "Frigate")
                ),
                format!("create api {} --resource=false --controller-name frigate-backup", kind("ship", "v1", "Frigate")),
                "manifests".to_string(),
            ]
        );
    }

    #[test]
    fn a_project_without_a_license_header_is_initialised_without_one() {
        let config: ProjectConfig = serde_saphyr::from_str(PROJECT).unwrap();
        for header in [None, Some(""), Some("\n")] {
            let (init, _) = commands(&config, header);
            assert_eq!(init[init.len() - 2..], ["--license", "none"]);
        }
    }
}
