//! `rkb edit`: kubebuilder's `edit` for an rkb project, changing its layout after `init`.
//!
//! - `--multigroup` moves every API, controller, webhook and their tests under the project's one group
//!   (src/api/<version>/ to src/api/<group>/<version>/, ...), fixes the `mod` declarations and the `::api::<version>`,
//!   `::webhook::<version>` and `::controller::<kind>_controller` paths in the project's own sources, and records
//!   the layout and the new type paths in PROJECT. kubebuilder only flips PROJECT and leaves the moves to the user;
//!   rkb moves the files it scaffolded, because it knows where they are. Files that git does not have committed
//!   as they are refuse the move (a move must be undoable with git), and so does a directory that is not a git
//!   work tree. `--multigroup=false` moves them back, for a project whose APIs are all in one group.
//! - `--namespaced` / `--namespaced=false` do what `rkb init --namespaced` would have: the manager's `--namespaced`
//!   flag and WATCH_NAMESPACE in config/manager/manager.yaml, a RoleBinding (or ClusterRoleBinding) in
//!   config/rbac/role_binding.yaml, and `namespace=<project>-system` on the RBAC markers of the controllers, so the
//!   next `rkb manifests` writes a Role (or ClusterRole). Each edit finds the lines `init` wrote; a file edited past
//!   recognition refuses the run, naming the file and the line to change by hand.
//! - `--sharded` / `--sharded=false` do what `rkb init --sharded` would have: 3 replicas run with `--sharded`, the
//!   shard ring's Lease rights, and `.sharded()` on the controllers `create api` wrote (see [`sharded`]).
//!
//! - `--plugins grafana` writes kubebuilder's Grafana dashboards for the metrics rkb exports (see [`grafana`]).
//! - `--plugins helm` writes a Helm chart generated from config/default's render into dist/chart (see [`helm`]).
//!
//! All changes go through one [`Plan`]: a refusal leaves the tree byte-identical.

mod grafana;
mod helm;
mod multigroup;
mod sharded;

use std::path::{Path, PathBuf};

use anyhow::{Result, bail};

use crate::args::EditArgs;
use crate::project_config::{self, ProjectConfig};
use crate::scaffold::Plan;

pub fn run(args: &EditArgs) -> Result<()> {
    let dir = &args.dir;
    let plugins = match args.plugins.as_deref() {
        None => Plugins::default(),
        Some(plugins) => Plugins::parse(plugins)?,
    };
    if !dir.join(project_config::FILE_NAME).exists() {
        bail!(
            "{} is not an rkb project (no PROJECT file): run `rkb edit` in the project, or pass --dir <project>",
            dir.display()
        );
    }
    if args.multigroup.is_none()
        && args.namespaced.is_none()
        && args.sharded.is_none()
        && plugins == Plugins::default()
    {
        bail!(
            "nothing to edit: pass --multigroup, --namespaced, --sharded (each takes =false too) or --plugins grafana,helm (rkb edit --help lists what each changes)"
        );
    }
    let mut config = ProjectConfig::load(dir)?;
    let mut plan = Plan::new(dir, "it is in the way of the move; move it away first");
    let mut done = Vec::new();
    if let Some(wanted) = args.multigroup {
        if wanted == config.multigroup {
            done.push(format!(
                "PROJECT is already {}; layout unchanged",
                layout_name(wanted)
            ));
        } else {
            multigroup::plan(&mut plan, &mut config, wanted)?;
            done.push(if wanted {
                "moved the APIs, controllers and webhooks under their group (multigroup layout)"
                    .into()
            } else {
                "moved the APIs, controllers and webhooks out of their group (single-group layout)"
                    .into()
            });
        }
    }
    if let Some(wanted) = args.namespaced {
        if wanted == config.namespaced {
            done.push(format!(
                "the manager is already {}; unchanged",
                NAMESPACED.state(wanted)
            ));
        } else {
            namespaced(&mut plan, &config, wanted)?;
            config.namespaced = wanted;
            if wanted && config.resources.iter().any(|r| r.webhooks.is_some()) {
                // As kubebuilder warns: the webhook configurations are cluster-wide objects.
                done.push("note: the webhooks still receive requests from every namespace; add a namespaceSelector to their configurations to match the manager's".into());
            }
            done.push(format!(
                "made the manager {}: run `rkb manifests` (make manifests) for config/rbac/role.yaml to become a {}",
                NAMESPACED.state(wanted),
                if wanted { "Role" } else { "ClusterRole" }
            ));
        }
    }
    if let Some(wanted) = args.sharded {
        if wanted == config.sharded {
            done.push(format!(
                "the manager is already {}; unchanged",
                sharded::SHARDED.state(wanted)
            ));
        } else {
            done.extend(sharded::plan(&mut plan, &config, wanted)?);
            config.sharded = wanted;
        }
    }
    if plugins.grafana {
        done.extend(grafana::plan(&mut plan)?);
    }
    if plugins.helm {
        // After the other edits: the chart is made from config/ as this run leaves it on disk; an edit that also
        // changes config/ (--namespaced, --sharded) takes effect in the chart on the next `make helm-chart`.
        done.extend(helm::plan(&mut plan, &config)?);
    }
    plan.update(project_config::FILE_NAME, config.render()?)?;
    plan.finish()?;
    for line in done {
        println!("{line}");
    }
    Ok(())
}

