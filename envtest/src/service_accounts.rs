//! Running an operator's own binary against the environment as its ServiceAccount, the way a cluster runs its
//! pod: a token from the TokenRequest API in a kubeconfig, and the binary as a process that cannot outlive the test.
//!
//! This is what an end-to-end test needs when there is no cluster: the project's manifests applied (the
//! ServiceAccount and its bindings among them), then the manager started with
//! [`Environment::spawn_as_service_account`], so the RBAC it runs under is the project's, not cluster-admin's. The
//! API server validates the tokens it issues, so the manager's secure metrics endpoint can authenticate and
//! authorize requests (TokenReview, SubjectAccessReview) against it as in a cluster.
//!
//! Contract: tokens are bound to the ServiceAccount (not to a pod) and expire after an hour; a process started
//! here is killed when its [`OperatorProcess`] is dropped, and, through the same parent-death signal as the control
//! plane's processes, when the test process dies. Its output goes to `<dir>/<name>.log`.

use std::path::{Path, PathBuf};

use k8s_openapi::api::authentication::v1::{TokenRequest, TokenRequestSpec};
use k8s_openapi::api::core::v1::ServiceAccount;
use kube::api::{Api, PostParams};

use crate::Environment;
use crate::error::{Result, io_err};
use crate::kubeconfig;
use crate::process::Process;

/// How long a token asked for here is valid: longer than any test, short enough not to matter if it leaks.
const TOKEN_SECONDS: i64 = 3600;

impl Environment {
    /// A token of the ServiceAccount `namespace/name` from the TokenRequest API (what `kubectl create token`
    /// asks for). The ServiceAccount must exist.
    pub async fn service_account_token(&self, namespace: &str, name: &str) -> Result<String> {
        let request = TokenRequest {
            spec: TokenRequestSpec {
                expiration_seconds: Some(TOKEN_SECONDS),
                ..TokenRequestSpec::default()
            },
            ..TokenRequest::default()
        };
        let issued = Api::<ServiceAccount>::namespaced(self.client(), namespace)
            .create_token_request(name, &PostParams::default(), &request)
            .await?;
        Ok(issued.status.map(|s| s.token).unwrap_or_default())
    }

    /// Writes `<dir>/<namespace>-<name>.kubeconfig`: this API server, its CA, and a token of the ServiceAccount
    /// `namespace/name`, with `namespace` as the default namespace (a pod's, so a manager finds its leader election
    /// Lease there). Returns its path.
    pub async fn service_account_kubeconfig(&self, namespace: &str, name: &str) -> Result<PathBuf> {
        let token = self.service_account_token(namespace, name).await?;
        let ca_path = self.dir().join("certs").join("ca.crt");
        let ca_pem = std::fs::read_to_string(&ca_path).map_err(io_err(&ca_path))?;
        let text = kubeconfig::render_token(self.server_url(), &ca_pem, &token, namespace);
        let path = self.dir().join(format!("{namespace}-{name}.kubeconfig"));
        std::fs::write(&path, text).map_err(io_err(&path))?;
        Ok(path)
    }

    /// Starts `program args...` with the variables `env` and `KUBECONFIG` set to
    /// [`Self::service_account_kubeconfig`]'s file, as the pod of a Deployment with `serviceAccountName: <account>`
    /// in `namespace` would run. `name` names its log, `<dir>/<name>.log`.
    pub async fn spawn_as_service_account(
        &self,
        (namespace, account): (&str, &str),
        name: &'static str,
        program: &Path,
        args: &[String],
        env: &[(&str, &str)],
    ) -> Result<OperatorProcess> {
        let kubeconfig = self.service_account_kubeconfig(namespace, account).await?;
        let env: Vec<(String, String)> = env
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .chain([("KUBECONFIG".to_string(), kubeconfig.display().to_string())])
            .collect();
        let log = self.dir().join(format!("{name}.log"));
        let process = Process::spawn_with_env(name, program, args, &env, log)?;
        Ok(OperatorProcess { process })
    }
}

/// A binary started by [`Environment::spawn_as_service_account`]; dropping it kills the process (and its process
/// group). Drop it before the environment, so the operator does not log a vanished API server.
pub struct OperatorProcess {
    process: Process,
}

impl std::fmt::Debug for OperatorProcess {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("OperatorProcess")
            .field("name", &self.process.name())
            .field("log", &self.process.log_path())
            .finish_non_exhaustive()
    }
}

impl OperatorProcess {
    /// `Err(Exited)` with the last lines of its log when the process has stopped: a test waiting for the operator
    /// checks this on each poll, so a crash fails at once with its reason instead of at a timeout.
    pub fn ensure_running(&mut self) -> Result<()> {
        self.process.ensure_running()
    }

    /// The file its stdout and stderr go to (in the environment's directory, removed with it).
    pub fn log_path(&self) -> &Path {
        self.process.log_path()
    }

    /// The last lines it printed, for a failing test's report.
    pub fn log_tail(&self) -> String {
        self.process.log_tail()
    }

    /// Kills it now (SIGKILL to its process group) and reaps it; dropping does the same.
    pub fn kill(mut self) {
        self.process.kill();
    }
}
