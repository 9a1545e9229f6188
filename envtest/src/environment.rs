//! The environment: etcd + kube-apiserver (+ kube-controller-manager) in a temp dir, a client for
//! them, and their teardown.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use k8s_openapi::api::core::v1::Namespace;
use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinition;
use kube::api::Api;
use kube::config::{KubeConfigOptions, Kubeconfig};
use kube::{Client, Config};
use tempfile::TempDir;

use crate::binaries::Binaries;
use crate::certs::Pki;
use crate::crds::{self, SourcedCrd};
use crate::error::{Error, Result, io_err};
use crate::kubeconfig;
use crate::ports;
use crate::process::Process;

/// Prefix of every environment's temp dir; stale ones (owner process gone) are swept on start.
const DIR_PREFIX: &str = "rkb-envtest-";
const OWNER_FILE: &str = "owner.pid";
/// Port races are rare; three tries make them irrelevant.
const START_ATTEMPTS: usize = 3;
const POLL: Duration = Duration::from_millis(50);
const APISERVER: &str = "kube-apiserver";

/// Controllers run by [`EnvironmentBuilder::with_controller_manager`]: enough for namespace
/// deletion, owner-reference garbage collection and default service accounts. Nothing that needs
/// nodes or a cloud.
pub const CONTROLLERS: &[&str] = &[
    "namespace-controller",
    "garbage-collector-controller",
    "serviceaccount-controller",
    "serviceaccount-token-controller",
];

/// Configures an [`Environment`]; see [`Environment::builder`].
#[derive(Clone, Debug)]
#[must_use]
pub struct EnvironmentBuilder {
    crd_dirs: Vec<PathBuf>,
    crd_yaml: Vec<String>,
    controller_manager: bool,
    assets_dir: Option<PathBuf>,
    start_timeout: Duration,
    apiserver_args: Vec<String>,
    audit_log: bool,
}

impl Default for EnvironmentBuilder {
    fn default() -> Self {
        Self {
            crd_dirs: Vec::new(),
            crd_yaml: Vec::new(),
            controller_manager: false,
            assets_dir: None,
            // Generous: CI machines are small and shared; a healthy start takes a few seconds.
            start_timeout: Duration::from_secs(60),
            apiserver_args: Vec::new(),
            audit_log: false,
        }
    }
}

impl EnvironmentBuilder {
    /// Installs every CRD in this directory's `*.yaml` / `*.yml` files (multi-document; other
    /// kinds skipped) before `start` returns. May be called more than once. A missing directory
    /// is an error.
    pub fn crd_dir(mut self, dir: impl Into<PathBuf>) -> Self {
        self.crd_dirs.push(dir.into());
        self
    }

    /// Installs the CRDs in this YAML text (e.g. what `rkb manifests` generates).
    pub fn crd_yaml(mut self, yaml: impl Into<String>) -> Self {
        self.crd_yaml.push(yaml.into());
        self
    }

    /// Also runs kube-controller-manager with [`CONTROLLERS`], so namespace deletion and
    /// owner-reference cascade deletion happen as in a cluster. setup-envtest's downloads have no
    /// kube-controller-manager: `start` then fails with [`Error::ControllerManagerMissing`](crate::Error),
    /// which says how to build it, before starting anything.
    pub fn with_controller_manager(mut self) -> Self {
        self.controller_manager = true;
        self
    }

    /// Takes the binaries from this directory instead of `KUBEBUILDER_ASSETS` or the
    /// setup-envtest data directory.
    pub fn binary_assets_dir(mut self, dir: impl Into<PathBuf>) -> Self {
        self.assets_dir = Some(dir.into());
        self
    }

    /// How long each component (and each CRD) may take to become ready. Default 60 s.
    pub fn start_timeout(mut self, timeout: Duration) -> Self {
        self.start_timeout = timeout;
        self
    }

