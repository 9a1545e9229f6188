//! The manager: runs controllers, leader election and the HTTP endpoints, and shuts them down in order on
//! SIGTERM/SIGINT: stop taking work, let in-flight reconciles finish, release the lease, close the listeners.

#[cfg(feature = "mimalloc")]
pub mod allocator;
pub(crate) mod context;
pub mod leader;
pub mod logging;
pub(crate) mod options;
pub mod outage;

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use futures::FutureExt;
use futures::future::BoxFuture;
use kube::Client;
use kube::runtime::events::Recorder;
use tokio::net::TcpListener;
use tokio::sync::watch;
use tokio::task::{JoinHandle, JoinSet};

use crate::Error;
use crate::context::{Context, Readiness, Shared, reporter};
use crate::leader::{LeaderElectionConfig, LeaderElector, Term, TermEnd, default_identity};
use crate::metrics::Metrics;
use crate::options::{ManagerOptions, parse_bind_address};
use crate::secure::{self, Authorizer};
use crate::server;
use crate::shard::membership::Member;
use crate::webhook::{Intake, Webhooks};
use crate::webhook_certs::WebhookCertificates;

/// controller-runtime's default GracefulShutdownTimeout.
pub const DEFAULT_GRACEFUL_SHUTDOWN_TIMEOUT: Duration = Duration::from_secs(30);

const SERVICE_ACCOUNT_NAMESPACE: &str = "/var/run/secrets/kubernetes.io/serviceaccount/namespace";

/// Configures a [`Manager`]; see [`Manager::builder`].
#[must_use]
pub struct ManagerBuilder {
    name: String,
    options: ManagerOptions,
    client: Option<Client>,
    config: Option<kube::Config>,
    identity: Option<String>,
    /// Whether watches ask for streaming lists first (initial_list.rs); default true.
    streaming_lists: bool,
    /// The namespaces given by [`Self::watch_namespace`] or [`Self::watch_namespaces`]; WATCH_NAMESPACE's otherwise.
    watch_namespaces: Option<Vec<String>>,
    graceful_shutdown_timeout: Duration,
    webhook_certificates: Option<WebhookCertificates>,
}

impl ManagerBuilder {
    /// Makes, serves, injects and rotates the webhook certificate in a Secret, as `--webhook-cert-secret` does
    /// (this call wins over the flags; see [`crate::webhook_certs`]).
    pub fn webhook_certificates(mut self, certificates: WebhookCertificates) -> Self {
        self.webhook_certificates = Some(certificates);
        self
    }

    /// Uses these options (usually parsed from the command line).
    pub fn options(mut self, options: ManagerOptions) -> Self {
        self.options = options;
        self
    }

    /// Uses this client instead of loading the kubeconfig / in-cluster configuration. A ready-made client reports
    /// no `rest_client_*` metrics; [`Self::config`] builds one that does.
    pub fn client(mut self, client: Client) -> Self {
        self.client = Some(client);
        self
    }

    /// Connects with this configuration instead of the kubeconfig / in-cluster one (the client reports
    /// `rest_client_*` metrics, as the default one does).
    pub fn config(mut self, config: kube::Config) -> Self {
        self.config = Some(config);
        self
    }

    /// Uses this leader election identity instead of `<hostname>_<random>`.
    pub fn identity(mut self, identity: impl Into<String>) -> Self {
        self.identity = Some(identity.into());
        self
    }

    /// Watches only `namespace`, as --namespaced with WATCH_NAMESPACE does.
    pub fn watch_namespace(mut self, namespace: impl Into<String>) -> Self {
        self.watch_namespaces = Some(vec![namespace.into()]);
        self
    }

    /// Watches only these namespaces, one watch per namespace and kind, as --namespaced with
    /// WATCH_NAMESPACE=a,b does (controller-runtime's cache with DefaultNamespaces). An empty or repeated name
    /// fails [`Self::build`].
    pub fn watch_namespaces<S: Into<String>>(
        mut self,
        namespaces: impl IntoIterator<Item = S>,
    ) -> Self {
        self.watch_namespaces = Some(namespaces.into_iter().map(Into::into).collect());
        self
    }

