//! Shared helpers of the runtime's envtest-backed tests (polling for outcomes: `rkb_envtest::eventually`).
#![allow(dead_code)]

pub mod kinds;

use std::collections::BTreeMap;
use std::net::SocketAddr;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::Duration;

use k8s_openapi::api::core::v1::{ConfigMap, Namespace};
use kube::api::{ObjectMeta, Patch, PatchParams, PostParams};
use kube::{Api, Client};
use rkb_runtime::ManagerOptions;

/// Options with every listener off and no leader election: tests switch on what they exercise.
pub fn quiet_options() -> ManagerOptions {
    ManagerOptions {
        health_probe_bind_address: "0".into(),
        metrics_bind_address: "0".into(),
        metrics_secure: false,
        ..ManagerOptions::default()
    }
}

pub fn leader_options(lease: &str, duration: u64, renew: u64, retry_ms: u64) -> ManagerOptions {
    ManagerOptions {
        leader_elect: true,
        leader_election_id: Some(lease.into()),
        leader_election_namespace: Some("default".into()),
        leader_elect_lease_duration: Duration::from_secs(duration),
        leader_elect_renew_deadline: Duration::from_secs(renew),
        leader_elect_retry_period: Duration::from_millis(retry_ms),
        ..quiet_options()
    }
}

pub fn config_map(name: &str, labels: &[(&str, &str)]) -> ConfigMap {
    ConfigMap {
        metadata: ObjectMeta {
            name: Some(name.into()),
            namespace: Some("default".into()),
            labels: Some(
                labels
                    .iter()
                    .map(|(k, v)| (k.to_string(), v.to_string()))
                    .collect(),
            ),
            ..ObjectMeta::default()
        },
        data: Some(BTreeMap::from([("k".to_string(), "v".to_string())])),
        ..ConfigMap::default()
    }
}

pub async fn create_config_map(client: &Client, cm: &ConfigMap) {
    let api: Api<ConfigMap> = Api::namespaced(client.clone(), "default");
    api.create(&PostParams::default(), cm)
        .await
        .expect("create ConfigMap");
}

/// Creates the namespace `name`: envtest's API server starts with only the built-in ones.
pub async fn create_namespace(client: &Client, name: &str) {
    let namespace = Namespace {
        metadata: ObjectMeta {
            name: Some(name.into()),
            ..ObjectMeta::default()
        },
        ..Namespace::default()
    };
    Api::<Namespace>::all(client.clone())
        .create(&PostParams::default(), &namespace)
        .await
        .expect("create Namespace");
}

/// A Role `manager-role` with `rules` (YAML list items) in each of `namespaces`, as one multi-document YAML: what a
/// namespaced project's config/rbac/role.yaml grants its manager in each namespace it watches.
pub fn manager_roles(namespaces: &[&str], rules: &str) -> String {
    let role = |namespace: &&str| {
        format!(
            "apiVersion: rbac.authorization.k8s.io/v1\nkind: Role\nmetadata:\n  name: manager-role\n  namespace: {namespace}\nrules:\n{rules}"
        )
    };
    namespaces
        .iter()
        .map(role)
        .collect::<Vec<_>>()
        .join("---\n")
}

/// Changes a ConfigMap's data, which triggers a reconcile.
pub async fn touch_config_map(client: &Client, name: &str, value: &str) {
    let api: Api<ConfigMap> = Api::namespaced(client.clone(), "default");
    let patch = serde_json::json!({ "data": { "k": value } });
    api.patch(name, &PatchParams::default(), &Patch::Merge(&patch))
        .await
        .expect("patch ConfigMap");
}

/// A plain HTTP/1.1 GET: (status, body).
pub async fn http_get(addr: SocketAddr, path: &str) -> (u16, String) {
    let request = format!("GET {path} HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n\r\n");
    // Blocking std I/O on a blocking thread keeps the tests free of extra tokio features.
    let response = tokio::task::spawn_blocking(move || {
        use std::io::{Read, Write};
        let mut stream = std::net::TcpStream::connect(addr).expect("connect");
        stream
            .set_read_timeout(Some(Duration::from_secs(10)))
            .expect("timeout");
        stream.write_all(request.as_bytes()).expect("write");
        let mut response = String::new();
        stream.read_to_string(&mut response).expect("read");
        response
    })
    .await
    .expect("http task");
    let status = response
        .split(' ')
        .nth(1)
        .and_then(|s| s.parse().ok())
        .expect("status line");
    let body = response
        .split_once("\r\n\r\n")
        .map(|(_, b)| b.to_string())
        .unwrap_or_default();
    (status, body)
}

