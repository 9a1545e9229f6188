//! The runtime's error type.
//!
//! Contract: a variant's message says what failed ("cannot listen on 0.0.0.0:8443") and `source()` returns why
//! (the io or kube error); the message never repeats the cause. A reporter that walks the chain (anyhow's `{:#}`,
//! `main` returning `anyhow::Result`) then prints each cause once; one that prints `Display` alone shows the
//! context only, so logs of these errors walk `source()` too.

pub(crate) mod failure;

/// Errors of the manager and its helpers.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// A flag value is not a valid bind address.
    #[error("{flag}: {value:?} is not an address (use \"0\", \":port\" or \"host:port\")")]
    BindAddress {
        /// The flag.
        flag: &'static str,
        /// What was given.
        value: String,
    },
    /// Flags contradict each other.
    #[error("invalid options: {0}")]
    InvalidOptions(String),
    /// No kubeconfig or in-cluster configuration could be loaded.
    #[error("cannot build a Kubernetes client")]
    Client(#[source] kube::Error),
    /// A Kubernetes API call failed.
    #[error("Kubernetes API call failed")]
    Kube(#[from] kube::Error),
    /// An HTTP listener could not bind.
    #[error("cannot listen on {addr}")]
    Listen {
        /// The address.
        addr: std::net::SocketAddr,
        /// The cause.
        #[source]
        source: std::io::Error,
    },
    /// The manager could not install its signal handlers.
    #[error("cannot install signal handlers")]
    Signal(#[source] std::io::Error),
    /// Leader election failed to renew within the renew deadline; the process should exit and restart.
    #[error("leader election lost: {0}")]
    LeadershipLost(String),
    /// A sharded replica failed to renew its shard Lease within the renew deadline (see the `shard` module); its
    /// objects move to other replicas, and the process should exit and restart.
    #[error("shard lease lost: {0}")]
    ShardLeaseLost(String),
    /// A controller ended with an error.
    #[error("controller {name} failed")]
    Controller {
        /// The controller's name.
        name: String,
        /// What went wrong, with its own `source()` chain.
        #[source]
        source: BoxError,
    },
    /// A watch stream of a controller failed in a way that cannot be retried.
    #[error("watch failed: {0}")]
    Watch(String),
    /// A finalizer patch was rejected.
    #[error("cannot update finalizer {finalizer}")]
    Finalizer {
        /// The finalizer name.
        finalizer: String,
        /// The cause.
        #[source]
        source: kube::Error,
    },
    /// An object lacks a field the helper needs (name, uid, ...).
    #[error("object has no {0}")]
    MissingField(&'static str),
    /// Another object already is the controller of this one.
    #[error("object is already controlled by {kind} {name}")]
    AlreadyOwned {
        /// The controller's kind.
        kind: String,
        /// The controller's name.
        name: String,
    },
    /// The live object is controlled by another owner, so [`crate::apply::apply_controlled`] did not write it.
    #[error(
        "{object} is controlled by {} {} (uid {}), not by this owner",
        controller.kind,
        controller.name,
        controller.uid
    )]
    ControlledByOther {
        /// The object refused, as "Kind namespace/name".
        object: String,
        /// The other owner's reference (controller=true) on the live object.
        controller: Box<k8s_openapi::apimachinery::pkg::apis::meta::v1::OwnerReference>,
    },
    /// A TLS certificate (the metrics server's or the webhook server's) could not be loaded or made.
    #[error("TLS: {0}")]
    Tls(String),
    /// Serialising an object for server-side apply failed.
    #[error("cannot serialise object")]
    Serialize(#[from] serde_json::Error),
}

/// A boxed error: the convenient error type for reconcile functions (`?` converts any `std::error::Error`).
pub type BoxError = Box<dyn std::error::Error + Send + Sync + 'static>;

/// An object's name, which every API call about it needs; objects built in code may lack one.
pub(crate) fn required_name<K: kube::Resource>(obj: &K) -> Result<&str, Error> {
    obj.meta()
        .name
        .as_deref()
        .ok_or(Error::MissingField("metadata.name"))
}
