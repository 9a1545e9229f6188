//! `rkb edit --sharded` and `--sharded=false`: what `rkb init --sharded` writes, on a project made without it, and
//! back. The manager's replicas and its `--sharded` flag (config/manager/manager.yaml), the Lease rights of the
//! shard ring (config/rbac/leader_election_role.yaml), and `.sharded()` on the controllers `rkb create api`
//! scaffolded.
//!
//! A YAML file edited past recognition refuses the run, naming the line to change by hand (as `--namespaced`
//! does). A controller that is not as `create api` wrote it is left as it is and named in the output: sharding is a
//! choice per controller, so its author adds (or removes) `.sharded()` by hand; nothing else depends on it.

use std::path::{Path, PathBuf};

use anyhow::Result;

use super::{BlockEdit, Switch, rust_files, toggle_file};
use crate::project_config::ProjectConfig;
use crate::scaffold::Plan;

pub(super) const SHARDED: Switch = Switch {
    flag: "--sharded",
    on: "sharded",
    off: "unsharded",
};

/// The comment `init --sharded` puts above the replicas of config/manager/manager.yaml.
const REPLICAS_COMMENT: [&str; 2] = [
    "  # Active-active (--sharded): every replica reconciles its share of the sharded controllers' objects and caches",
    "  # only that share; the leader also runs the sharder and the controllers that are not sharded.",
];

/// The header of config/rbac/leader_election_role.yaml without sharding.
const ELECTION_HEADER: &[&str] = &[
    "# Leader election: the manager holds a coordination.k8s.io Lease in its own namespace. rkb's elector reads the",
    "# Lease (get), makes it once (create) and renews, takes over or releases it by writing it whole with the",
    "# resourceVersion it read (update); it never lists, watches, patches or deletes it. Events are not written here",
    "# (a controller that records them asks for events.k8s.io with its own +kubebuilder:rbac marker).",
];

/// The header of config/rbac/leader_election_role.yaml with sharding.
const RING_HEADER: &[&str] = &[
    "# Leader election and the shard ring (--sharded), in the manager's namespace: every replica holds a",
    "# coordination.k8s.io Lease of its own in the ring, and the leader holds the leader-election Lease as well. A replica",
    "# reads, creates and renews its Leases (get, create, update) and deletes its ring Lease when it shuts down; the",
    "# leader's sharder lists and watches the ring's Leases to see which replicas are alive, and deletes the Leases of",
    "# replicas gone for good. patch completes the set the sharding design grants; rkb-runtime does not use it today.",
    "# Events are not written here (a controller that records them asks for events.k8s.io with its own",
    "# +kubebuilder:rbac marker).",
];

const ROLE_EDITS: &[BlockEdit<'static>] = &[
    BlockEdit {
        after: "",
        off: ELECTION_HEADER,
        on: RING_HEADER,
    },
    BlockEdit {
        after: "  - get",
        off: &[],
        on: &["  - list", "  - watch"],
    },
    BlockEdit {
        after: "  - update",
        off: &[],
        on: &["  - patch", "  - delete"],
    },
];