    /// Whether the controllers' watches get their initial state by a streaming list (WatchList) where the API
    /// server supports one (default true): see the `informer::initial_list` module. A server that refuses one, or
    /// stalls one (kube-apiserver without its watch cache), makes them list, then watch, logged once. `false` makes
    /// them list, then watch, from the start, as kube-runtime's and controller-runtime's do by default. Either way
    /// the role needs `list` (and `watch`): a streaming list is authorized as `watch`, the fallback lists.
    pub fn streaming_lists(mut self, streaming: bool) -> Self {
        self.streaming_lists = streaming;
        self
    }

    /// How long in-flight reconciles may take to finish after a stop is requested (default 30 s).
    pub fn graceful_shutdown_timeout(mut self, timeout: Duration) -> Self {
        self.graceful_shutdown_timeout = timeout;
        self
    }

    /// Validates the options, connects, and binds the listeners (so a port conflict fails here, not later).
    pub async fn build(self) -> Result<Manager, Error> {
        let options = self.options;
        options.validate()?;
        if options.enable_http2 {
            tracing::warn!(
                "--enable-http2 is accepted but has no effect: rkb's metrics and webhook servers speak HTTP/1.1 only"
            );
        }
        let namespaces = match self.watch_namespaces {
            Some(given) => crate::options::parse_namespace_list(&given.join(","))?,
            None => options.watch_namespaces()?,
        };
        let certificates = self
            .webhook_certificates
            .or_else(|| options.webhook_certificates());
        if let Some(certificates) = &certificates {
            certificates.validate()?;
        }
        let metrics = Metrics::new();
        let client = connect(self.client, self.config, &metrics).await?;
        let certificates = certificates.map(|c| {
            let namespace = c
                .namespace
                .clone()
                .unwrap_or_else(|| own_namespace(&client));
            (namespace, c)
        });
        let (metrics_listener, metrics_tls) = bind_metrics(&options).await?;
        let health_listener = bind(parse_bind_address(
            "--health-probe-bind-address",
            &options.health_probe_bind_address,
        )?)
        .await?;
        let leader_election = options
            .leader_elect
            .then(|| leader_election_config(&options, &self.name, self.identity.clone(), &client));
        let (leader_tx, leader_rx) = watch::channel(match leader_election {
            None => Term::Unelected,
            Some(_) => Term::Following,
        });
        let shard = options
            .sharded
            .then(|| shard_member(&options, &self.name, &client))
            .transpose()?
            .map(Arc::new);
        let (shutdown_tx, shutdown_rx) = watch::channel(false);
        let shared = Arc::new(Shared {
            recorder: Recorder::new(client.clone(), reporter(&self.name)),
            client,
            name: self.name,
            namespaces,
            metrics,
            leader: leader_rx,
            shutdown: shutdown_rx,
            readiness: Readiness::default(),
            outage: crate::outage::Outage::default(),
            streaming_lists: Arc::new(if self.streaming_lists {
                crate::initial_list::StreamingLists::default()
            } else {
                crate::initial_list::StreamingLists::off()
            }),
            shard,
        });
        Ok(Manager {
            shared,
            leader_election,
            leader_tx,
            shutdown_tx,
            metrics_listener,
            metrics_tls,
            health_listener,
            controllers: std::sync::Mutex::new(Vec::new()),
            webhooks: std::sync::Mutex::new(Webhooks::new()),
            webhook_server: WebhookServerOptions {
                port: options.webhook_port,
                cert_dir: options.webhook_cert_path.clone(),
                cert_name: options.webhook_cert_name.clone(),
                key_name: options.webhook_cert_key.clone(),
                certificates,
                intake: Intake::new(
                    options.webhook_max_request_bytes,
                    options.webhook_max_in_flight_bytes,
                    options.http_read_body_timeout,
                ),
            },
            server_limits: server::Limits::from_options(&options),
            graceful_shutdown_timeout: self.graceful_shutdown_timeout,
        })
    }
}

/// The client given, else one made from the config given, else from the inferred config (kubeconfig or in-cluster),
/// with the manager's request metrics.
async fn connect(
    client: Option<Client>,
    config: Option<kube::Config>,
    metrics: &Metrics,
) -> Result<Client, Error> {
    match (client, config) {
        (Some(client), _) => Ok(client),
        (None, Some(config)) => instrumented_client(config, metrics),
        (None, None) => {
            let config = kube::Config::infer()
                .await
                .map_err(|e| Error::Client(kube::Error::InferConfig(e)))?;
            instrumented_client(config, metrics)
        }
    }
}

