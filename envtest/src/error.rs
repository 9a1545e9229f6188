//! The one error type of the crate: every failure says which binary, file or object it concerns.
//!
//! Contract: a message says what failed and `source()` returns why (the io, kube or rcgen error), never both, so
//! a chain reporter (anyhow's `{:#}`) prints each cause once. `Debug` is that report too ("what failed", then
//! "Caused by:" and each cause on its own line, as anyhow's `Debug`): a test's `.unwrap()` or `.expect()` on an
//! envtest error panics with the whole chain, readable, instead of nested struct dumps with escaped log tails.

use std::fmt;
use std::path::PathBuf;
use std::time::Duration;

/// What tells a user how to get the control plane binaries.
pub const SETUP_HINT: &str = "run `make setup-envtest` in a project scaffolded by rkb (or \
`hack/setup-envtest.sh` in the rkb repository), or set KUBEBUILDER_ASSETS to a directory \
holding etcd and kube-apiserver, such as the one `setup-envtest use -p path` prints";

/// What tells a user how to get kube-controller-manager, which setup-envtest does not download.
pub const CONTROLLER_MANAGER_HINT: &str = "setup-envtest's downloads hold etcd, kube-apiserver and \
kubectl only; build the whole control plane from Go modules (a Go toolchain and several minutes, \
once) with `RKB_ENVTEST_CONTROLLER_MANAGER=1 make test` in a project scaffolded by rkb (in the \
rkb repository, `hack/setup-envtest.sh` builds it; set KUBEBUILDER_ASSETS to the directory it prints last)";

/// Errors starting, using or stopping an envtest [`Environment`](crate::Environment).
#[derive(thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// The control plane binaries are not where they were looked for.
    #[error("envtest binaries not found: {detail}\nhint: {SETUP_HINT}")]
    BinariesNotFound {
        /// What was looked for, and where.
        detail: String,
    },

    /// [`with_controller_manager`](crate::EnvironmentBuilder::with_controller_manager) was asked for, and the
    /// binaries' directory has no kube-controller-manager (setup-envtest's layout).
    #[error(
        "kube-controller-manager not found in {dir}: with_controller_manager() runs it for garbage \
         collection and namespace deletion\nhint: {CONTROLLER_MANAGER_HINT}"
    )]
    ControllerManagerMissing {
        /// The directory the other binaries came from.
        dir: PathBuf,
    },

    /// A binary could not be executed at all.
    #[error("cannot start {binary} ({path})")]
    Spawn {
        /// Component name, e.g. `kube-apiserver`.
        binary: &'static str,
        /// The executable.
        path: PathBuf,
        /// Why exec failed.
        #[source]
        source: std::io::Error,
    },

    /// A component exited while the environment was starting.
    #[error("{binary} exited during startup ({status}); last lines of {log}:\n{log_tail}")]
    Exited {
        /// Component name.
        binary: &'static str,
        /// Its exit status.
        status: String,
        /// Its log file (kept only while the environment lives).
        log: PathBuf,
        /// The last lines it printed.
        log_tail: String,
    },

    /// A component did not become ready in time.
    #[error(
        "{binary} not ready after {timeout:?} ({last_probe}); last lines of {log}:\n{log_tail}"
    )]
    NotReady {
        /// Component name.
        binary: &'static str,
        /// The limit that passed.
        timeout: Duration,
        /// The result of the last readiness probe.
        last_probe: String,
        /// Its log file.
        log: PathBuf,
        /// The last lines it printed.
        log_tail: String,
    },

    /// Reading or writing a file of the environment failed.
    #[error("cannot access {path}")]
    Io {
        /// The file or directory.
        path: PathBuf,
        /// The underlying error.
        #[source]
        source: std::io::Error,
    },

    /// Certificate or key generation failed.
    #[error("cannot generate certificates")]
    Certificate(#[from] rcgen::Error),

    /// The generated kubeconfig could not be turned into a client configuration.
    #[error("cannot load the generated kubeconfig")]
    Kubeconfig(#[from] kube::config::KubeconfigError),

    /// A request to the API server failed.
    #[error("API request failed")]
    Kube(#[from] kube::Error),

    /// A CRD directory given to the environment does not exist.
    #[error("CRD directory {0} does not exist")]
    CrdDirMissing(PathBuf),

    /// A file in a CRD directory is not valid YAML, or a CRD document does not fit the CRD schema.
    #[error("{path}: document {index}: {message}")]
    CrdParse {
        /// The YAML file.
        path: PathBuf,
        /// 1-based index of the document within the file.
        index: usize,
        /// The parser's message.
        message: String,
    },

    /// The API server refused a CRD.
    #[error("CRD {name} (from {source_name}) rejected by the API server: {message}")]
    CrdRejected {
        /// `metadata.name` of the CRD.
        name: String,
        /// Where it came from (a file, or `<yaml>`).
        source_name: String,
        /// The server's message, e.g. the failed validation.
        message: String,
    },

    /// A document given to [`Environment::client_with_rbac`](crate::Environment::client_with_rbac) is not
    /// a ClusterRole or Role.
    #[error("RBAC document {index}: {message}")]
    RbacDocument {
        /// 1-based index of the document.
        index: usize,
        /// What is wrong with it.
        message: String,
    },

    /// The API server refused requests of a client built with
    /// [`Environment::client_with_rbac`](crate::Environment::client_with_rbac) (see
    /// [`Environment::ensure_not_forbidden`](crate::Environment::ensure_not_forbidden)): its roles lack a rule.
    #[error(
        "403 Forbidden: the API server refused {} request(s) of {user}, which its RBAC roles do not allow:\n    {}\n\
         hint: grant each with a marker such as `// {marker}` on the controller, then run `make manifests` \
         (config/rbac/role.yaml)",
        requests.len(),
        requests.join("\n    ")
    )]
    Forbidden {
        /// The user the client acts as.
        user: String,
        /// Each refused request: verb, group/resource, name and namespace.
        requests: Vec<String>,
        /// The marker that grants the first refused request.
        marker: String,
    },

    /// Webhook configurations could not be read, rewritten or installed.
    #[error("webhooks: {0}")]
    Webhook(String),

    /// A CRD was accepted but did not become Established.
    #[error("CRD {name} not Established after {timeout:?}: {conditions}")]
    CrdNotEstablished {
        /// `metadata.name` of the CRD.
        name: String,
        /// The limit that passed.
        timeout: Duration,
        /// Its conditions as last seen.
        conditions: String,
    },
}

impl fmt::Debug for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write_report(f, self)
    }
}

/// `error`'s message, then each error of its `source()` chain once, on lines of their own under "Caused by:".
pub(crate) fn write_report(
    f: &mut fmt::Formatter<'_>,
    error: &(dyn std::error::Error + 'static),
) -> fmt::Result {
    write!(f, "{error}")?;
    let mut causes = std::iter::successors(error.source(), |e| e.source()).peekable();
    if causes.peek().is_some() {
        f.write_str("\n\nCaused by:")?;
    }
    for cause in causes {
        write!(f, "\n    {cause}")?;
    }
    Ok(())
}

/// Shorthand used throughout the crate.
pub type Result<T, E = Error> = std::result::Result<T, E>;

pub(crate) fn io_err(path: impl Into<PathBuf>) -> impl FnOnce(std::io::Error) -> Error {
    let path = path.into();
    move |source| Error::Io { path, source }
}