/// Plans the edits that make the project sharded (`wanted`) or not; returns what to tell the user.
pub(super) fn plan(plan: &mut Plan, config: &ProjectConfig, wanted: bool) -> Result<Vec<String>> {
    let manager = Path::new("config/manager/manager.yaml");
    // The Deployment's selector: the one line at this indentation (the metadata's labels have less, the pod
    // template's more).
    let selector = format!("      app.kubernetes.io/name: {}", config.project_name);
    let replicas = [REPLICAS_COMMENT[0], REPLICAS_COMMENT[1], "  replicas: 3"];
    let manager_edits = [
        BlockEdit {
            after: &selector,
            off: &["  replicas: 1"],
            on: &replicas,
        },
        BlockEdit {
            after: "        - --leader-elect",
            off: &[],
            on: &["        - --sharded"],
        },
    ];
    toggle_file(plan, manager, &manager_edits, &SHARDED, wanted)?;
    let role = Path::new("config/rbac/leader_election_role.yaml");
    toggle_file(plan, role, ROLE_EDITS, &SHARDED, wanted)?;
    let mut done = vec![if wanted {
        "made the manager sharded: 3 replicas run with --sharded, and the leader-election Role grants the shard ring's Leases".to_string()
    } else {
        "made the manager unsharded: 1 replica, leader-elected".to_string()
    }];
    let mut untouched: Vec<PathBuf> = Vec::new();
    for file in rust_files(plan.root(), Path::new("src/controller"))? {
        let text = plan.read(&file)?;
        match shard_controller(&text, wanted) {
            Shard::NotAController => {}
            Shard::Edited(text) => plan.update(file, text)?,
            Shard::NotAsScaffolded => untouched.push(file),
        }
    }
    for file in untouched {
        done.push(format!(
            "note: {}: its controller is not as rkb create api wrote it, so rkb left it; {} `.sharded()` on its builder by hand to {}",
            file.display(),
            if wanted { "call" } else { "remove" },
            if wanted {
                "shard its objects across the replicas"
            } else {
                "stop sharding it"
            },
        ));
    }
    Ok(done)
}

/// What [`shard_controller`] made of a file of src/controller.
#[derive(Debug, PartialEq)]
enum Shard {
    /// No `Controller::for_kind` in it (mod.rs, a helper).
    NotAController,
    /// The file with the controller sharded, or not (unchanged when it already was).
    Edited(String),
    /// A controller, but not as `create api` wrote it.
    NotAsScaffolded,
}

/// The three comment lines `create api` puts above a sharded controller of `kind`.
fn sharded_comment(kind: &str) -> [String; 3] {
    [
        "    // `.sharded()`: under the manager's `--sharded` (config/manager/manager.yaml) each replica".into(),
        format!("    // reconciles and caches only its share of the {kind} objects; what reconcile applies"),
        "    // follows its owner's shard.".into(),
    ]
}

const SHARDED_CALL: &str = "        .sharded()";
const RUN: [&str; 2] = ["        .run(reconcile)", "        .await"];

