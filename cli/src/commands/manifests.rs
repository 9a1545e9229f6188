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
    if let Some(code) = upgrade_safety(args, &output)? {
        return Ok(code);
    }
    write_or_check(args, &output)
}

/// The CRD upgrade gate (docs/markers.md, "Breaking changes"): each breaking change from the baseline (the CRDs
/// of `--against <ref>`, else the files on disk) to what this run generates. With `--check` or `--against` they
/// are errors, and the run ends here (`Some(exit 1)`, nothing written); a plain run prints them as warnings and
/// writes: before a first release, types change freely, and the files on disk are no promise to anyone.
fn upgrade_safety(
    args: &ManifestsArgs,
    output: &rkb_manifests::Output,
) -> Result<Option<ExitCode>> {
    let baselines = baselines(args, output)?;
    let removed = removed_crds(args, output)?;
    let mut diags = Vec::new();
    if !baselines.is_empty() {
        diags = match rkb_manifests::compat_check(&args.dir, &baselines) {
            Ok(diags) => diags,
            Err(err @ rkb_manifests::Error::Diagnostics(_)) => {
                eprintln!("{err}");
                return Ok(Some(ExitCode::FAILURE));
            }
            Err(err) => return Err(err.into()),
        };
    }
    let removed: Vec<rkb_manifests::compat::RemovedCrd> = removed
        .iter()
        .map(|r| rkb_manifests::compat::RemovedCrd {
            source: &r.source,
            text: &r.text,
            why: &r.why,
        })
        .collect();
    diags.extend(rkb_manifests::compat::removed_crds(&args.dir, &removed)?);
    if diags.is_empty() {
        return Ok(None);
    }
    let refuse = refuses(args);
    for d in &diags {
        let d = if refuse {
            d.clone()
        } else {
            rkb_manifests::Diagnostic {
                severity: rkb_manifests::Severity::Warning,
                ..d.clone()
            }
        };
        eprintln!("{}", d.render());
    }
    let n = diags.len();
    let changes = if n == 1 { "change" } else { "changes" };
    if refuse {
        eprintln!(
            "error: nothing written: {n} breaking CRD {changes} against {}",
            baseline_name(args)
        );
        return Ok(Some(ExitCode::FAILURE));
    }
    eprintln!(
        "warning: {n} breaking CRD {changes} against the files on disk, written anyway (`rkb manifests --check --against <release tag>` refuses them once released)"
    );
    Ok(None)
}

/// Whether breaking changes end the run (`--check`, `--against`) rather than being warnings.
fn refuses(args: &ManifestsArgs) -> bool {
    args.check || args.against.is_some()
}

/// How messages name the baseline.
fn baseline_name(args: &ManifestsArgs) -> String {
    match &args.against {
        Some(git_ref) => format!("`{git_ref}`"),
        None => "the files on disk".into(),
    }
}

/// The baseline of each generated CRD that has one and breaks it (one it does not break has nothing to report):
/// the file at `--against <ref>` (read with `git show`), else the one on disk. A CRD the baseline did not have is
/// new, and breaks nothing.
fn baselines(
    args: &ManifestsArgs,
    output: &rkb_manifests::Output,
) -> Result<Vec<rkb_manifests::Baseline>> {
    if let Some(git_ref) = &args.against {
        // A path git cannot name inside the repository would find no baseline, and pass everything.
        if args.crd_dir.is_absolute() {
            anyhow::bail!(
                "--against {git_ref} reads the CRDs from git, so --crd-dir must be relative to the project, not {}",
                args.crd_dir.display()
            );
        }
        verify_ref(&args.dir, git_ref)?;
    }
    let mut out = Vec::new();
    for crd in &output.crds {
        let rel = args.crd_dir.join(&crd.file_name);
        let (source, text) = match &args.against {
            Some(git_ref) => match git_show(&args.dir, git_ref, &rel)? {
                Some(text) => (format!("{git_ref}:{}", rel.display()), text),
                None => continue,
            },
            None => match std::fs::read_to_string(args.dir.join(&rel)) {
                Ok(text) => (rel.display().to_string(), text),
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => continue,
                Err(e) => {
                    return Err(anyhow::Error::new(e).context(format!("reading {}", rel.display())));
                }
            },
        };
        if text == crd.yaml {
            continue;
        }
        let options = serde_saphyr::options! { budget: None };
        let document = match serde_saphyr::from_str_with_options::<serde_json::Value>(
            &text, options,
        ) {
            Ok(document) => document,
            // The gate cannot pass what it cannot read; a plain run rewrites the file, so it only says so.
            Err(e) if refuses(args) => anyhow::bail!(
                "{source} is not a CRD's YAML, so nothing can be compared with it: {e}"
            ),
            Err(e) => {
                eprintln!(
                    "warning: {source} is not a CRD's YAML, so it is not compared with what is written over it: {e}"
                );
                continue;
            }
        };
        // The same comparison compat_check makes, on the YAML in hand: only a CRD with a finding is worth
        // reading the sources again for, to place the findings (and drop the acknowledged ones).
        let generated = serde_saphyr::from_str_with_options::<serde_json::Value>(
            &crd.yaml,
            serde_saphyr::options! { budget: None },
        )?;
        if rkb_manifests::compat::compare(&document, &generated).is_empty() {
            continue;
        }
        out.push(rkb_manifests::Baseline {
            file_name: crd.file_name.clone(),
            source,
            document,
        });
    }
    Ok(out)
}