/// The lease of `--leader-elect`: named by `--leader-election-id` (else the manager's name), in
/// `--leader-election-namespace` (else the pod's, else the client's default namespace).
fn leader_election_config(
    options: &ManagerOptions,
    name: &str,
    identity: Option<String>,
    client: &Client,
) -> LeaderElectionConfig {
    LeaderElectionConfig {
        lease_name: options
            .leader_election_id
            .clone()
            .unwrap_or_else(|| name.to_string()),
        namespace: options
            .leader_election_namespace
            .clone()
            .unwrap_or_else(|| own_namespace(client)),
        identity: identity.unwrap_or_else(default_identity),
        lease_duration: options.leader_elect_lease_duration,
        renew_deadline: options.leader_elect_renew_deadline,
        retry_period: options.leader_elect_retry_period,
    }
}

/// This replica's membership of the shard ring under --sharded: the ring is the leader election Lease's name (so
/// it names the manager's Leases and labels), in its namespace.
fn shard_member(options: &ManagerOptions, name: &str, client: &Client) -> Result<Member, Error> {
    let ring = options
        .leader_election_id
        .clone()
        .unwrap_or_else(|| name.to_string());
    if !crate::shard::is_ring_name(&ring) {
        return Err(Error::InvalidOptions(format!(
            "--sharded names its Leases and labels after the ring, the leader election id {ring:?}, which must \
             then be lowercase letters, digits, '-' and '.', at most 63, starting and ending with a letter or \
             digit: pass such a --leader-election-id"
        )));
    }
    if !options.leader_elect {
        tracing::warn!(
            "--sharded without --leader-elect: every replica runs the sharder; run several replicas with --leader-elect"
        );
    }
    let namespace = options
        .leader_election_namespace
        .clone()
        .unwrap_or_else(|| own_namespace(client));
    let identity = options
        .shard_identity
        .clone()
        .unwrap_or_else(crate::shard::membership::default_identity);
    Ok(Member::new(
        ring,
        identity,
        namespace,
        options.shard_lease_duration,
    ))
}

/// The pod's namespace, else the client's default one.
fn own_namespace(client: &Client) -> String {
    std::fs::read_to_string(SERVICE_ACCOUNT_NAMESPACE)
        .ok()
        .map(|s| s.trim().to_string())
        .unwrap_or_else(|| client.default_namespace().to_string())
}

/// The metrics listener, and its TLS configuration when it serves securely. The certificate is loaded (or made)
/// now, so a bad --metrics-cert-path fails at startup.
async fn bind_metrics(
    options: &ManagerOptions,
) -> Result<(Option<TcpListener>, Option<rustls::ServerConfig>), Error> {
    let listener = bind(parse_bind_address(
        "--metrics-bind-address",
        &options.metrics_bind_address,
    )?)
    .await?;
    let tls = match (&listener, options.metrics_secure) {
        (Some(_), true) => Some(secure::tls_config(
            options.metrics_cert_path.as_deref(),
            &options.metrics_cert_name,
            &options.metrics_cert_key,
        )?),
        _ => None,
    };
    Ok((listener, tls))
}

async fn bind(addr: Option<SocketAddr>) -> Result<Option<TcpListener>, Error> {
    match addr {
        None => Ok(None),
        Some(addr) => TcpListener::bind(addr)
            .await
            .map(Some)
            .map_err(|source| Error::Listen { addr, source }),
    }
}

/// Where and with which certificate the webhook server listens, and how it reads bodies (the --webhook-* flags).
struct WebhookServerOptions {
    port: u16,
    cert_dir: std::path::PathBuf,
    cert_name: String,
    key_name: String,
    /// --webhook-cert-secret: the certificates' namespace and settings.
    certificates: Option<(String, WebhookCertificates)>,
    intake: Intake,
}

/// A controller's future, yielding its name with its result.
/// A controller's name and how it ended; the error is kept whole so its `source()` chain reaches the manager's
/// [`Error::Controller`].
type ControllerOutcome = (String, Result<(), crate::BoxError>);
type ControllerFuture = BoxFuture<'static, ControllerOutcome>;

/// Runs controllers with leader election, metrics and health endpoints. See the crate docs for an example.
pub struct Manager {
    shared: Arc<Shared>,
    leader_election: Option<LeaderElectionConfig>,
    leader_tx: watch::Sender<Term>,
    shutdown_tx: watch::Sender<bool>,
    metrics_listener: Option<TcpListener>,
    metrics_tls: Option<rustls::ServerConfig>,
    health_listener: Option<TcpListener>,
    // Behind a lock so `add` takes &self: the scaffolded main.rs binds the manager without `mut`.
    controllers: std::sync::Mutex<Vec<ControllerFuture>>,
    webhooks: std::sync::Mutex<Webhooks>,
    webhook_server: WebhookServerOptions,
    /// What every listener holds its connections to (the --http-* flags).
    server_limits: server::Limits,
    graceful_shutdown_timeout: Duration,
}