/// The plugins of `--plugins`.
#[derive(Debug, Default, PartialEq, Eq)]
struct Plugins {
    grafana: bool,
    helm: bool,
}

impl Plugins {
    /// A comma-separated list, as kubebuilder takes it; rkb ports grafana and helm (kubebuilder's v2-alpha, the
    /// chart generated from the kustomize output; its deprecated v1-alpha is not ported).
    fn parse(plugins: &str) -> Result<Self> {
        let mut wanted = Self::default();
        for plugin in plugins.split(',').map(str::trim) {
            match plugin {
                "grafana" | "grafana.kubebuilder.io/v1-alpha" => wanted.grafana = true,
                "helm" | "helm.kubebuilder.io/v2-alpha" => wanted.helm = true,
                _ => bail!(
                    "--plugins {plugins}: rkb has no plugin `{plugin}`: `rkb edit` takes --plugins grafana (kubebuilder's grafana.kubebuilder.io/v1-alpha) and helm (helm.kubebuilder.io/v2-alpha); kubebuilder's helm/v1-alpha and deploy-image plugins are not ported"
                ),
            }
        }
        Ok(wanted)
    }
}

fn layout_name(multigroup: bool) -> &'static str {
    if multigroup {
        "multigroup"
    } else {
        "single-group"
    }
}

/// The manager's scope: its flag and WATCH_NAMESPACE, its binding, and the controllers' RBAC markers.
fn namespaced(plan: &mut Plan, config: &ProjectConfig, wanted: bool) -> Result<()> {
    let manager = Path::new("config/manager/manager.yaml");
    toggle_file(plan, manager, MANAGER_EDITS, &NAMESPACED, wanted)?;
    let binding = Path::new("config/rbac/role_binding.yaml");
    toggle_file(plan, binding, BINDING_EDITS, &NAMESPACED, wanted)?;
    let namespace = format!(",namespace={}-system", config.project_name);
    for file in rust_files(plan.root(), Path::new("src/controller"))? {
        let text = plan.read(&file)?;
        let updated: Vec<String> = text
            .lines()
            .map(|line| scoped_marker(line, &namespace, wanted))
            .collect();
        plan.update(file, updated.join("\n") + "\n")?;
    }
    scope_controller_tests(plan, config, wanted)
}

