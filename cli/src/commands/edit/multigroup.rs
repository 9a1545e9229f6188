//! `rkb edit --multigroup`: the single-group layout's files moved under their group, as `rkb create api` in a
//! multigroup project would have placed them; `--multigroup=false` moves them back (a project whose APIs are all
//! in one group), folding the group modules into their parents, so that the two undo each other byte for byte:
//!
//! | single group                           | multigroup                                        |
//! |----------------------------------------|---------------------------------------------------|
//! | src/api/<version>/                     | src/api/<group>/<version>/                        |
//! | src/controller/<kind>_controller.rs    | src/controller/<group>/<kind>_controller.rs       |
//! | src/webhook/<version>/                 | src/webhook/<group>/<version>/                    |
//! | tests/<kind>_controller.rs             | tests/<group>_<kind>_controller.rs                |
//! | tests/<version>_<kind>_webhook.rs      | tests/<group>_<version>_<kind>_webhook.rs         |
//!
//! (`<group>` is the group's Rust module name.) The paths that name the moved modules are rewritten in every `.rs`
//! file of src/ and tests/: `::api::<version>`, `::webhook::<version>` and `::controller::<kind>_controller`
//! (followed by anything but an identifier character), and the relative `<version>::` entries of
//! `webhook::webhooks()`. Paths written otherwise (`use crate::api::{v1, v2}`) are the user's to fix; the build
//! names them. config/ is left as it is: the per-kind role files keep their names, which only new kinds take
//! from the group.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::{Result, bail};

use super::{files_below, rust_files};
use crate::commands::create_api::{add_module, insert};
use crate::commands::create_webhook::declare_module;
use crate::names;
use crate::project_config::ProjectConfig;
use crate::scaffold::Plan;

/// Moves the project to the multigroup layout (`to_multigroup`) or back to the single-group one.
pub fn plan(plan: &mut Plan, config: &mut ProjectConfig, to_multigroup: bool) -> Result<()> {
    config.multigroup = to_multigroup;
    let groups: BTreeSet<&str> = config.resources.iter().map(|r| r.group.as_str()).collect();
    if groups.len() > 1 {
        let listed: Vec<&str> = groups.into_iter().collect();
        bail!(
            "--multigroup=false: this project has APIs in {} groups ({}), and the single-group layout holds one",
            listed.len(),
            listed.join(", ")
        );
    }
    let Some(group) = groups.first().map(|g| g.to_string()) else {
        return Ok(());
    };
    names::validate_group_module(&group)?;
    let group_mod = names::group_module(&group);
    let layout = Layout::of(config, &group_mod);
    let moves = layout.moves(plan.root(), to_multigroup)?;
    check_committed(plan.root(), &moves)?;
    for (from, to) in &moves {
        let text = plan.read(from)?;
        plan.create(to, text, false)?;
        plan.remove(from);
    }
    if to_multigroup {
        layout.declare_modules(plan)?;
    } else {
        layout.fold_modules(plan)?;
    }
    let crate_ident = names::crate_ident(&config.project_name);
    let mut rules = layout.path_rules(&crate_ident);
    if !to_multigroup {
        rules = rules
            .into_iter()
            .map(|(single, multi)| (multi, single))
            .collect();
    }
    let root = plan.root().to_path_buf();
    let mut sources = rust_files(&root, Path::new("src"))?;
    sources.extend(rust_files(&root, Path::new("tests"))?);
    // The sources as the plan leaves them: the moved files at their new paths, the removed ones gone.
    sources.retain(|source| !plan.is_removed(source));
    sources.extend(
        (moves.iter())
            .map(|(_, to)| to.clone())
            .filter(|to| to.extension().is_some_and(|e| e == "rs")),
    );
    for source in sources {
        let text = plan.read(&source)?;
        let updated = rules
            .iter()
            .fold(text, |text, (from, to)| replace_path(&text, from, to));
        plan.update(source, updated)?;
    }
    for resource in &mut config.resources {
        let single = format!("{crate_ident}::api::{}", resource.version);
        let multi = format!("{crate_ident}::api::{group_mod}::{}", resource.version);
        let (from, to) = if to_multigroup {
            (single, multi)
        } else {
            (multi, single)
        };
        if resource.path.as_deref() == Some(from.as_str()) {
            resource.path = Some(to);
        }
    }
    Ok(())
}

/// What the project has that moves: its API versions, the kinds with controllers, the versions with webhooks.
struct Layout {
    group_mod: String,
    api_versions: BTreeSet<String>,
    /// `<kind>_controller` modules.
    controllers: BTreeSet<String>,
    /// (version, lower-case kind) of each kind's webhooks.
    webhooks: BTreeSet<(String, String)>,
}

