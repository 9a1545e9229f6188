//! The command line, as clap derive types. Flags and defaults follow kubebuilder's go/v4 plugin.

use std::path::PathBuf;

use clap::{Args, Parser, Subcommand, ValueEnum};

#[derive(Debug, Parser)]
#[command(
    name = "rkb",
    version = crate::commands::version::SHORT,
    about = "kubebuilder for Rust: scaffold Kubernetes operators on kube-rs and generate their CRD and RBAC manifests",
    after_help = "Typical workflow:\n  \
        rkb init --domain my.domain\n  \
        rkb create api --group devops --version v1 --kind DemoMicroService\n  \
        rkb manifests\n  \
        make test"
)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Scaffold a new operator project in the current directory
    #[command(after_help = "Examples:\n  \
        rkb init --domain my.domain\n  \
        rkb init --domain example.com --project-name guestbook --owner \"The Guestbook Authors\"\n  \
        rkb init --domain my.domain --multigroup\n  \
        rkb init --domain my.domain --sharded")]
    Init(InitArgs),
    /// Scaffold new resources (APIs and their controllers)
    #[command(
        subcommand,
        after_help = "Examples:\n  \
        rkb create api --group devops --version v1 --kind DemoMicroService"
    )]
    Create(CreateCommand),
    /// Change the project's layout: multigroup (moves the APIs, controllers and webhooks under their group),
    /// namespace-scoped or sharded manager, optional plugins
    #[command(after_help = "Examples:\n  \
        rkb edit --multigroup           # src/api/<version> becomes src/api/<group>/<version>\n  \
        rkb edit --namespaced           # the manager watches WATCH_NAMESPACE, with a Role\n  \
        rkb edit --namespaced=false     # back to a cluster-wide manager with a ClusterRole\n  \
        rkb edit --sharded              # 3 active-active replicas (controllers call .sharded())\n  \
        rkb edit --plugins helm         # a Helm chart in dist/chart, from config/default")]
    Edit(EditArgs),
    /// Generate CRD and RBAC manifests from +kubebuilder markers (controller-gen's `crd rbac`)
    #[command(after_help = "Examples:\n  \
        rkb manifests                 # write config/crd/bases/*.yaml and config/rbac/role.yaml\n  \
        rkb manifests --check         # CI: exit 1 with a diff when committed manifests are stale\n  \
        rkb manifests --check --against v0.1.0  # CI: also refuse CRD changes that break v0.1.0's objects\n  \
        rkb manifests --max-desc-len 0")]
    Manifests(ManifestsArgs),
    /// Bring a project forward to this rkb's scaffolds (kubebuilder's `alpha generate` and `alpha update`)
    #[command(
        subcommand,
        after_help = "Examples:\n  \
        rkb alpha generate --output-dir ../demo-fresh   # the project re-scaffolded from PROJECT, your code carried over\n  \
        rkb alpha update                                # three-way merge of the old scaffold, the new one and your branch"
    )]
    Alpha(AlphaCommand),
    /// Print rkb's version, commit, build date and platform, and the versions it scaffolds against; inside a
    /// project, warn when its rkb-runtime is another release
    #[command(after_help = "Examples:\n  rkb version")]
    Version,
    /// Print a shell completion script
    #[command(after_help = "Examples:\n  \
        rkb completion bash > /etc/bash_completion.d/rkb\n  \
        rkb completion zsh > \"${fpath[1]}/_rkb\"\n  \
        rkb completion fish > ~/.config/fish/completions/rkb.fish\n  \
        rkb completion powershell >> $PROFILE")]
    Completion {
        #[arg(value_enum)]
        shell: Shell,
    },
}