impl Manager {
    /// Binds --webhook-port with the webhook certificate and serves `webhooks` until `stop`; /readyz waits for it.
    async fn start_webhook_server(
        &self,
        webhooks: Webhooks,
        stop: watch::Receiver<bool>,
    ) -> Result<AbortOnDrop<std::io::Result<()>>, Error> {
        let o = &self.webhook_server;
        let gate = self.shared.readiness.gate("webhook-server");
        let addr = SocketAddr::from(([0, 0, 0, 0], o.port));
        let (tls, follower) = match &o.certificates {
            None => (
                secure::webhook_tls_config(&o.cert_dir, &o.cert_name, &o.key_name)?,
                None,
            ),
            // Ready once the Secret's certificate is served: until then every handshake fails.
            Some((namespace, certificates)) => {
                let (tls, cert) = crate::webhook_certs::tls_config()?;
                let secrets = kube::Api::namespaced(self.shared.client.clone(), namespace);
                let follow =
                    crate::webhook_certs::follow(secrets, certificates.secret.clone(), cert, {
                        let gate = gate.clone();
                        move || gate.set_ready()
                    });
                (tls, Some(AbortOnDrop(tokio::spawn(follow))))
            }
        };
        let listener = TcpListener::bind(addr)
            .await
            .map_err(|source| Error::Listen { addr, source })?;
        let paths: Vec<&str> = webhooks.paths().collect();
        tracing::info!(%addr, ?paths, "serving webhooks");
        let endpoints = server::Endpoints::Webhooks {
            webhooks,
            metrics: self.shared.metrics.clone(),
            intake: o.intake.clone(),
        };
        if follower.is_none() {
            gate.set_ready();
        }
        let limits = self.server_limits;
        Ok(AbortOnDrop(tokio::spawn(async move {
            // The Secret is followed for as long as the server runs (dropped, it stops).
            let _follower = follower;
            server::serve(listener, Some(tls), endpoints, limits, until_true(stop)).await
        })))
    }

    /// The leader's certificate writer of --webhook-cert-secret, when set (see [`crate::webhook_certs`]).
    fn start_certificate_writer(&self) -> Option<AbortOnDrop<std::io::Result<()>>> {
        let (namespace, certificates) = self.webhook_server.certificates.clone()?;
        let ctx = self.context();
        Some(AbortOnDrop(tokio::spawn(async move {
            crate::webhook_certs::write(ctx, namespace, certificates).await;
            Ok(())
        })))
    }
}

/// Aborts the task when dropped, so dropping (or aborting) a running manager stops everything it started,
/// including lease renewal: the other candidates then take over after the lease duration.
struct AbortOnDrop<T>(JoinHandle<T>);

impl<T> Drop for AbortOnDrop<T> {
    fn drop(&mut self) {
        self.0.abort();
    }
}

/// A kube client for `config` whose requests are counted and timed in `metrics` (rest_metrics.rs) and whose
/// metadata watches are protobuf on the wire (client/protobuf_watch/).
fn instrumented_client(config: kube::Config, metrics: &Metrics) -> Result<Client, Error> {
    let layer = crate::rest_metrics::RestMetricsLayer::new(metrics.clone(), &config.cluster_url);
    let builder = kube::client::ClientBuilder::try_from(config).map_err(Error::Client)?;
    let builder = builder.with_layer(&crate::client::ProtobufWatchLayer);
    Ok(builder.with_layer(&layer).build())
}

impl Manager {
    /// A manager named `name`: the default Lease name, field manager and events reporter.
    pub fn builder(name: impl Into<String>) -> ManagerBuilder {
        ManagerBuilder {
            name: name.into(),
            // Without `.options(..)` (tests, embedding): no listeners, no leader election. The command line's
            // defaults (health probes on :8081, ...) apply through `.options(ManagerOptions::parse(about))`.
            options: ManagerOptions {
                metrics_bind_address: "0".into(),
                health_probe_bind_address: "0".into(),
                ..ManagerOptions::default()
            },
            client: None,
            config: None,
            identity: None,
            watch_namespaces: None,
            streaming_lists: true,
            graceful_shutdown_timeout: DEFAULT_GRACEFUL_SHUTDOWN_TIMEOUT,
            webhook_certificates: None,
        }
    }

