//! A real control plane for tests, like controller-runtime's envtest: etcd and kube-apiserver
//! (and optionally kube-controller-manager) on free loopback ports, with fresh certificates,
//! a cluster-admin [`kube::Client`] and a kubeconfig file.
//!
//! ```no_run
//! # async fn demo() -> Result<(), rkb_envtest::Error> {
//! let env = rkb_envtest::Environment::builder()
//!     .crd_dir("config/crd/bases")
//!     .start()
//!     .await?;
//! let client = env.client();
//! // ... exercise your controller against `client` ...
//! env.stop().await // or just drop `env`
//! # }
//! ```
//!
//! Binaries come from `KUBEBUILDER_ASSETS`, else from the newest
//! `~/.local/share/kubebuilder-envtest/k8s/<version>-<os>-<arch>` (setup-envtest's layout, which
//! `make setup-envtest` / `hack/setup-envtest.sh` fill). setup-envtest's downloads (etcd,
//! kube-apiserver, kubectl) are enough for everything but
//! [`EnvironmentBuilder::with_controller_manager`], which then fails with
//! [`Error::ControllerManagerMissing`] saying how to build kube-controller-manager. Each environment has its own ports,
//! certificates and temp dir, so tests may run in parallel. Everything is killed and removed on
//! drop, including during a panic; if the test process itself is killed, the kernel kills the
//! control plane too (see the `process` module).
//!
//! How it differs from a cluster, as controller-runtime's envtest does: no nodes, kubelet or
//! scheduler, so Pods never run; the `ServiceAccount` admission plugin is off (nothing creates the
//! `default` ServiceAccount unless the controller manager runs); API priority and fairness is off
//! (it only delays readiness). Authorization is RBAC: the client from
//! [`Environment::client`] is in `system:masters`, so to test RBAC rules, impersonate another user
//! through [`Environment::config`], or bind it to your roles with [`Environment::client_with_roles`] and name
//! what RBAC refused it with [`Environment::ensure_not_forbidden`]. With [`EnvironmentBuilder::with_controller_manager`],
//! kube-controller-manager runs the controllers in [`CONTROLLERS`] (garbage collection, namespace
//! deletion, service accounts), which kubebuilder's envtest does not offer.
//!
//! For end-to-end tests without a cluster, [`Environment::spawn_as_service_account`] runs an operator's own binary
//! as a process with a ServiceAccount's token (TokenRequest API) in its kubeconfig, so it runs under the project's
//! RBAC as its pod would, and its secure metrics server can check tokens against this API server.

pub mod audit;
mod binaries;
mod certs;
mod crds;
mod environment;
mod error;
mod eventually;
mod kubeconfig;
mod ports;
pub mod privilege;
mod process;
mod rbac;
mod refusals;
mod roles;
mod service_accounts;
mod webhooks;

pub use audit::AuditEvent;
pub use binaries::Binaries;
pub use environment::{CONTROLLERS, Environment, EnvironmentBuilder};
pub use error::{CONTROLLER_MANAGER_HINT, Error, Result, SETUP_HINT};
pub use eventually::{EventuallyTimeout, POLL_INTERVAL, eventually};
pub use kubeconfig::CONTEXT_NAME;
pub use privilege::{Allowance, PrivilegeReport};
pub use service_accounts::OperatorProcess;
pub use webhooks::WebhookServer;