    /// An extra kube-apiserver flag such as `--feature-gates=Foo=true`; it comes after the
    /// defaults, so it overrides them.
    pub fn apiserver_arg(mut self, arg: impl Into<String>) -> Self {
        self.apiserver_args.push(arg.into());
        self
    }

    /// Makes kube-apiserver log every request (metadata only: user, verb, resource, namespace, name, code) to
    /// `<dir>/audit.log`, read back with [`Environment::audit_events`]; see the `audit` module. For tests that
    /// check which API calls a controller makes, such as comparing its role with what it uses.
    pub fn with_audit_log(mut self) -> Self {
        self.audit_log = true;
        self
    }

    /// Starts the control plane and returns once it serves requests, the CRDs are Established
    /// and (if asked for) the controller manager is healthy.
    pub async fn start(self) -> Result<Environment> {
        let started = Instant::now();
        let binaries = match &self.assets_dir {
            Some(dir) => Binaries::in_dir(dir)?,
            None => Binaries::locate()?,
        };
        if self.controller_manager {
            binaries.require_controller_manager()?;
        }
        // Read CRDs before starting anything, so a typo fails fast.
        let mut crds = Vec::new();
        for dir in &self.crd_dirs {
            crds.extend(crds::read_dir(dir)?);
        }
        for yaml in &self.crd_yaml {
            crds.extend(crds::parse(yaml, "<yaml>")?);
        }
        sweep_stale_dirs();

        let pki = Pki::generate()?;
        let mut attempt = 1;
        let mut env = loop {
            match self.start_control_plane(&binaries, &pki).await {
                Ok(env) => break env,
                Err(e) if attempt < START_ATTEMPTS && is_port_clash(&e) => {
                    tracing::debug!(attempt, "port clash, retrying: {e}");
                    attempt += 1;
                }
                Err(e) => return Err(e),
            }
        };
        if !crds.is_empty() {
            crds::install(&env.client, crds, self.start_timeout).await?;
        }
        // After the CRDs, so the garbage collector discovers their kinds at once instead of at
        // its next 30 s discovery resync.
        if self.controller_manager {
            env.start_controller_manager(&pki, self.start_timeout)
                .await?;
        }
        tracing::info!(elapsed = ?started.elapsed(), dir = %env.dir().display(), "envtest ready");
        Ok(env)
    }