/// The scaffolded controller tests (those running the manager with config/rbac/role.yaml) watch what the
/// manager's role grants: with a Role, only `<project>-system`, where the test then creates its sample.
fn scope_controller_tests(plan: &mut Plan, config: &ProjectConfig, wanted: bool) -> Result<()> {
    let manager = format!(
        "const MANAGER: &str = \"{}-controller-manager\";",
        config.project_name
    );
    let namespace = format!(
        "const NAMESPACE: &str = \"{}-system\";",
        config.project_name
    );
    let edits = [
        BlockEdit {
            after: &manager,
            off: &[],
            on: &[
                "/// The namespace the manager watches, as its Role grants (the `namespace=` of the `+kubebuilder:rbac` markers).",
                &namespace,
            ],
        },
        BlockEdit {
            after: "        .client(manager_client)",
            off: &[],
            on: &["        .watch_namespace(NAMESPACE)"],
        },
    ];
    let (from, to) = (
        "client.clone(), \"default\");",
        "client.clone(), NAMESPACE);",
    );
    let (from, to) = if wanted { (from, to) } else { (to, from) };
    for file in rust_files(plan.root(), Path::new("tests"))? {
        let text = plan.read(&file)?;
        if !text
            .lines()
            .any(|line| line == "        .client(manager_client)")
        {
            continue; // not a test of a controller rkb create api scaffolded
        }
        let text = toggle_block(&file, &text, &edits, &NAMESPACED, wanted)?;
        let sample_api = |line: &str| {
            if line.starts_with("    let api: Api<") && line.ends_with(from) {
                line.replace(from, to)
            } else {
                line.to_string()
            }
        };
        let updated: Vec<String> = text.lines().map(sample_api).collect();
        plan.update(file, updated.join("\n") + "\n")?;
    }
    Ok(())
}

/// An RBAC marker of a controller with `namespace` added (or removed); other lines as they are.
fn scoped_marker(line: &str, namespace: &str, wanted: bool) -> String {
    if !line.trim_start().starts_with("/// +kubebuilder:rbac:") {
        return line.to_string();
    }
    let has = line.contains(",namespace=");
    match (wanted, has) {
        (true, false) => format!("{line}{namespace}"),
        (false, true) => line.replace(namespace, ""),
        _ => line.to_string(),
    }
}

/// A setting of the project that `rkb edit` switches on or off by editing the lines `rkb init` wrote for it.
struct Switch {
    /// init's flag for it: `--namespaced`.
    flag: &'static str,
    /// What the manager is with the setting on, and off.
    on: &'static str,
    off: &'static str,
}

impl Switch {
    fn state(&self, on: bool) -> &'static str {
        if on { self.on } else { self.off }
    }
}

const NAMESPACED: Switch = Switch {
    flag: "--namespaced",
    on: "namespace-scoped",
    off: "cluster-wide",
};

/// One edit of a file init scaffolds: the lines `off` it has without the setting and `on` with it, found below the
/// line `after` (an empty `after`: at the top of the file).
struct BlockEdit<'a> {
    after: &'a str,
    off: &'a [&'a str],
    on: &'a [&'a str],
}

const MANAGER_EDITS: &[BlockEdit<'static>] = &[
    BlockEdit {
        after: "        - --health-probe-bind-address=:8081",
        off: &[],
        on: &["        - --namespaced"],
    },
    BlockEdit {
        after: "        name: manager",
        off: &[],
        on: &[
            "        env:",
            "        # The manager watches only its own namespace.",
            "        - name: WATCH_NAMESPACE",
            "          valueFrom:",
            "            fieldRef:",
            "              fieldPath: metadata.namespace",
        ],
    },
];

const BINDING_EDITS: &[BlockEdit<'static>] = &[
    BlockEdit {
        after: "apiVersion: rbac.authorization.k8s.io/v1",
        off: &["kind: ClusterRoleBinding"],
        on: &["kind: RoleBinding"],
    },
    BlockEdit {
        after: "  name: manager-rolebinding",
        off: &[],
        on: &["  namespace: system"],
    },
    BlockEdit {
        after: "  apiGroup: rbac.authorization.k8s.io",
        off: &["  kind: ClusterRole"],
        on: &["  kind: Role"],
    },
];