impl Layout {
    fn of(config: &ProjectConfig, group_mod: &str) -> Self {
        let resources = &config.resources;
        Layout {
            group_mod: group_mod.to_string(),
            api_versions: (resources.iter())
                .filter(|r| r.api.is_some())
                .map(|r| r.version.clone())
                .collect(),
            controllers: (resources.iter())
                .filter(|r| r.controller)
                .map(|r| format!("{}_controller", r.kind.to_lowercase()))
                .collect(),
            webhooks: (resources.iter())
                .filter(|r| r.webhooks.is_some())
                .map(|r| (r.version.clone(), r.kind.to_lowercase()))
                .collect(),
        }
    }

    fn webhook_versions(&self) -> BTreeSet<&String> {
        self.webhooks.iter().map(|(version, _)| version).collect()
    }

    /// (from, to) of every file that exists and moves, towards the multigroup layout or back.
    fn moves(&self, root: &Path, to_multigroup: bool) -> Result<Vec<(PathBuf, PathBuf)>> {
        let g = &self.group_mod;
        // (single-group path, multigroup path) of each directory and file that moves.
        let mut pairs: Vec<(PathBuf, PathBuf)> = Vec::new();
        for (dir, versions) in [
            ("src/api", self.api_versions.iter().collect::<BTreeSet<_>>()),
            ("src/webhook", self.webhook_versions()),
        ] {
            for version in versions {
                let single = Path::new(dir).join(version);
                let multi = Path::new(dir).join(g).join(version);
                let (from_dir, to_dir) = if to_multigroup {
                    (single, multi)
                } else {
                    (multi, single)
                };
                for file in files_below(root, &from_dir)? {
                    let rest = file.strip_prefix(&from_dir).expect("below its directory");
                    let to = to_dir.join(rest);
                    pairs.push(if to_multigroup {
                        (file, to)
                    } else {
                        (to, file)
                    });
                }
            }
        }
        for module in &self.controllers {
            pairs.push((
                PathBuf::from(format!("src/controller/{module}.rs")),
                PathBuf::from(format!("src/controller/{g}/{module}.rs")),
            ));
            pairs.push((
                PathBuf::from(format!("tests/{module}.rs")),
                PathBuf::from(format!("tests/{g}_{module}.rs")),
            ));
        }
        for (version, kind) in &self.webhooks {
            pairs.push((
                PathBuf::from(format!("tests/{version}_{kind}_webhook.rs")),
                PathBuf::from(format!("tests/{g}_{version}_{kind}_webhook.rs")),
            ));
        }
        let mut moves: Vec<(PathBuf, PathBuf)> = pairs
            .into_iter()
            .map(|(single, multi)| {
                if to_multigroup {
                    (single, multi)
                } else {
                    (multi, single)
                }
            })
            .collect();
        moves.retain(|(from, _)| root.join(from).is_file());
        for (_, to) in &moves {
            if root.join(to).exists() {
                bail!(
                    "{} exists already, so rkb cannot move the {} layout's file there; move it away and run again",
                    to.display(),
                    if to_multigroup {
                        "single-group"
                    } else {
                        "multigroup"
                    }
                );
            }
        }
        Ok(moves)
    }

    /// The group modules (src/api/<group>/mod.rs, ...) folded into their parents: the parent declares the
    /// versions (or controllers) again, where it declared the group. What `declare_modules` undoes.
    fn fold_modules(&self, plan: &mut Plan) -> Result<()> {
        let g = &self.group_mod;
        let versions: Vec<String> = self.api_versions.iter().cloned().collect();
        if !versions.is_empty() {
            fold_group_module(plan, Path::new("src/api"), g, &versions)?;
        }
        let controllers: Vec<String> = (self.controllers.iter())
            .filter(|m| plan.exists(&Path::new("src/controller").join(g).join(format!("{m}.rs"))))
            .cloned()
            .collect();
        if !controllers.is_empty() {
            fold_group_module(plan, Path::new("src/controller"), g, &controllers)?;
        }
        let webhook_mod = Path::new("src/webhook/mod.rs");
        let versions: Vec<String> = self.webhook_versions().into_iter().cloned().collect();
        if !versions.is_empty() && plan.exists(webhook_mod) {
            fold_group_module(plan, Path::new("src/webhook"), g, &versions)?;
            move_webhook_entries(plan, webhook_mod, g, &versions, false)?;
        }
        Ok(())
    }