    async fn start_control_plane(&self, binaries: &Binaries, pki: &Pki) -> Result<Environment> {
        let dir = tempfile::Builder::new()
            .prefix(DIR_PREFIX)
            .tempdir()
            .map_err(io_err(std::env::temp_dir()))?;
        let root = dir.path().to_path_buf();
        write(&root.join(OWNER_FILE), &std::process::id().to_string())?;
        let certs = root.join("certs");
        std::fs::create_dir(&certs).map_err(io_err(&certs))?;
        let file = |name: &str, content: &str| -> Result<String> {
            let path = certs.join(name);
            write(&path, content)?;
            Ok(path.display().to_string())
        };
        let ca = file("ca.crt", &pki.ca_pem)?;
        let tls_cert = file("serving.crt", &pki.serving.cert_pem)?;
        let tls_key = file("serving.key", &pki.serving.key_pem)?;
        let sa_key = file("service-account.key", &pki.service_account_key_pem)?;
        let sa_pub = file("service-account.pub", &pki.service_account_public_pem)?;

        let [etcd_port, peer_port, api_port] = ports::reserve(3)
            .map_err(io_err("127.0.0.1"))?
            .try_into()
            .expect("reserve(3) returns 3 ports");
        let etcd_url = format!("http://127.0.0.1:{etcd_port}");
        let peer_url = format!("http://127.0.0.1:{peer_port}");
        let server = format!("https://127.0.0.1:{api_port}");

        let etcd_args = vec![
            "--name=envtest".to_string(),
            format!("--data-dir={}", root.join("etcd").display()),
            format!("--listen-client-urls={etcd_url}"),
            format!("--advertise-client-urls={etcd_url}"),
            format!("--listen-peer-urls={peer_url}"),
            format!("--initial-advertise-peer-urls={peer_url}"),
            format!("--initial-cluster=envtest={peer_url}"),
            // Data is thrown away with the temp dir; fsync would only slow every write.
            "--unsafe-no-fsync=true".to_string(),
            "--log-level=warn".to_string(),
        ];
        let mut apiserver_args = vec![
            "--advertise-address=127.0.0.1".to_string(),
            "--bind-address=127.0.0.1".to_string(),
            format!("--secure-port={api_port}"),
            format!("--etcd-servers={etcd_url}"),
            format!("--cert-dir={}", certs.display()),
            format!("--tls-cert-file={tls_cert}"),
            format!("--tls-private-key-file={tls_key}"),
            format!("--client-ca-file={ca}"),
            format!("--service-account-issuer={server}"),
            format!("--service-account-key-file={sa_pub}"),
            format!("--service-account-signing-key-file={sa_key}"),
            "--service-cluster-ip-range=10.0.0.0/24".to_string(),
            // RBAC as in a cluster; the admin user is in system:masters and bypasses it.
            "--authorization-mode=RBAC".to_string(),
            // Needs the default ServiceAccount, which only a controller manager creates.
            "--disable-admission-plugins=ServiceAccount".to_string(),
            "--allow-privileged=true".to_string(),
            // Its bootstrap configuration is a post-start hook that /readyz waits for.
            "--enable-priority-and-fairness=false".to_string(),
            "--profiling=false".to_string(),
        ];
        if self.audit_log {
            apiserver_args.extend(crate::audit::apiserver_args(&root)?);
        }
        apiserver_args.extend(self.apiserver_args.iter().cloned());

        let etcd = Process::spawn("etcd", &binaries.etcd, &etcd_args, root.join("etcd.log"))?;
        let apiserver = Process::spawn(
            APISERVER,
            &binaries.kube_apiserver,
            &apiserver_args,
            root.join("kube-apiserver.log"),
        )?;

        let kubeconfig_text = kubeconfig::render(&server, &pki.ca_pem, &pki.admin);
        let kubeconfig_path = root.join("kubeconfig");
        write(&kubeconfig_path, &kubeconfig_text)?;
        let config = Config::from_custom_kubeconfig(
            Kubeconfig::from_yaml(&kubeconfig_text)?,
            &KubeConfigOptions::default(),
        )
        .await?;
        let client = Client::try_from(config.clone())?;

        let mut env = Environment {
            processes: vec![etcd, apiserver],
            etcd_url,
            client,
            config,
            kubeconfig_path,
            server,
            binaries: binaries.clone(),
            crd_timeout: self.start_timeout,
            audit_log: self.audit_log,
            dir: Some(dir),
        };
        env.wait_apiserver_ready(self.start_timeout).await?;
        Ok(env)
    }
}

/// A running control plane. Dropping it kills every process and deletes its temp dir.
///
/// ```no_run
/// # async fn demo() -> Result<(), rkb_envtest::Error> {
/// use rkb_envtest::Environment;
/// let env = Environment::builder()
///     .crd_dir("config/crd/bases")
///     .with_controller_manager()
///     .start()
///     .await?;
/// let client = env.client();
/// println!("kubectl --kubeconfig {} get crds", env.kubeconfig_path().display());
/// env.stop().await
/// # }
/// ```
pub struct Environment {
    /// In start order; stopped in reverse.
    processes: Vec<Process>,
    /// etcd's client URL; the same across API server restarts (they keep etcd).
    etcd_url: String,
    client: Client,
    config: Config,
    kubeconfig_path: PathBuf,
    server: String,
    binaries: Binaries,
    crd_timeout: Duration,
    /// Whether kube-apiserver writes `<dir>/audit.log`.
    pub(crate) audit_log: bool,
    /// Last field: removed after the processes are gone.
    dir: Option<TempDir>,
}

// Tests share environments across tasks and threads.
const _: () = {
    const fn send_sync<T: Send + Sync>() {}
    send_sync::<Environment>();
};