    /// Adds a controller: a function that receives the [`Context`] and runs until the context's shutdown signal,
    /// e.g. one that ends in [`crate::ControllerBuilder::run`]. It starts when the manager runs. Its error (any
    /// that converts into a [`crate::BoxError`], as a reconciler's does) ends the manager with
    /// [`Error::Controller`], whose `source()` is that error, kept whole with its own causes.
    pub fn add<F, Fut, E>(&self, controller: F) -> &Self
    where
        F: FnOnce(Context) -> Fut,
        Fut: Future<Output = Result<(), E>> + Send + 'static,
        E: Into<crate::BoxError>,
    {
        let ctx = Context::for_controller(self.shared.clone());
        let mut fut = Box::pin(controller(ctx.clone()));
        // After its first poll the controller has run up to its first wait, so it has gated readiness if it
        // has caches (see Context::gate_readiness); until then /readyz waits for it.
        let mut polled = false;
        let started = ctx.clone();
        let fut = futures::future::poll_fn(move |cx| {
            let poll = fut.as_mut().poll(cx);
            if !polled {
                polled = true;
                started.mark_started();
            }
            poll
        });
        let fut = async move {
            let result = fut.await.map_err(Into::into);
            (ctx.controller_name(), result)
        };
        self.controllers
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .push(fut.boxed());
        self
    }

    /// Serves these admission webhooks (added to any served before) on `--webhook-port` once the manager runs,
    /// on every replica, leader or not (see [`crate::webhook`]).
    pub fn serve_webhooks(&self, webhooks: Webhooks) -> &Self {
        let mut served = self.webhooks.lock().unwrap_or_else(|e| e.into_inner());
        *served = std::mem::take(&mut *served).merge(webhooks);
        self
    }

    /// A context for work outside controllers (it takes no part in readiness).
    pub fn context(&self) -> Context {
        Context::detached(self.shared.clone())
    }

    /// The manager's metrics registry.
    pub fn metrics(&self) -> &Metrics {
        &self.shared.metrics
    }

    /// The address /metrics is served on, once built (useful with port 0).
    pub fn metrics_addr(&self) -> Option<SocketAddr> {
        self.metrics_listener
            .as_ref()
            .and_then(|l| l.local_addr().ok())
    }

    /// The address /healthz and /readyz are served on, once built.
    pub fn health_addr(&self) -> Option<SocketAddr> {
        self.health_listener
            .as_ref()
            .and_then(|l| l.local_addr().ok())
    }

    /// The leader election identity, when leader election is on.
    pub fn identity(&self) -> Option<&str> {
        self.leader_election.as_ref().map(|c| c.identity.as_str())
    }

    /// Runs until SIGTERM or SIGINT, then shuts down gracefully. A second signal exits at once.
    pub async fn run(self) -> Result<(), Error> {
        use tokio::signal::unix::{SignalKind, signal};
        let mut term = signal(SignalKind::terminate()).map_err(Error::Signal)?;
        let stop = async move {
            tokio::select! {
                _ = term.recv() => tracing::info!("SIGTERM received, shutting down"),
                _ = tokio::signal::ctrl_c() => tracing::info!("SIGINT received, shutting down"),
            }
            tokio::spawn(async move {
                let mut term = signal(SignalKind::terminate()).ok();
                let second_term = async {
                    match term.as_mut() {
                        Some(t) => {
                            t.recv().await;
                        }
                        None => futures::future::pending::<()>().await,
                    }
                };
                tokio::select! {
                    _ = second_term => {}
                    _ = tokio::signal::ctrl_c() => {}
                }
                tracing::error!("second signal received, exiting");
                std::process::exit(1);
            });
        };
        self.run_until(stop).await
    }

    /// Runs the manager on a background task, for tests and programs that do other work meanwhile.
    /// [`RunningManager::stop`] stops it gracefully; dropping the handle stops it too, without waiting.
    pub fn spawn(self) -> RunningManager {
        let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
        let task = tokio::spawn(self.run_until(async {
            // A dropped sender ends the wait as well: the handle's drop is a stop request.
            let _ = stopped.await;
        }));
        RunningManager { stop, task }
    }