#[derive(Debug, Clone, Copy, ValueEnum)]
pub enum Shell {
    Bash,
    Zsh,
    Fish,
    Powershell,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum License {
    Apache2,
    None,
}

#[derive(Debug, Args)]
pub struct InitArgs {
    /// Domain for groups: a group `devops` becomes `devops.<domain>`
    #[arg(long, default_value = "my.domain")]
    pub domain: String,
    /// Project name (default: the directory's name); names the crate, the namespace `<name>-system` and images
    #[arg(long)]
    pub project_name: Option<String>,
    /// Owner named in the license header of generated files
    #[arg(long)]
    pub owner: Option<String>,
    /// License header for generated files
    #[arg(long, value_enum, default_value_t = License::Apache2)]
    pub license: License,
    /// Allow APIs of several groups (src/api/<group>/<version>/)
    #[arg(long)]
    pub multigroup: bool,
    /// Scaffold a namespace-scoped manager: it watches WATCH_NAMESPACE and gets Roles instead of ClusterRoles
    #[arg(long)]
    pub namespaced: bool,
    /// Scaffold an active-active sharded manager: 3 replicas started with `--sharded`, the Lease rights of the shard
    /// ring, and controllers that call `.sharded()` (each replica reconciles and caches its share of the objects)
    #[arg(long)]
    pub sharded: bool,
    /// Dev mode: build against the rkb checkout in this directory instead of the crates.io release (a
    /// [patch.crates-io] override in .cargo/config.toml, kept out of git; Cargo.toml keeps the published form)
    #[arg(long, env = "RKB_SOURCE")]
    pub rkb_source: Option<PathBuf>,
    /// Directory to scaffold into
    #[arg(long, default_value = ".")]
    pub dir: PathBuf,
}

#[derive(Debug, Args)]
pub struct EditArgs {
    /// Move to the multigroup layout (src/api/<group>/<version>/, controllers, webhooks and tests too);
    /// `--multigroup=false` moves back, when the APIs are all in one group
    #[arg(long, num_args = 0..=1, require_equals = true, default_missing_value = "true", action = clap::ArgAction::Set)]
    pub multigroup: Option<bool>,
    /// Make the manager namespace-scoped (WATCH_NAMESPACE, Role and RoleBinding, `namespace=` on the controllers'
    /// RBAC markers); `--namespaced=false` makes it cluster-wide again
    #[arg(long, num_args = 0..=1, require_equals = true, default_missing_value = "true", action = clap::ArgAction::Set)]
    pub namespaced: Option<bool>,
    /// Make the manager active-active sharded (3 replicas run with `--sharded`, the shard ring's Lease rights,
    /// `.sharded()` on the scaffolded controllers), as `rkb init --sharded` does; `--sharded=false` undoes it
    #[arg(long, num_args = 0..=1, require_equals = true, default_missing_value = "true", action = clap::ArgAction::Set)]
    pub sharded: Option<bool>,
    /// kubebuilder's optional plugins: `grafana` writes Grafana dashboards under grafana/, `helm` a Helm chart in
    /// dist/chart generated from config/default
    #[arg(long, value_name = "PLUGINS")]
    pub plugins: Option<String>,
    /// Project directory
    #[arg(long, default_value = ".")]
    pub dir: PathBuf,
}

#[derive(Debug, Subcommand)]
pub enum CreateCommand {
    /// Scaffold a Kubernetes API (types, CRD, samples, RBAC roles) and its controller
    #[command(after_help = "Examples:\n  \
        rkb create api --group devops --version v1 --kind DemoMicroService\n  \
        rkb create api --group devops --version v1beta1 --kind DemoMicroService --controller=false\n  \
        rkb create api --group ship --version v1 --kind Frigate --plural frigates --namespaced=false\n  \
        rkb create api --group apps --version v1 --kind Deployment --controller --resource=false\n  \
        rkb create api --group devops --version v1 --kind DemoMicroService --resource=false --controller-name demomicroservice-backup\n  \
        rkb create api --group cert-manager --version v1 --kind Certificate --resource=false \\\n      \
        --external-api-path cert_manager_crds::v1 --external-api-crate cert-manager-crds@0.3 --external-api-domain io")]
    Api(CreateApiArgs),
    /// Scaffold webhooks (defaulting, validation, conversion) for an existing kind
    #[command(after_help = "Examples:\n  \
        rkb create webhook --group devops --version v1 --kind DemoMicroService --defaulting --programmatic-validation\n  \
        rkb create webhook --group devops --version v1 --kind DemoMicroService --conversion --spoke v2\n  \
        rkb create webhook --group devops --version v1 --kind DemoMicroService --defaulting --defaulting-path /my-mutate\n  \
        rkb create webhook --group core --version v1 --kind Pod --defaulting")]
    Webhook(CreateWebhookArgs),
}

#[derive(Debug, Args)]
pub struct CreateWebhookArgs {
    /// API group of the kind, as given to `rkb create api`
    #[arg(long)]
    pub group: String,
    /// API version of the kind
    #[arg(long)]
    pub version: String,
    /// The kind: one of this project's (in PROJECT with its API), of Kubernetes' groups (`--group core`, `apps`,
    /// ...), or of another crate (`--external-api-path`)
    #[arg(long)]
    pub kind: String,
    /// Scaffold a defaulting (mutating) webhook
    #[arg(long)]
    pub defaulting: bool,
    /// Serve the defaulting webhook at this path instead of /mutate-<group>-<version>-<kind> (with --defaulting)
    #[arg(long, value_name = "PATH")]
    pub defaulting_path: Option<String>,
    /// Scaffold a validating webhook
    #[arg(long)]
    pub programmatic_validation: bool,
    /// Serve the validating webhook at this path instead of /validate-<group>-<version>-<kind> (with
    /// --programmatic-validation)
    #[arg(long, value_name = "PATH")]
    pub validation_path: Option<String>,
    /// Scaffold conversion between this version (the hub) and the --spoke versions
    #[arg(long)]
    pub conversion: bool,
    /// The versions converted to and from this one, the hub (with --conversion)
    #[arg(long, value_delimiter = ',')]
    pub spoke: Vec<String>,
    /// Scaffold the kind's webhook file and test again from scratch, overwriting them (without it, webhook types
    /// the kind lacks are added to the existing files)
    #[arg(long)]
    pub force: bool,
    #[command(flatten)]
    pub external: ExternalApiArgs,
    /// Project directory
    #[arg(long, default_value = ".")]
    pub dir: PathBuf,
}

#[derive(Debug, Args)]
pub struct CreateApiArgs {
    /// API group (a DNS-1123 subdomain such as `devops`); the full group is `<group>.<domain>`. In multigroup
    /// projects it also names the Rust module src/api/<group>/, with '-' and '.' written as '_'. With
    /// --resource=false it may name one of Kubernetes' groups (core, apps, batch, networking, rbac.authorization,
    /// ...: a controller of k8s-openapi's type), or an external kind's group (--external-api-path)
    #[arg(long)]
    pub group: String,
    /// API version such as v1, v1alpha1, v2beta3
    #[arg(long)]
    pub version: String,
    /// Kind, upper camel case (DemoMicroService)
    #[arg(long)]
    pub kind: String,
    // The three booleans read as kubebuilder's (Go's pflag): `--resource` is true, `--resource=false` turns it off,
    // and a separate `false` is not their value.
    /// Scaffold the resource (types, CRD, samples, roles)
    #[arg(long, default_value_t = true, num_args = 0..=1, require_equals = true, default_missing_value = "true", action = clap::ArgAction::Set)]
    pub resource: bool,
    /// Scaffold the controller. A kind of this project with a controller is listed in tests/e2e/main.rs
    /// (`RECONCILED_KINDS`), whose check waits until its samples are reconciled; with --controller=false the kind's
    /// sample is applied there but not waited for
    #[arg(long, default_value_t = true, num_args = 0..=1, require_equals = true, default_missing_value = "true", action = clap::ArgAction::Set)]
    pub controller: bool,
    /// Whether the resource is namespaced (false: cluster-scoped)
    #[arg(long, default_value_t = true, num_args = 0..=1, require_equals = true, default_missing_value = "true", action = clap::ArgAction::Set)]
    pub namespaced: bool,
    /// Resource plural (default: English plural of the lower-cased kind); another plural is recorded in the
    /// types as `+kubebuilder:resource:path=<plural>`
    #[arg(long)]
    pub plural: Option<String>,
    /// Overwrite files of an API that already exists
    #[arg(long)]
    pub force: bool,
    /// Name of the controller (a DNS-1035 label such as `captain-backup`), for a further controller of a kind that
    /// has one: its own module src/controller/<name>_controller.rs, metrics label and registration in main.rs
    #[arg(long)]
    pub controller_name: Option<String>,
    #[command(flatten)]
    pub external: ExternalApiArgs,
    /// Project directory
    #[arg(long, default_value = ".")]
    pub dir: PathBuf,
}

/// A kind defined outside the project and outside Kubernetes (kubebuilder's `--external-api-*` flags), for
/// `--resource=false` controllers and for webhooks. Kinds of Kubernetes' own groups (core, apps, batch, ...) need
/// none of these: rkb knows their k8s-openapi types.
#[derive(Debug, Args, Default)]
pub struct ExternalApiArgs {
    /// Rust module path of the external kind's type, e.g. `cert_manager::v1` (the type is `<path>::<Kind>`)
    #[arg(long)]
    pub external_api_path: Option<String>,
    /// The crate the external type comes from, `<crate>[@<version>]`; added to Cargo.toml's [dependencies]
    #[arg(long, requires = "external_api_path")]
    pub external_api_crate: Option<String>,
    /// Domain of the external kind's group, e.g. `io` for group cert-manager (its RBAC group is `<group>.<domain>`;
    /// default: the project's domain)
    #[arg(long, requires = "external_api_path")]
    pub external_api_domain: Option<String>,
}

#[derive(Debug, Args)]
pub struct ManifestsArgs {
    /// Write nothing; exit 1 and print a diff when the files on disk are stale, or errors for each breaking
    /// change of a CRD against them (or against --against)
    #[arg(long)]
    pub check: bool,
    /// Refuse breaking CRD changes against the CRDs of this git ref (a release tag), read with `git show`;
    /// nothing is written when one is found
    #[arg(long, value_name = "GIT_REF")]
    pub against: Option<String>,
    /// Where CRDs go, relative to the project
    #[arg(long, default_value = "config/crd/bases")]
    pub crd_dir: PathBuf,
    /// Where role.yaml goes, relative to the project
    #[arg(long, default_value = "config/rbac")]
    pub rbac_dir: PathBuf,
    /// Where the webhook configurations (manifests.yaml) go, relative to the project
    #[arg(long, default_value = "config/webhook")]
    pub webhook_dir: PathBuf,
    /// Truncate descriptions longer than this (0 drops them), as controller-gen's maxDescLen
    #[arg(long)]
    pub max_desc_len: Option<usize>,
    /// Project directory (holds Cargo.toml and src/)
    #[arg(long, default_value = ".")]
    pub dir: PathBuf,
}

#[derive(Debug, Subcommand)]
pub enum AlphaCommand {
    /// Re-scaffold the project from its PROJECT with this rkb (init, every create api and create webhook, in
    /// PROJECT's order), carry the user's API types, controllers, webhooks, their tests and every file the scaffold
    /// does not write over, then run `rkb manifests`
    #[command(after_help = "Examples:\n  \
        rkb alpha generate                                  # in place: needs a clean git tree\n  \
        rkb alpha generate --input-dir . --output-dir ../demo-fresh")]
    Generate(AlphaGenerateArgs),
    /// Merge this rkb's scaffold into the project on a new git branch: a three-way merge of the scaffold the
    /// project's rkb release (PROJECT's cliVersion) makes, the one this rkb makes, and the current branch
    #[command(after_help = "Examples:\n  \
        rkb alpha update                                    # installs the recorded rkb release with cargo install\n  \
        rkb alpha update --from-rkb ~/old-rkb/target/release/rkb\n  \
        rkb alpha update --output-branch upgrade-scaffold")]
    Update(AlphaUpdateArgs),
}

#[derive(Debug, Args)]
pub struct AlphaGenerateArgs {
    /// The project to regenerate (holds PROJECT)
    #[arg(long, default_value = ".")]
    pub input_dir: PathBuf,
    /// Where the regenerated project goes: a new or empty directory. Without it, the project is regenerated in
    /// place, which rkb does only in a git repository whose tree is clean (git holds what it replaces)
    #[arg(long)]
    pub output_dir: Option<PathBuf>,
}

#[derive(Debug, Args)]
pub struct AlphaUpdateArgs {
    /// The rkb binary of the project's recorded release (PROJECT's cliVersion), which makes the merge's ancestor
    /// scaffold; without it rkb runs `cargo install rkb --version <cliVersion>` into its cache
    #[arg(long, value_name = "PATH")]
    pub from_rkb: Option<PathBuf>,
    /// The branch the merge is left on (default: rkb-update-from-<cliVersion>-to-<this version>)
    #[arg(long, value_name = "BRANCH")]
    pub output_branch: Option<String>,
    /// Project directory: the top of a git repository with a clean tree
    #[arg(long, default_value = ".")]
    pub dir: PathBuf,
}