impl std::fmt::Debug for Environment {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Environment")
            .field("server", &self.server)
            .field(
                "processes",
                &self.processes.iter().map(Process::name).collect::<Vec<_>>(),
            )
            .field("dir", &self.dir())
            .finish_non_exhaustive()
    }
}

impl Environment {
    /// Configures an environment: CRDs, controller manager, binaries, timeouts.
    pub fn builder() -> EnvironmentBuilder {
        EnvironmentBuilder::default()
    }

    /// etcd and kube-apiserver with default settings.
    pub async fn start() -> Result<Self> {
        Self::builder().start().await
    }

    /// A client authenticated as a cluster admin (`system:masters`).
    pub fn client(&self) -> Client {
        self.client.clone()
    }

    /// The client's configuration, to build clients of your own (other timeouts, impersonation).
    pub fn config(&self) -> &Config {
        &self.config
    }

    /// A self-contained admin kubeconfig (`kubectl --kubeconfig <path> get all -A`).
    /// It lives in the environment's temp dir and goes away with it.
    pub fn kubeconfig_path(&self) -> &Path {
        &self.kubeconfig_path
    }

    /// The API server's URL, `https://127.0.0.1:<port>`.
    pub fn server_url(&self) -> &str {
        &self.server
    }

    /// etcd's client URL, `http://127.0.0.1:<port>` (plain HTTP, no authentication: it listens on loopback only),
    /// for tests that check what the API server stored, e.g. with etcd's v3 JSON gateway
    /// (`POST <url>/v3/kv/range`, keys under `/registry/<group>/<plural>/`). It stays the same across
    /// [`Self::restart_apiserver`] and the other restarts, which keep etcd running.
    pub fn etcd_url(&self) -> &str {
        &self.etcd_url
    }

    /// The binaries this environment runs.
    pub fn binaries(&self) -> &Binaries {
        &self.binaries
    }

    /// The temp dir with certificates, etcd data and one `<component>.log` per process.
    pub fn dir(&self) -> &Path {
        self.dir
            .as_ref()
            .map(TempDir::path)
            .unwrap_or_else(|| Path::new(""))
    }

    /// Whether kube-controller-manager runs in this environment.
    pub fn has_controller_manager(&self) -> bool {
        self.processes
            .iter()
            .any(|p| p.name() == "kube-controller-manager")
    }

    /// Installs the CRDs found in `dir` (like [`EnvironmentBuilder::crd_dir`]) and waits until
    /// they are Established. Returns them as the server stored them.
    pub async fn install_crds_from(
        &self,
        dir: impl AsRef<Path>,
    ) -> Result<Vec<CustomResourceDefinition>> {
        let crds = crds::read_dir(dir.as_ref())?;
        crds::install(&self.client, crds, self.crd_timeout).await
    }

    /// Installs the CRDs in a YAML text and waits until they are Established.
    pub async fn install_crds_yaml(&self, yaml: &str) -> Result<Vec<CustomResourceDefinition>> {
        let crds = crds::parse(yaml, "<yaml>")?;
        crds::install(&self.client, crds, self.crd_timeout).await
    }

    /// Installs CRD objects and waits until they are Established.
    pub async fn install_crds(
        &self,
        crds: impl IntoIterator<Item = CustomResourceDefinition>,
    ) -> Result<Vec<CustomResourceDefinition>> {
        let crds = crds
            .into_iter()
            .map(|crd| SourcedCrd {
                source: "<object>".into(),
                crd,
            })
            .collect();
        crds::install(&self.client, crds, self.crd_timeout).await
    }