    /// Runs until `stop` resolves (or a controller fails, or leadership is lost), then shuts down gracefully.
    pub async fn run_until(mut self, stop: impl Future<Output = ()> + Send) -> Result<(), Error> {
        let (servers_stop_tx, servers_stop_rx) = watch::channel(false);
        let mut servers = self.start_servers(&servers_stop_rx).await?;
        let (elector_stop_tx, elector_stop_rx) = watch::channel(false);
        let mut elector_task = self.leader_election.clone().map(|config| {
            let elector = LeaderElector::new(self.shared.client.clone(), config)
                .with_metrics(self.shared.metrics.clone());
            AbortOnDrop(tokio::spawn(lead(
                elector,
                self.leader_tx.clone(),
                elector_stop_rx,
            )))
        });
        let (member_stop_tx, member_stop_rx) = watch::channel(false);
        let mut member_task = self.shared.shard.clone().map(|member| {
            let client = self.shared.client.clone();
            AbortOnDrop(tokio::spawn(async move {
                member.hold(client, member_stop_rx).await
            }))
        });
        let mut controllers = JoinSet::new();
        let added = std::mem::take(
            self.controllers
                .get_mut()
                .unwrap_or_else(|e| e.into_inner()),
        );
        for fut in added {
            controllers.spawn(fut);
        }

        let lost = Lost {
            elector: elector_task.as_mut(),
            member: member_task.as_mut(),
        };
        let failure = match wait_for_stop(stop, &mut controllers, lost).await {
            Stopped::Requested => None,
            Stopped::Failed(error) => {
                // Logged now, whole: draining the others may take the graceful shutdown timeout.
                tracing::error!(error = %crate::ErrorChain(&error), "a controller failed, stopping");
                Some(error)
            }
            Stopped::LeadershipLost(message) => {
                // controller-runtime exits at once here: another replica may already lead, so no reconcile may
                // run any more, not even to finish.
                tracing::error!(%message, "leader election lost");
                controllers.abort_all();
                let _ = servers_stop_tx.send(true);
                return Err(Error::LeadershipLost(message));
            }
            Stopped::ShardLeaseLost(message) => {
                // As after leadership is lost: the sharder may already move this replica's objects.
                tracing::error!(%message, "shard lease lost");
                controllers.abort_all();
                let _ = servers_stop_tx.send(true);
                return Err(Error::ShardLeaseLost(message));
            }
        };

        self.drain(&mut controllers).await;
        // Only now leave the shard ring and give the lease away: nothing of ours reconciles any more.
        let _ = member_stop_tx.send(true);
        if let (Some(task), Some(member)) = (member_task.as_mut(), &self.shared.shard) {
            let _ = (&mut task.0).await;
            member.release(self.shared.client.clone()).await;
        }
        let _ = elector_stop_tx.send(true);
        if let Some(task) = elector_task.as_mut() {
            let _ = (&mut task.0).await;
        }
        let _ = servers_stop_tx.send(true);
        for s in servers.iter_mut() {
            let _ = (&mut s.0).await;
        }
        tracing::info!("manager stopped");
        failure.map_or(Ok(()), Err)
    }

    /// Starts what the manager serves: /metrics, the webhooks, the health probes. Each stops when `stop` turns
    /// true.
    async fn start_servers(
        &mut self,
        stop: &watch::Receiver<bool>,
    ) -> Result<Vec<AbortOnDrop<std::io::Result<()>>>, Error> {
        let mut servers = Vec::new();
        if let Some(listener) = self.metrics_listener.take() {
            servers.push(self.start_metrics_server(listener, stop));
        }
        let webhooks = std::mem::take(self.webhooks.get_mut().unwrap_or_else(|e| e.into_inner()));
        if !webhooks.is_empty() {
            servers.push(self.start_webhook_server(webhooks, stop.clone()).await?);
            servers.extend(self.start_certificate_writer());
        }
        if let Some(listener) = self.health_listener.take() {
            tracing::info!(addr = ?listener.local_addr().ok(), "serving health probes");
            let endpoints = server::Endpoints::Health {
                readiness: self.shared.readiness.clone(),
            };
            servers.push(AbortOnDrop(tokio::spawn(server::serve(
                listener,
                None,
                endpoints,
                self.server_limits,
                until_true(stop.clone()),
            ))));
        }
        Ok(servers)
    }