    /// The group modules (src/api/<group>/mod.rs, ...) declaring what moved, in place of the old declarations.
    fn declare_modules(&self, plan: &mut Plan) -> Result<()> {
        let g = &self.group_mod;
        let api = Path::new("src/api/mod.rs");
        let marker = "rkb:scaffold:api-modules";
        let versions: Vec<String> = self.api_versions.iter().cloned().collect();
        if !versions.is_empty() {
            replace_declarations(plan, api, &versions, g)?;
            add_module(plan, api, marker, g)?;
            let declared: Vec<String> = versions.iter().map(|v| format!("pub mod {v};")).collect();
            insert(
                plan,
                &Path::new("src/api").join(g).join("mod.rs"),
                marker,
                &declared,
            )?;
        }
        let controllers: Vec<String> = (self.controllers.iter())
            .filter(|m| plan.exists(&Path::new("src/controller").join(format!("{m}.rs"))))
            .cloned()
            .collect();
        if !controllers.is_empty() {
            let parent = Path::new("src/controller/mod.rs");
            let marker = "rkb:scaffold:controller-modules";
            replace_declarations(plan, parent, &controllers, g)?;
            add_module(plan, parent, marker, g)?;
            let declared: Vec<String> = controllers
                .iter()
                .map(|m| format!("pub mod {m};"))
                .collect();
            insert(
                plan,
                &Path::new("src/controller").join(g).join("mod.rs"),
                marker,
                &declared,
            )?;
        }
        let webhook_mod = Path::new("src/webhook/mod.rs");
        let versions: Vec<String> = self.webhook_versions().into_iter().cloned().collect();
        if !versions.is_empty() && plan.exists(webhook_mod) {
            replace_declarations(plan, webhook_mod, &versions, g)?;
            declare_module(plan, webhook_mod, g)?;
            for version in &versions {
                declare_module(
                    plan,
                    &Path::new("src/webhook").join(g).join("mod.rs"),
                    version,
                )?;
            }
            move_webhook_entries(plan, webhook_mod, g, &versions, true)?;
        }
        Ok(())
    }

    /// (old path, new path) of every moved module, as the project's code names it: from `crate::` or the crate's
    /// name (another crate's `api::v1` is not the project's).
    fn path_rules(&self, crate_ident: &str) -> Vec<(String, String)> {
        let g = &self.group_mod;
        let mut modules: Vec<(String, String)> = Vec::new();
        for version in &self.api_versions {
            modules.push((format!("api::{version}"), format!("api::{g}::{version}")));
        }
        for version in self.webhook_versions() {
            modules.push((
                format!("webhook::{version}"),
                format!("webhook::{g}::{version}"),
            ));
        }
        for module in &self.controllers {
            modules.push((
                format!("controller::{module}"),
                format!("controller::{g}::{module}"),
            ));
        }
        let mut rules = Vec::new();
        for root in ["crate", crate_ident] {
            for (from, to) in &modules {
                rules.push((format!("{root}::{from}"), format!("{root}::{to}")));
            }
        }
        rules
    }
}

/// Replaces the `pub mod <module>;` lines of `modules` in `mod_rs` by one `pub mod <group>;` where the first was;
/// a module not declared that way refuses the edit.
fn replace_declarations(
    plan: &mut Plan,
    mod_rs: &Path,
    modules: &[String],
    group: &str,
) -> Result<()> {
    let text = plan.read(mod_rs)?;
    let mut lines: Vec<String> = text.lines().map(str::to_string).collect();
    let mut first = None;
    for module in modules {
        let line = format!("pub mod {module};");
        let Some(at) = lines.iter().position(|l| l.trim() == line) else {
            bail!(
                "{} has no `{line}` line, so rkb cannot tell how it declares the module it moves; declare it that way and run again",
                mod_rs.display()
            );
        };
        lines.remove(at);
        first = Some(first.map_or(at, |f: usize| f.min(at)));
    }
    if let Some(at) = first {
        lines.insert(at, format!("pub mod {group};"));
    }
    plan.update(mod_rs, lines.join("\n") + "\n")
}

/// `webhooks()` in src/webhook/mod.rs lists each kind's webhooks by a path relative to the webhook module:
/// `<version>::<kind>_webhook::webhooks()` in the single-group layout, `<group>::<version>::...` in the multigroup
/// one. Rewrites those entries towards `to_multigroup`'s layout.
fn move_webhook_entries(
    plan: &mut Plan,
    webhook_mod: &Path,
    group: &str,
    versions: &[String],
    to_multigroup: bool,
) -> Result<()> {
    let text = plan.read(webhook_mod)?;
    let entries: Vec<String> = text
        .lines()
        .map(|line| {
            let entry = line.trim_start();
            let indent = &line[..line.len() - entry.len()];
            let single = entry.strip_prefix(&format!("{group}::")).unwrap_or(entry);
            let listed = versions
                .iter()
                .any(|v| single.starts_with(&format!("{v}::")));
            match (listed, to_multigroup) {
                (true, true) if single == entry => format!("{indent}{group}::{entry}"),
                (true, false) if single != entry => format!("{indent}{single}"),
                _ => line.to_string(),
            }
        })
        .collect();
    plan.update(webhook_mod, entries.join("\n") + "\n")
}