    /// Prepares a webhook server for this environment (a free port on 127.0.0.1, a CA, a serving certificate in
    /// `<dir>/webhook-certs`) and installs the webhook configurations of `manifests_yaml` (e.g.
    /// `config/webhook/manifests.yaml`) rewritten to call it. Start the operator's webhook server with the returned
    /// port and certificate directory; see the `webhooks` module docs.
    pub async fn install_webhooks(&self, manifests_yaml: &str) -> Result<crate::WebhookServer> {
        use k8s_openapi::api::admissionregistration::v1::{
            MutatingWebhookConfiguration, ValidatingWebhookConfiguration,
        };
        use kube::api::PostParams;
        let port = ports::reserve(1).map_err(io_err(self.dir()))?[0];
        let server = crate::WebhookServer::new(port, self.dir().join("webhook-certs"))?;
        let pp = PostParams::default();
        for doc in crate::webhooks::rewrite(manifests_yaml, &server)? {
            let bad = |e: serde_json::Error| Error::Webhook(e.to_string());
            if doc["kind"] == "MutatingWebhookConfiguration" {
                let config: MutatingWebhookConfiguration =
                    serde_json::from_value(doc).map_err(bad)?;
                Api::<MutatingWebhookConfiguration>::all(self.client.clone())
                    .create(&pp, &config)
                    .await?;
            } else {
                let config: ValidatingWebhookConfiguration =
                    serde_json::from_value(doc).map_err(bad)?;
                Api::<ValidatingWebhookConfiguration>::all(self.client.clone())
                    .create(&pp, &config)
                    .await?;
            }
        }
        Ok(server)
    }

    /// Makes the CRD `crd_name` convert between its versions by calling `path` (controller-runtime serves
    /// `/convert`) on `server`, as kubebuilder's `webhook_in_<plural>.yaml` patch and CA injection do in a cluster.
    pub async fn enable_conversion(
        &self,
        crd_name: &str,
        server: &crate::WebhookServer,
        path: &str,
    ) -> Result<()> {
        use kube::api::{Patch, PatchParams};
        let mut client_config = server.client_config(path);
        // A CRD rendered by kustomize calls a Service; a merge patch keeps that unless told to drop it, and the API
        // server refuses a client config with both a URL and a Service.
        client_config["service"] = serde_json::Value::Null;
        let patch = serde_json::json!({"spec": {"conversion": {
            "strategy": "Webhook",
            "webhook": {"clientConfig": client_config, "conversionReviewVersions": ["v1"]},
        }}});
        Api::<CustomResourceDefinition>::all(self.client.clone())
            .patch(crd_name, &PatchParams::default(), &Patch::Merge(&patch))
            .await?;
        Ok(())
    }

    /// Stops kube-apiserver (SIGTERM, SIGKILL after 30 s) and starts it again with the same
    /// flags, port and certificates on the same etcd (data kept), returning once it is ready.
    /// Clients from [`client`](Self::client) keep working: same URL, same CA. For testing that
    /// watches and informers survive an API server restart.
    pub async fn restart_apiserver(&mut self) -> Result<()> {
        self.respawn_apiserver(Duration::from_secs(30), Duration::ZERO)
            .await
    }

    /// Kills kube-apiserver (SIGKILL at once: a crash, an OOM kill) and starts it again as
    /// [`restart_apiserver`](Self::restart_apiserver) does. Faster: a graceful stop waits for open watches.
    pub async fn kill_and_restart_apiserver(&mut self) -> Result<()> {
        self.respawn_apiserver(Duration::ZERO, Duration::ZERO).await
    }

    /// Kills kube-apiserver and leaves it down for `down` before starting it again as
    /// [`kill_and_restart_apiserver`](Self::kill_and_restart_apiserver) does: an outage of a known length, for
    /// measuring how clients ride it out and recover. Returns once the new server is ready.
    pub async fn kill_apiserver_for(&mut self, down: Duration) -> Result<()> {
        self.respawn_apiserver(Duration::ZERO, down).await
    }