/// The controller of `text` with `.sharded()` on its builder (`sharded`) or without, as `create api` writes it. It
/// reads the chain `create api` writes and users extend: `Controller::for_kind::<Kind>(&ctx)`, builder calls one per
/// line (`.named(..)`, `.owns::<..>()`, ...), `.run(reconcile)` and `.await`; unnamed and unsharded, all on one
/// line. `.sharded()` goes last before `.run`, with its comment above the chain.
fn shard_controller(text: &str, sharded: bool) -> Shard {
    let lines: Vec<&str> = text.lines().collect();
    let Some(at) = lines
        .iter()
        .position(|l| l.starts_with("    Controller::for_kind::<"))
    else {
        return Shard::NotAController;
    };
    let Some(kind) = lines[at]
        .strip_prefix("    Controller::for_kind::<")
        .and_then(|rest| rest.split_once(">(&ctx)"))
        .map(|(kind, _)| kind)
    else {
        return Shard::NotAsScaffolded;
    };
    let one_line = format!("    Controller::for_kind::<{kind}>(&ctx).run(reconcile).await");
    let head = format!("    Controller::for_kind::<{kind}>(&ctx)");
    let comment = sharded_comment(kind);
    let mut calls: Vec<&str> = Vec::new();
    let end = if lines[at] == one_line {
        at + 1
    } else if lines[at] == head {
        let mut next = at + 1;
        while let Some(call) = lines
            .get(next)
            .filter(|l| l.starts_with("        .") && **l != RUN[0])
        {
            calls.push(call);
            next += 1;
        }
        if lines.get(next..next + 2) != Some(&RUN[..]) {
            return Shard::NotAsScaffolded;
        }
        next + 2
    } else {
        return Shard::NotAsScaffolded;
    };
    if calls.contains(&SHARDED_CALL) == sharded {
        return Shard::Edited(text.to_string());
    }
    let has_comment = at >= 3 && lines[at - 3..at].iter().zip(&comment).all(|(l, c)| l == c);
    let start = if has_comment { at - 3 } else { at };
    calls.retain(|call| *call != SHARDED_CALL);
    if sharded {
        calls.push(SHARDED_CALL);
    }
    let mut chain: Vec<String> = Vec::new();
    if sharded {
        chain.extend(comment);
    }
    if calls.is_empty() {
        chain.push(one_line);
    } else {
        chain.push(head);
        chain.extend(calls.iter().map(|c| c.to_string()));
        chain.extend(RUN.map(str::to_string));
    }
    let edited: Vec<String> = lines[..start]
        .iter()
        .map(|l| l.to_string())
        .chain(chain)
        .chain(lines[end..].iter().map(|l| l.to_string()))
        .collect();
    Shard::Edited(edited.join("\n") + "\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    const UNNAMED: &str = "pub async fn controller(ctx: Context) -> Result<(), Error> {
    // Add ...
    Controller::for_kind::<Frigate>(&ctx).run(reconcile).await
}
";

    const UNNAMED_SHARDED: &str = "pub async fn controller(ctx: Context) -> Result<(), Error> {
    // Add ...
    // `.sharded()`: under the manager's `--sharded` (config/manager/manager.yaml) each replica
    // reconciles and caches only its share of the Frigate objects; what reconcile applies
    // follows its owner's shard.
    Controller::for_kind::<Frigate>(&ctx)
        .sharded()
        .run(reconcile)
        .await
}
";

    const NAMED: &str = "fn f() {
    Controller::for_kind::<Frigate>(&ctx)
        .named(\"frigate-backup\")
        .run(reconcile)
        .await
}
";

    const NAMED_SHARDED: &str = "fn f() {
    // `.sharded()`: under the manager's `--sharded` (config/manager/manager.yaml) each replica
    // reconciles and caches only its share of the Frigate objects; what reconcile applies
    // follows its owner's shard.
    Controller::for_kind::<Frigate>(&ctx)
        .named(\"frigate-backup\")
        .sharded()
        .run(reconcile)
        .await
}
";

    fn edited(text: &str) -> Shard {
        Shard::Edited(text.to_string())
    }

    #[test]
    fn scaffolded_controllers_are_sharded_and_back_in_both_shapes() {
        for (plain, sharded) in [(UNNAMED, UNNAMED_SHARDED), (NAMED, NAMED_SHARDED)] {
            assert_eq!(shard_controller(plain, true), edited(sharded));
            assert_eq!(shard_controller(sharded, false), edited(plain));
            assert_eq!(
                shard_controller(sharded, true),
                edited(sharded),
                "already sharded"
            );
            assert_eq!(
                shard_controller(plain, false),
                edited(plain),
                "already unsharded"
            );
        }
    }

    #[test]
    fn builder_calls_users_add_are_kept_and_other_shapes_told_apart() {
        let owning = NAMED.replace(
            "        .named(\"frigate-backup\")\n",
            "        .named(\"frigate-backup\")\n        .owns::<Deployment>()\n",
        );
        let owning_sharded = NAMED_SHARDED.replace(
            "        .named(\"frigate-backup\")\n",
            "        .named(\"frigate-backup\")\n        .owns::<Deployment>()\n",
        );
        assert_eq!(shard_controller(&owning, true), edited(&owning_sharded));
        assert_eq!(shard_controller(&owning_sharded, false), edited(&owning));
        assert_eq!(
            shard_controller("pub mod frigate_controller;\n", true),
            Shard::NotAController
        );
        let one_line_owning = UNNAMED.replace(
            "(&ctx).run(reconcile)",
            "(&ctx).owns::<Deployment>().run(reconcile)",
        );
        assert_eq!(
            shard_controller(&one_line_owning, true),
            Shard::NotAsScaffolded
        );
        let closure = NAMED.replace(".run(reconcile)", ".run(|obj, ctx| reconcile(obj, ctx))");
        assert_eq!(shard_controller(&closure, true), Shard::NotAsScaffolded);
    }
}