/// Removes `<dir>/<group>/mod.rs` and declares its `modules` in `<dir>/mod.rs` where that declared the group. The
/// group's mod.rs may hold only what rkb wrote there: comments, blank lines and those declarations.
fn fold_group_module(plan: &mut Plan, dir: &Path, group: &str, modules: &[String]) -> Result<()> {
    let group_rs = dir.join(group).join("mod.rs");
    let declarations: Vec<String> = modules.iter().map(|m| format!("pub mod {m};")).collect();
    let text = plan.read(&group_rs)?;
    if let Some(line) = text
        .lines()
        .map(str::trim)
        .find(|l| !(l.is_empty() || l.starts_with("//") || declarations.iter().any(|d| d == l)))
    {
        bail!(
            "{}: `{line}` is more than the declarations rkb moves back, so rkb cannot fold the group module into {}; move it and run again",
            group_rs.display(),
            dir.join("mod.rs").display()
        );
    }
    plan.remove(group_rs);
    let parent = dir.join("mod.rs");
    let text = plan.read(&parent)?;
    let mut lines: Vec<String> = text.lines().map(str::to_string).collect();
    let group_line = format!("pub mod {group};");
    let Some(at) = lines.iter().position(|l| l.trim() == group_line) else {
        bail!(
            "{} has no `{group_line}` line, so rkb cannot tell where to declare the modules it moves back; declare the group that way and run again",
            parent.display()
        );
    };
    lines.splice(at..=at, declarations);
    plan.update(parent, lines.join("\n") + "\n")
}

/// `text` with each `from` that is a whole path (no identifier character right before or after it) replaced by
/// `to`.
fn replace_path(text: &str, from: &str, to: &str) -> String {
    let ident = |c: char| c.is_alphanumeric() || c == '_';
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find(from) {
        let after = &rest[at + from.len()..];
        out.push_str(&rest[..at]);
        let whole = !after.starts_with(ident) && !out.ends_with(ident);
        out.push_str(if whole { to } else { from });
        rest = after;
    }
    out.push_str(rest);
    out
}

/// A move must be undoable with git: the project is in a git work tree, and no file that moves differs from what
/// is committed (modified, staged, or not tracked at all).
fn check_committed(root: &Path, moves: &[(PathBuf, PathBuf)]) -> Result<()> {
    // GIT_OPTIONAL_LOCKS=0: `git status` must not refresh the index, or a refused edit would change .git.
    let git = |args: &[&str]| {
        Command::new("git")
            .arg("-C")
            .arg(root)
            .args(args)
            .env("GIT_OPTIONAL_LOCKS", "0")
            .output()
    };
    let inside = match git(&["rev-parse", "--is-inside-work-tree"]) {
        Ok(out) => out.status.success(),
        Err(err) => bail!(
            "rkb edit --multigroup moves files and asks git first whether they are committed, but git does not run ({err}); install git and run again"
        ),
    };
    if !inside {
        bail!(
            "the project ({}) is not in a git work tree: rkb edit --multigroup moves files, and does so only where git holds them committed (so the move can be undone); run `git init`, commit the project, and run again",
            root.display()
        );
    }
    if moves.is_empty() {
        return Ok(());
    }
    let mut args = vec!["status", "--porcelain", "--untracked-files=all", "--"];
    args.extend(
        moves
            .iter()
            .map(|(from, _)| from.to_str().unwrap_or_default()),
    );
    let out = git(&args)?;
    let dirty: Vec<String> = String::from_utf8_lossy(&out.stdout)
        .lines()
        .map(|l| l.get(3..).unwrap_or(l).to_string())
        .collect();
    if !out.status.success() || !dirty.is_empty() {
        bail!(
            "rkb edit --multigroup would move files that are not committed as they are ({}); commit them (or stash the changes) and run again",
            dirty.join(", ")
        );
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::replace_path;

    #[test]
    fn paths_are_replaced_only_where_the_module_name_ends() {
        let text = "use crate::api::v1::Kind;\nuse crate::api::v1 as hub;\nuse crate::api::v1beta1::Other;\nuse xcrate::api::v1::K;\n";
        assert_eq!(
            replace_path(text, "crate::api::v1", "crate::api::devops::v1"),
            "use crate::api::devops::v1::Kind;\nuse crate::api::devops::v1 as hub;\nuse crate::api::v1beta1::Other;\nuse xcrate::api::v1::K;\n"
        );
    }
}