    /// Stops kube-apiserver, allowing it `grace` after SIGTERM, waits `down`, and starts it again, returning once
    /// it is ready.
    async fn respawn_apiserver(&mut self, grace: Duration, down: Duration) -> Result<()> {
        let index = self
            .processes
            .iter()
            .position(|p| p.name() == APISERVER)
            .expect("an environment always runs kube-apiserver");
        self.processes[index].terminate(grace).await;
        // The outage itself, not a wait for state: nothing answers on the port meanwhile.
        tokio::time::sleep(down).await;
        let mut attempt = 1;
        loop {
            self.processes[index] = self.processes[index].respawn()?;
            match self.wait_apiserver_ready(self.crd_timeout).await {
                // The port was free a moment ago; someone may grab it, so retry like start does.
                Err(e) if attempt < START_ATTEMPTS && is_port_clash(&e) => {
                    tracing::debug!(attempt, "port clash on restart, retrying: {e}");
                    tokio::time::sleep(Duration::from_millis(500)).await;
                    attempt += 1;
                }
                other => return other,
            }
        }
    }

    /// Stops every process and deletes the temp dir, reporting a failure to delete it.
    /// Dropping the environment does the same, silently.
    pub async fn stop(mut self) -> Result<()> {
        self.kill_all();
        match self.dir.take() {
            Some(dir) => {
                let path = dir.path().to_path_buf();
                dir.close().map_err(io_err(path))
            }
            None => Ok(()),
        }
    }

    fn kill_all(&mut self) {
        for p in self.processes.iter_mut().rev() {
            p.kill();
        }
    }

    /// Polls `/readyz` (every post-start hook done), then the `default` namespace (created by a
    /// bootstrap controller just after), watching that etcd and the API server stay up.
    async fn wait_apiserver_ready(&mut self, timeout: Duration) -> Result<()> {
        let deadline = Instant::now() + timeout;
        // No client-side retries: this loop is the retry, and it must see each failure.
        let mut probe_config = self.config.clone();
        probe_config.default_retry = false;
        probe_config.connect_timeout = Some(Duration::from_secs(2));
        let probe = Client::try_from(probe_config)?;
        let namespaces: Api<Namespace> = Api::all(probe.clone());
        let mut last_probe;
        loop {
            for p in &mut self.processes {
                p.ensure_running()?;
            }
            let readyz = http::Request::get("/readyz")
                .body(Vec::new())
                .expect("a static request is valid");
            match probe.request_text(readyz).await {
                Ok(_) => match namespaces.get_opt("default").await {
                    Ok(Some(_)) => return Ok(()),
                    Ok(None) => last_probe = "namespace default not created yet".into(),
                    Err(e) => last_probe = format!("GET namespace default: {e}"),
                },
                Err(e) => last_probe = format!("GET /readyz: {e}"),
            }
            if Instant::now() >= deadline {
                let apiserver = self
                    .processes
                    .iter()
                    .find(|p| p.name() == APISERVER)
                    .expect("an environment always runs kube-apiserver");
                return Err(Error::NotReady {
                    binary: apiserver.name(),
                    timeout,
                    last_probe,
                    log: apiserver.log_path().to_path_buf(),
                    log_tail: apiserver.log_tail(),
                });
            }
            tokio::time::sleep(POLL).await;
        }
    }