    /// /metrics: over HTTPS with authentication and authorisation when TLS is configured, plain HTTP otherwise.
    fn start_metrics_server(
        &mut self,
        listener: TcpListener,
        stop: &watch::Receiver<bool>,
    ) -> AbortOnDrop<std::io::Result<()>> {
        let addr = listener.local_addr().ok();
        let tls = self.metrics_tls.take();
        let auth = if tls.is_some() {
            tracing::info!(
                ?addr,
                "serving metrics over HTTPS with authentication and authorisation"
            );
            Some(Box::new(Authorizer::new(self.shared.client.clone())))
        } else {
            tracing::info!(
                ?addr,
                "serving metrics over plain HTTP, without authentication"
            );
            None
        };
        let endpoints = server::Endpoints::Metrics {
            metrics: self.shared.metrics.clone(),
            auth,
        };
        AbortOnDrop(tokio::spawn(server::serve(
            listener,
            tls,
            endpoints,
            self.server_limits,
            until_true(stop.clone()),
        )))
    }

    /// Graceful shutdown: controllers stop taking work and finish what is in flight, within the timeout.
    async fn drain(&self, controllers: &mut JoinSet<ControllerOutcome>) {
        tracing::info!("stopping controllers");
        let _ = self.shutdown_tx.send(true);
        let drained = tokio::time::timeout(self.graceful_shutdown_timeout, async {
            while let Some(joined) = controllers.join_next().await {
                if let Ok((name, Err(error))) = joined {
                    let error = crate::ErrorChain(&*error);
                    tracing::error!(controller = %name, %error, "controller failed during shutdown");
                }
            }
        })
        .await;
        if drained.is_err() {
            tracing::warn!(timeout = ?self.graceful_shutdown_timeout, "controllers did not stop in time, aborting them");
            controllers.abort_all();
        }
    }
}

/// Why the manager stops.
enum Stopped {
    /// `stop` resolved, or every controller finished.
    Requested,
    /// A controller failed.
    Failed(Error),
    /// Leadership was lost (or the elector ended): the reason.
    LeadershipLost(String),
    /// This replica's shard Lease was not renewed in time: the reason.
    ShardLeaseLost(String),
}

/// The tasks whose end means this replica lost its right to reconcile: the leader elector and the shard member.
struct Lost<'a> {
    elector: Option<&'a mut AbortOnDrop<Option<String>>>,
    member: Option<&'a mut AbortOnDrop<Option<String>>>,
}

/// Waits for `task` to end with a reason; forever without a task, or when it ended for a stop (None).
async fn lost_reason(task: Option<&mut AbortOnDrop<Option<String>>>, ended: &str) -> String {
    match task {
        Some(task) => match (&mut task.0).await {
            Ok(Some(message)) => message,
            Ok(None) => ended.to_string(),
            Err(e) => e.to_string(),
        },
        None => futures::future::pending().await,
    }
}

/// Waits for a reason to stop: the caller's `stop`, the controllers' ends, or the elector's.
async fn wait_for_stop(
    stop: impl Future<Output = ()> + Send,
    controllers: &mut JoinSet<ControllerOutcome>,
    mut lost: Lost<'_>,
) -> Stopped {
    let mut stop = std::pin::pin!(stop);
    loop {
        let elector = lost_reason(lost.elector.as_deref_mut(), "leader election stopped");
        let member = lost_reason(lost.member.as_deref_mut(), "shard membership stopped");
        tokio::select! {
            _ = &mut stop => return Stopped::Requested,
            Some(joined) = controllers.join_next() => match joined {
                Ok((_, Ok(()))) => {
                    if controllers.is_empty() {
                        tracing::info!("all controllers finished");
                        return Stopped::Requested;
                    }
                }
                Ok((name, Err(source))) => return Stopped::Failed(Error::Controller { name, source }),
                Err(e) => {
                    return Stopped::Failed(Error::Controller { name: "controller".into(), source: e.into() });
                }
            },
            message = elector => return Stopped::LeadershipLost(message),
            message = member => return Stopped::ShardLeaseLost(message),
        }
    }
}

/// The leader election task: acquire, hold, then release on stop. Returns Some(reason) when leadership was lost.
async fn lead(
    mut elector: LeaderElector,
    leader: watch::Sender<Term>,
    mut stop: watch::Receiver<bool>,
) -> Option<String> {
    if !elector.acquire(&mut stop, &leader).await {
        return None;
    }
    match elector.hold(&mut stop, &leader).await {
        TermEnd::Stopped => {
            leader.send_replace(Term::Following);
            if let Err(e) = elector.release().await {
                tracing::warn!(error = %e, "cannot release lease; followers take over when it expires");
            }
            None
        }
        TermEnd::Lost(reason) => Some(reason),
    }
}

