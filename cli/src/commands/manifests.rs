//! `rkb manifests`: CRDs, RBAC and webhook configurations from markers, through rkb-manifests (controller-gen's
//! `crd rbac webhook` for Rust).

use std::process::ExitCode;

use anyhow::Result;
use rkb_manifests::Options;

use crate::args::ManifestsArgs;
use crate::project_config::{self, ProjectConfig};

pub fn run(args: &ManifestsArgs) -> Result<ExitCode> {
    let root = &args.dir;
    if !root.join("Cargo.toml").is_file() {
        anyhow::bail!(
            "{} holds no Cargo.toml: run rkb manifests in a project (or pass --dir <project>)",
            root.display()
        );
    }
    let output = match rkb_manifests::generate(root, &options(args)) {
        Ok(output) => output,
        Err(err @ rkb_manifests::Error::Diagnostics(_)) => {
            // Diagnostics come rendered rustc-style (file:line:col, source line, caret, hint), all of them.
            eprintln!("{err}");
            return Ok(ExitCode::FAILURE);
        }
        // Not a diagnostic (an I/O failure): the "error:" line and its causes, as every other failure.
        Err(err) => return Err(err.into()),
    };
    for warning in &output.warnings {
        eprintln!("{}", warning.render());
    }
    // PROJECT, when there is one, records what rkb scaffolded: each kind's CRD is expected, and a conversion's versions.
    if root.join(project_config::FILE_NAME).exists() {
        let config = ProjectConfig::load(root)?;
        for warning in super::listed_kinds::warnings(root, &config, &output) {
            eprintln!("{}", warning.render());
        }
        let unconverted = unconverted_versions(&config, &output);
        if !unconverted.is_empty() {
            for error in &unconverted {
                eprintln!("{error}");
            }
            eprintln!(
                "error: nothing written: the CRDs would serve versions their conversion webhook cannot convert"
            );
            return Ok(ExitCode::FAILURE);
        }
    }
    write_or_check(args, &output)
}

/// The run's end: the diff with `--check`, else the files written (and removed).
fn write_or_check(args: &ManifestsArgs, output: &rkb_manifests::Output) -> Result<ExitCode> {
    let (root, opts) = (&args.dir, options(args));
    if args.check {
        return Ok(match rkb_manifests::check(root, &opts, output)? {
            None => ExitCode::SUCCESS,
            Some(diff) => {
                print!("{diff}");
                eprintln!(
                    "error: manifests are stale; run `rkb manifests` (or `make manifests`) and commit the result"
                );
                ExitCode::FAILURE
            }
        });
    }
    // Why each stale CRD goes, read before `write` removes it.
    let reasons: Vec<(std::path::PathBuf, String)> =
        rkb_manifests::stale_crds(root, &opts, output)?
            .into_iter()
            .map(|rel| {
                let path = root.join(&rel);
                let text = std::fs::read_to_string(&path).unwrap_or_default();
                (path, output.why_not_generated(&text))
            })
            .collect();
    let done = rkb_manifests::write(root, &opts, output)?;
    for path in &done.written {
        println!("wrote {}", path.display());
    }
    for path in &done.removed {
        let reason = reasons
            .iter()
            .find(|(p, _)| p == path)
            .map_or("no kind generates it any more", |(_, r)| r.as_str());
        println!("removed {} ({reason})", path.display());
        warn_if_still_listed(root, &opts, path);
    }
    Ok(ExitCode::SUCCESS)
}

fn options(args: &ManifestsArgs) -> Options {
    Options {
        crd_dir: args.crd_dir.clone(),
        rbac_dir: args.rbac_dir.clone(),
        webhook_dir: args.webhook_dir.clone(),
        max_desc_len: args.max_desc_len,
        ..Options::default()
    }
}

/// A removed CRD that config/crd/kustomization.yaml still lists would make `kubectl kustomize` fail: say so, with
/// the line to delete (the kustomization is the user's file, so rkb does not edit it).
fn warn_if_still_listed(root: &std::path::Path, opts: &Options, removed: &std::path::Path) {
    let Some(name) = removed
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
    else {
        return;
    };
    let Some(crd_root) = opts.crd_dir.parent() else {
        return;
    };
    let kustomization = crd_root.join("kustomization.yaml");
    let Ok(text) = std::fs::read_to_string(root.join(&kustomization)) else {
        return;
    };
    if let Some((n, line)) = text
        .lines()
        .enumerate()
        .find(|(_, l)| l.trim() == format!("- bases/{name}"))
    {
        eprintln!(
            "warning: {}:{} still lists the removed CRD: delete the line `{}`, or kustomize fails",
            kustomization.display(),
            n + 1,
            line.trim()
        );
    }
}

/// A kind whose PROJECT entry records a conversion (`conversion: true` on its hub) gets every other version it
/// serves sent to the conversion webhook, which converts only the spokes registered with the hub: a version left
/// out would fail every read and write of it. One error per such version.
fn unconverted_versions(config: &ProjectConfig, output: &rkb_manifests::Output) -> Vec<String> {
    let mut errors = Vec::new();
    for resource in &config.resources {
        let Some(webhooks) = resource.webhooks.as_ref().filter(|w| w.conversion) else {
            continue;
        };
        let group = resource.full_group();
        let Some(crd) = output
            .crds
            .iter()
            .find(|c| c.group == group && c.kind == resource.kind)
        else {
            continue;
        };
        for version in crd_versions(&crd.yaml) {
            if version == resource.version || webhooks.spoke.contains(&version) {
                continue;
            }
            let (kind, hub) = (&resource.kind, &resource.version);
            errors.push(format!(
                "error: {kind} ({group}) serves {version}, which has no conversion: PROJECT records conversion \
                 through hub {hub} for spokes [{}] only, so the API server could not read or write {version}\n  \
                 = help: register `.conversion::<{hub}::{kind}, {version}::{kind}>()` in the hub's webhooks() (with \
                 From/TryFrom impls both ways) and add {version} to `spoke:` of {kind} {hub} in PROJECT; or drop \
                 {version}",
                webhooks.spoke.join(", ")
            ));
        }
    }
    errors
}

/// The `spec.versions[].name` of a CRD's YAML. No parser budget: this is rkb's own output, and the default's depth
/// limit (64) is within reach of a CRD that embeds pod templates (36 levels in examples/cronjob).
pub(super) fn crd_versions(yaml: &str) -> Vec<String> {
    let options = serde_saphyr::options! { budget: None };
    let Ok(crd) = serde_saphyr::from_str_with_options::<serde_json::Value>(yaml, options) else {
        return Vec::new();
    };
    crd["spec"]["versions"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|v| v["name"].as_str().map(str::to_string))
        .collect()
}