/// `kube::Resource` for a test type of the `test.rkb.dev` group with `metadata: ObjectMeta`:
/// `test_resource!(Gadget, "Gadget", "gadgets", "v1")`.
#[macro_export]
macro_rules! test_resource {
    ($ty:ident, $kind:literal, $plural:literal, $version:literal) => {
        impl kube::Resource for $ty {
            type DynamicType = ();
            type Scope = kube::core::NamespaceResourceScope;

            fn kind(_: &()) -> std::borrow::Cow<'_, str> {
                $kind.into()
            }
            fn group(_: &()) -> std::borrow::Cow<'_, str> {
                "test.rkb.dev".into()
            }
            fn version(_: &()) -> std::borrow::Cow<'_, str> {
                $version.into()
            }
            fn plural(_: &()) -> std::borrow::Cow<'_, str> {
                $plural.into()
            }
            fn meta(&self) -> &kube::api::ObjectMeta {
                &self.metadata
            }
            fn meta_mut(&mut self) -> &mut kube::api::ObjectMeta {
                &mut self.metadata
            }
        }
    };
}

/// Counts the requests that fail without an answer (no connection) while `counting` is set, but the outage
/// prober's `GET /readyz`: what watches send into a server that is gone. A tower layer for the client under test.
#[derive(Clone, Default)]
pub struct FailedRequests {
    counting: Arc<AtomicBool>,
    failed: Arc<AtomicUsize>,
}

impl FailedRequests {
    /// A client of the API server at `config` whose failed requests the returned counter counts.
    pub fn client(config: &kube::Config) -> Result<(Client, FailedRequests), kube::Error> {
        let counter = FailedRequests::default();
        let client = kube::client::ClientBuilder::try_from(config.clone())?
            .with_layer(&counter)
            .build();
        Ok((client, counter))
    }

    /// Kills `env`'s API server for `down` (rkb-envtest's `kill_apiserver_for`) and returns how many requests
    /// failed meanwhile.
    pub async fn through_outage(
        &self,
        env: &mut rkb_envtest::Environment,
        down: Duration,
    ) -> rkb_envtest::Result<usize> {
        self.failed.store(0, Ordering::SeqCst);
        self.counting.store(true, Ordering::SeqCst);
        let killed = env.kill_apiserver_for(down).await;
        self.counting.store(false, Ordering::SeqCst);
        killed.map(|()| self.failed.load(Ordering::SeqCst))
    }
}

impl<S> tower_layer::Layer<S> for FailedRequests {
    type Service = CountFailures<S>;

    fn layer(&self, inner: S) -> Self::Service {
        CountFailures {
            inner,
            counter: self.clone(),
        }
    }
}

#[derive(Clone)]
pub struct CountFailures<S> {
    inner: S,
    counter: FailedRequests,
}

impl<S, B> tower_service::Service<http::Request<B>> for CountFailures<S>
where
    S: tower_service::Service<http::Request<B>>,
    S::Future: Send + 'static,
{
    type Response = S::Response;
    type Error = S::Error;
    type Future = futures::future::BoxFuture<'static, Result<S::Response, S::Error>>;

    fn poll_ready(
        &mut self,
        cx: &mut std::task::Context<'_>,
    ) -> std::task::Poll<Result<(), S::Error>> {
        self.inner.poll_ready(cx)
    }

    fn call(&mut self, request: http::Request<B>) -> Self::Future {
        let probe = request.uri().path() == "/readyz";
        let counter = self.counter.clone();
        let response = self.inner.call(request);
        Box::pin(async move {
            let response = response.await;
            if response.is_err() && !probe && counter.counting.load(Ordering::SeqCst) {
                counter.failed.fetch_add(1, Ordering::SeqCst);
            }
            response
        })
    }
}