async fn until_true(mut rx: watch::Receiver<bool>) {
    let _ = rx.wait_for(|v| *v).await;
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A client for an address nothing listens on: enough for a manager whose controllers never call the API.
    fn offline_client() -> Client {
        let config = kube::Config::new("http://127.0.0.1:9".parse().unwrap());
        Client::try_from(config).unwrap()
    }

    /// A manager with no listeners and no leader election, on [`offline_client`].
    async fn offline_manager() -> Manager {
        Manager::builder("t")
            .client(offline_client())
            .build()
            .await
            .unwrap()
    }

    #[tokio::test]
    async fn a_builder_without_options_binds_nothing_and_elects_no_leader() {
        let mgr = offline_manager().await;
        assert_eq!(
            (mgr.metrics_addr(), mgr.health_addr(), mgr.identity()),
            (None, None, None)
        );
        assert!(mgr.context().is_leader());
    }

    #[tokio::test]
    async fn a_failing_controller_stops_the_manager_and_names_itself() {
        let mgr = offline_manager().await;
        mgr.add(|ctx: Context| async move {
            ctx.mark_ready("broken");
            Err::<(), _>("cannot start")
        });
        let stopped = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
        let seen = stopped.clone();
        mgr.add(|ctx: Context| async move {
            ctx.shutdown_signal().await;
            seen.store(true, std::sync::atomic::Ordering::SeqCst);
            Ok::<(), Error>(())
        });
        let err = mgr.run_until(futures::future::pending()).await.unwrap_err();
        assert!(
            matches!(&err, Error::Controller { name, source } if name == "broken" && source.to_string() == "cannot start"),
            "{err}"
        );
        // The other controller was asked to stop and finished before run_until returned.
        assert!(stopped.load(std::sync::atomic::Ordering::SeqCst));
    }

    #[tokio::test]
    async fn a_controllers_nested_error_reaches_the_managers_error_with_its_cause_once() {
        let mgr = offline_manager().await;
        // A runnable that serves something: its error says what failed, source() says why (error.rs's contract).
        mgr.add(|ctx: Context| async move {
            ctx.mark_ready("probe-server");
            Err::<(), _>(Error::Listen {
                addr: "127.0.0.1:8080".parse().unwrap(),
                source: std::io::Error::new(std::io::ErrorKind::AddrInUse, "address in use"),
            })
        });
        let err = mgr.run_until(futures::future::pending()).await.unwrap_err();
        assert_eq!(
            crate::ErrorChain(&err).to_string(),
            "controller probe-server failed: cannot listen on 127.0.0.1:8080: address in use"
        );
        // The cause is the runnable's own error, not a copy of its text.
        let cause = std::error::Error::source(&err).unwrap();
        assert!(
            matches!(cause.downcast_ref::<Error>(), Some(Error::Listen { .. })),
            "{cause}"
        );
    }

    #[tokio::test]
    async fn a_bad_bind_address_fails_the_build() {
        let options = ManagerOptions {
            health_probe_bind_address: "nope".into(),
            ..ManagerOptions::default()
        };
        let err = Manager::builder("t")
            .client(offline_client())
            .options(options)
            .build()
            .await
            .err()
            .unwrap();
        assert!(matches!(err, Error::BindAddress { .. }), "{err}");
    }
}

/// A manager started by [`Manager::spawn`].
#[derive(Debug)]
pub struct RunningManager {
    stop: tokio::sync::oneshot::Sender<()>,
    task: JoinHandle<Result<(), Error>>,
}

impl RunningManager {
    /// Stops the manager gracefully (in-flight reconciles finish, leadership is released) and returns how it
    /// ended. A panic of the manager's task resumes here, so a test sees it.
    pub async fn stop(self) -> Result<(), Error> {
        let _ = self.stop.send(());
        match self.task.await {
            Ok(result) => result,
            Err(err) if err.is_panic() => std::panic::resume_unwind(err.into_panic()),
            Err(err) => Err(Error::Controller {
                name: "manager".to_string(),
                source: err.into(),
            }),
        }
    }

    /// Whether the manager has ended already (a controller failed, or leadership was lost).
    pub fn is_finished(&self) -> bool {
        self.task.is_finished()
    }
}