/// [`toggle_block`] on the file `rel` of the plan.
fn toggle_file(
    plan: &mut Plan,
    rel: &Path,
    edits: &[BlockEdit<'_>],
    switch: &Switch,
    on: bool,
) -> Result<()> {
    let text = plan.read(rel)?;
    plan.update(rel, toggle_block(rel, &text, edits, switch, on)?)
}

/// Replaces, below each edit's `after` line, the lines of one state of `switch` by those of the other (`on`: the
/// lines with the setting). A file whose lines are not where init put them is refused, naming the line.
fn toggle_block(
    file: &Path,
    text: &str,
    edits: &[BlockEdit<'_>],
    switch: &Switch,
    on: bool,
) -> Result<String> {
    let mut lines: Vec<String> = text.lines().map(str::to_string).collect();
    for edit in edits {
        let (from, to) = if on {
            (edit.off, edit.on)
        } else {
            (edit.on, edit.off)
        };
        let start = match edit.after {
            "" => Some(0),
            after => lines.iter().position(|l| l == after).map(|at| at + 1),
        };
        let found = start.filter(|&start| {
            let below = &lines[start..];
            below.len() >= from.len() && below.iter().zip(from).all(|(l, f)| l == f)
        });
        if to.iter().any(|l| l.trim() == "env:") && lines.iter().any(|l| l == to[0]) {
            bail!(
                "{}: the manager container has an `env:` list already; add WATCH_NAMESPACE (from the pod's metadata.namespace) to it by hand, or remove the list, and run again",
                file.display()
            );
        }
        let Some(start) = found else {
            // A block's first line that is not a comment says best what to write.
            let line = |lines: &[&str]| {
                let shown = lines.iter().find(|l| !l.trim_start().starts_with('#'));
                shown.or(lines.first()).map(|l| format!("`{}`", l.trim()))
            };
            let fix = match (line(from), line(to)) {
                (None, Some(to)) => {
                    format!(
                        "add {to} (and what follows it in `rkb init {}`) below it",
                        switch.flag
                    )
                }
                (Some(from), None) => format!("remove {from} (and what follows it) below it"),
                (Some(from), Some(to)) => format!("change {from} below it to {to}"),
                (None, None) => String::new(),
            };
            let anchor = match edit.after {
                "" => "the first lines rkb init wrote".to_string(),
                after => format!("the `{}` line rkb init wrote", after.trim()),
            };
            bail!(
                "{}: cannot find {anchor}, so rkb cannot make the manager {}; {fix} by hand and run again",
                file.display(),
                switch.state(on),
            );
        };
        lines.splice(start..start + from.len(), to.iter().map(|l| l.to_string()));
    }
    Ok(lines.join("\n") + "\n")
}

/// The files below `rel` (relative to `root`, so are the paths returned), sorted; none when it does not exist.
fn files_below(root: &Path, rel: &Path) -> Result<Vec<PathBuf>> {
    let mut files = Vec::new();
    let Ok(entries) = std::fs::read_dir(root.join(rel)) else {
        return Ok(files);
    };
    let mut names: Vec<_> = entries
        .map(|e| e.map(|e| e.file_name()))
        .collect::<Result<_, _>>()?;
    names.sort();
    for name in names {
        let child = rel.join(name);
        if root.join(&child).is_dir() {
            files.extend(files_below(root, &child)?);
        } else {
            files.push(child);
        }
    }
    Ok(files)
}

/// The `.rs` files below `rel`.
fn rust_files(root: &Path, rel: &Path) -> Result<Vec<PathBuf>> {
    let mut files = files_below(root, rel)?;
    files.retain(|f| f.extension().is_some_and(|e| e == "rs"));
    Ok(files)
}