/// A CRD file of the baseline without a generated CRD of its name.
struct Removed {
    /// Where it was read, as messages name it.
    source: String,
    text: String,
    /// Why the project no longer generates it (`Output::why_not_generated`).
    why: String,
}

/// The CRDs of the baseline this run no longer generates (the `crd-removed` rule): on disk, the files a plain
/// `rkb manifests` removes (`stale_crds`: the CRD files rkb wrote); at `--against <ref>`, the files of the CRD
/// directory there that rkb wrote (the same test: a CRD with controller-gen's version annotation) and no
/// generated CRD has the name of.
fn removed_crds(args: &ManifestsArgs, output: &rkb_manifests::Output) -> Result<Vec<Removed>> {
    let removed = |source: String, text: String| Removed {
        why: output.why_not_generated(&text),
        source,
        text,
    };
    let Some(git_ref) = &args.against else {
        let mut out = Vec::new();
        for rel in rkb_manifests::stale_crds(&args.dir, &options(args), output)? {
            let text = std::fs::read_to_string(args.dir.join(&rel))
                .map_err(|e| anyhow::Error::new(e).context(format!("reading {}", rel.display())))?;
            out.push(removed(rel.display().to_string(), text));
        }
        return Ok(out);
    };
    let dir = format!("./{}/", args.crd_dir.display());
    let listed = git(&args.dir, &["ls-tree", "--name-only", git_ref, "--", &dir])?;
    if !listed.status.success() {
        anyhow::bail!(
            "git ls-tree {git_ref} {dir} failed: {}",
            String::from_utf8_lossy(&listed.stderr).trim()
        );
    }
    let mut out = Vec::new();
    for rel in String::from_utf8(listed.stdout)?.lines() {
        let rel = std::path::Path::new(rel);
        let Some(name) = rel.file_name().and_then(|n| n.to_str()) else {
            continue;
        };
        if !name.ends_with(".yaml") || output.crds.iter().any(|c| c.file_name == name) {
            continue;
        }
        let Some(text) = git_show(&args.dir, git_ref, rel)? else {
            continue;
        };
        if rkb_manifests::is_generated_crd(&text) {
            out.push(removed(format!("{git_ref}:{}", rel.display()), text));
        }
    }
    Ok(out)
}

/// `git` in the project directory.
fn git(dir: &std::path::Path, args: &[&str]) -> Result<std::process::Output> {
    std::process::Command::new("git")
        .arg("-C")
        .arg(dir)
        .args(args)
        .output()
        .map_err(|e| anyhow::anyhow!("--against needs git, which did not run: {e}"))
}

/// Refuses a `--against` that names no commit.
fn verify_ref(dir: &std::path::Path, git_ref: &str) -> Result<()> {
    let out = git(
        dir,
        &[
            "rev-parse",
            "--verify",
            "--quiet",
            &format!("{git_ref}^{{commit}}"),
        ],
    )?;
    if !out.status.success() {
        anyhow::bail!(
            "--against {git_ref}: no such commit or tag in the git repository of {} (list the tags with `git tag`)",
            dir.display()
        );
    }
    Ok(())
}

/// The text of `rel` (relative to the project directory) at `git_ref`; `None` when the ref has no such file.
fn git_show(dir: &std::path::Path, git_ref: &str, rel: &std::path::Path) -> Result<Option<String>> {
    // `<ref>:./<path>` is relative to the directory git runs in: the project may sit below the repository's root.
    let spec = format!("{git_ref}:./{}", rel.display());
    if !git(dir, &["cat-file", "-e", &spec])?.status.success() {
        return Ok(None);
    }
    let out = git(dir, &["show", &spec])?;
    if !out.status.success() {
        anyhow::bail!(
            "git show {spec} failed: {}",
            String::from_utf8_lossy(&out.stderr).trim()
        );
    }
    Ok(Some(String::from_utf8(out.stdout)?))
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