    async fn start_controller_manager(&mut self, pki: &Pki, timeout: Duration) -> Result<()> {
        let binary = self.binaries.require_controller_manager()?.to_path_buf();
        let root = self.dir().to_path_buf();
        let certs = root.join("certs");
        let kcm_kubeconfig = root.join("kube-controller-manager.kubeconfig");
        write(
            &kcm_kubeconfig,
            &kubeconfig::render(&self.server, &pki.ca_pem, &pki.controller_manager),
        )?;
        let mut attempt = 1;
        loop {
            let [port] = ports::reserve(1)
                .map_err(io_err("127.0.0.1"))?
                .try_into()
                .expect("reserve(1) returns 1 port");
            let kc = kcm_kubeconfig.display();
            let args = vec![
                format!("--kubeconfig={kc}"),
                format!("--authentication-kubeconfig={kc}"),
                format!("--authorization-kubeconfig={kc}"),
                "--bind-address=127.0.0.1".to_string(),
                format!("--secure-port={port}"),
                format!("--tls-cert-file={}", certs.join("serving.crt").display()),
                format!(
                    "--tls-private-key-file={}",
                    certs.join("serving.key").display()
                ),
                format!("--controllers={}", CONTROLLERS.join(",")),
                "--leader-elect=false".to_string(),
                "--use-service-account-credentials=false".to_string(),
                format!(
                    "--service-account-private-key-file={}",
                    certs.join("service-account.key").display()
                ),
                format!("--root-ca-file={}", certs.join("ca.crt").display()),
                "--profiling=false".to_string(),
            ];
            let process = Process::spawn(
                "kube-controller-manager",
                &binary,
                &args,
                root.join("kube-controller-manager.log"),
            )?;
            self.processes.push(process);
            match self.wait_controller_manager_healthy(port, timeout).await {
                Ok(()) => return Ok(()),
                Err(e) if attempt < START_ATTEMPTS && is_port_clash(&e) => {
                    tracing::debug!(attempt, "port clash, retrying: {e}");
                    if let Some(mut p) = self.processes.pop() {
                        p.kill();
                    }
                    attempt += 1;
                }
                Err(e) => return Err(e),
            }
        }
    }

    /// Polls the controller manager's `/healthz` (served with our certificate, so our CA works).
    async fn wait_controller_manager_healthy(
        &mut self,
        port: u16,
        timeout: Duration,
    ) -> Result<()> {
        let deadline = Instant::now() + timeout;
        let mut config = self.config.clone();
        config.cluster_url = format!("https://127.0.0.1:{port}")
            .parse()
            .expect("a loopback URL is valid");
        config.default_retry = false;
        config.connect_timeout = Some(Duration::from_secs(2));
        let probe = Client::try_from(config)?;
        let mut last_probe;
        loop {
            for p in &mut self.processes {
                p.ensure_running()?;
            }
            let healthz = http::Request::get("/healthz")
                .body(Vec::new())
                .expect("a static request is valid");
            match probe.request_text(healthz).await {
                Ok(_) => return Ok(()),
                Err(e) => last_probe = format!("GET /healthz: {e}"),
            }
            if Instant::now() >= deadline {
                let kcm = self.processes.last().expect("just pushed");
                return Err(Error::NotReady {
                    binary: kcm.name(),
                    timeout,
                    last_probe,
                    log: kcm.log_path().to_path_buf(),
                    log_tail: kcm.log_tail(),
                });
            }
            tokio::time::sleep(POLL).await;
        }
    }
}

impl Drop for Environment {
    fn drop(&mut self) {
        // Processes first; the temp dir field is dropped (deleted) after this body.
        self.kill_all();
    }
}

fn is_port_clash(e: &Error) -> bool {
    matches!(e, Error::Exited { log_tail, .. } if log_tail.contains("address already in use"))
}

fn write(path: &Path, content: &str) -> Result<()> {
    std::fs::write(path, content).map_err(io_err(path))
}

/// Deletes temp dirs left by test processes that died without running destructors (SIGKILL).
/// Their control plane processes died with them (parent-death signal).
fn sweep_stale_dirs() {
    let Ok(entries) = std::fs::read_dir(std::env::temp_dir()) else {
        return;
    };
    for entry in entries.filter_map(|e| e.ok()) {
        if !entry.file_name().to_string_lossy().starts_with(DIR_PREFIX) {
            continue;
        }
        let dir = entry.path();
        // No owner file yet means the dir is being set up right now: leave it.
        let Some(pid) = std::fs::read_to_string(dir.join(OWNER_FILE))
            .ok()
            .and_then(|s| s.trim().parse::<i32>().ok())
            .and_then(rustix::process::Pid::from_raw)
        else {
            continue;
        };
        if rustix::process::test_kill_process(pid) == Err(rustix::io::Errno::SRCH) {
            tracing::debug!(dir = %dir.display(), "removing stale envtest dir");
            let _ = std::fs::remove_dir_all(&dir);
        }
    }
}
