//! `rkb init`: a new operator project, kubebuilder's go/v4 layout in Rust.

use std::path::Path;

use anyhow::{Context as _, Result, bail};

use super::project_data::ProjectData;
use super::runtime_source::{self, RuntimeSource};
use crate::args::InitArgs;
use crate::names;
use crate::project_config::{self, ProjectConfig};
use crate::scaffold::{Plan, Renderer};

/// Files init leaves alone when they exist; every other existing file stops init.
const KEPT_IF_PRESENT: [&str; 3] = ["README.md", ".gitignore", ".dockerignore"];

pub fn run(args: &InitArgs) -> Result<()> {
    let dir = &args.dir;
    refuse_initialised(dir)?;
    names::validate_domain(&args.domain)?;
    let project_name = match &args.project_name {
        Some(name) => name.clone(),
        None => default_project_name(dir)?,
    };
    names::validate_project_name(&project_name)?;

    let config = ProjectConfig {
        cli_version: super::version::SHORT.to_string(),
        domain: args.domain.clone(),
        layout: vec![project_config::LAYOUT.to_string()],
        multigroup: args.multigroup,
        namespaced: args.namespaced,
        project_name: project_name.clone(),
        repo: names::crate_ident(&project_name),
        resources: Vec::new(),
        sharded: args.sharded,
        version: "3".to_string(),
    };
    let runtime_source = RuntimeSource::choose(dir, args.rkb_source.as_deref())?;
    let data = ProjectData::new(&config, args.license, args.owner.as_deref());

    let renderer = Renderer::new();
    let mut plan = Plan::new(
        dir,
        "rkb init only creates files: move it away, or scaffold into an empty directory",
    );
    for template in rkb_templates::init() {
        // A repository created on a forge often has these already; they are the user's.
        if KEPT_IF_PRESENT.contains(&template.path) && plan.exists(Path::new(template.path)) {
            println!("kept the existing {}", template.path);
            continue;
        }
        plan.create(template.path, renderer.render(&template, &data)?, false)?;
    }
    plan.create(
        "hack/setup-envtest.sh",
        rkb_templates::SETUP_ENVTEST_SH.to_string(),
        false,
    )?;
    plan.create(project_config::FILE_NAME, config.render()?, false)?;
    if let Some(dev_config) = runtime_source.dev_config() {
        plan.create(runtime_source::DEV_CONFIG, dev_config, false)?;
    }
    plan.finish()?;
    if let Some(note) = runtime_source.note() {
        eprintln!("{note}");
    }

    println!(
        "Scaffolded project {project_name} (domain {}) in {}",
        args.domain,
        dir.display()
    );
    println!("Next: rkb create api --group <group> --version v1 --kind <Kind>");
    Ok(())
}

/// kubebuilder refuses to init over an existing project; so does rkb, before writing anything.
fn refuse_initialised(dir: &Path) -> Result<()> {
    if dir.join(project_config::FILE_NAME).exists() {
        bail!(
            "{} is already an rkb project (it has a PROJECT file); add APIs with `rkb create api` instead of running init again",
            dir.display()
        );
    }
    for existing in ["Cargo.toml", "src"] {
        if dir.join(existing).exists() {
            bail!(
                "{} already holds {existing}: rkb init scaffolds a new project; run it in an empty directory (or pass --dir)",
                dir.display()
            );
        }
    }
    Ok(())
}

fn default_project_name(dir: &Path) -> Result<String> {
    let abs =
        std::path::absolute(dir).with_context(|| format!("cannot resolve {}", dir.display()))?;
    let name = abs
        .file_name()
        .and_then(|n| n.to_str())
        .map(str::to_string)
        .with_context(|| {
            format!(
                "{} has no directory name; pass --project-name",
                dir.display()
            )
        })?;
    if let Some(problem) = names::project_name_problem(&name) {
        bail!(
            "the directory name {name:?} is not a valid project name: {problem}; pass --project-name my-operator"
        );
    }
    Ok(name)
}
