//! Shared by the limits tests (server_limits.rs, webhook_limits.rs): a manager serving every listener on 127.0.0.1
//! without an API server, raw HTTP/1.1 clients over TCP or TLS, and the heap's peak (this module's global
//! allocator counts every allocation of the test binary, the manager's included).
#![allow(dead_code)]

use std::net::SocketAddr;
use std::path::Path;
use std::sync::Arc;
use std::time::{Duration, Instant};

use rkb_runtime::webhook::{Defaulter, Denied, Validator, Webhooks};
use rkb_runtime::{Manager, ManagerOptions, RunningManager};
use rustls::pki_types::pem::PemObject as _;
use rustls::pki_types::{CertificateDer, ServerName};
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt};
use tokio::net::TcpStream;

// The Gadget of the webhook tests (tests/fixtures/gadgets.yaml): the limits tests serve its webhooks.
use crate::common::kinds::Gadget;

#[global_allocator]
pub static HEAP: peak_alloc::PeakAlloc = peak_alloc::PeakAlloc;

/// Held by each test while it runs: the heap's peak is the process's, so measurements must not overlap.
static ONE_AT_A_TIME: std::sync::Mutex<()> = std::sync::Mutex::new(());

/// Runs a test's body on a runtime of its own, alone in the process: the runtime (and whatever of the manager's
/// its drop frees) is gone before the next test starts measuring.
pub fn run(test: impl Future<Output = ()>) {
    let _alone = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    runtime.block_on(test);
    drop(runtime);
}

pub const MIB: usize = 1 << 20;

/// Sets `spec.replicas` when it is missing.
pub struct Defaults;

impl Defaulter<Gadget> for Defaults {
    async fn set_defaults(&self, gadget: &mut Gadget) -> Result<(), Denied> {
        gadget.spec.replicas.get_or_insert(1);
        Ok(())
    }
}

/// Allows everything, having read the objects.
pub struct Allows;

impl Validator<Gadget> for Allows {}

/// The Gadget webhooks: `/mutate-test-rkb-dev-v1-gadget`, `/validate-test-rkb-dev-v1-gadget`.
pub fn gadget_webhooks() -> Webhooks {
    Webhooks::new()
        .defaulter::<Gadget, _>(Defaults)
        .validator::<Gadget, _>(Allows)
}

/// A running manager and where it listens: health (plain HTTP), metrics (HTTPS, secure) and webhooks (HTTPS),
/// both TLS listeners with `cert`.
pub struct Served {
    pub running: RunningManager,
    pub health: SocketAddr,
    pub metrics: SocketAddr,
    pub webhook: SocketAddr,
    pub cert: CertificateDer<'static>,
    _certs: tempfile::TempDir,
}

/// Starts a manager with `options` (listeners and certificates filled in) serving the Gadget webhooks, and waits
/// until every listener answers.
pub async fn serve(options: ManagerOptions) -> Served {
    let certs = tempfile::tempdir().unwrap();
    let cert = write_cert(certs.path());
    let webhook_port = std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .unwrap()
        .port();
    let options = ManagerOptions {
        health_probe_bind_address: "127.0.0.1:0".into(),
        metrics_bind_address: "127.0.0.1:0".into(),
        metrics_secure: true,
        metrics_cert_path: Some(certs.path().to_path_buf()),
        webhook_port,
        webhook_cert_path: certs.path().to_path_buf(),
        ..options
    };
    // No API server: nothing here reaches one (the metrics' authorisation would, but no test gets that far).
    let client =
        kube::Client::try_from(kube::Config::new("http://127.0.0.1:9".parse().unwrap())).unwrap();
    let mgr = Manager::builder("rkb-limits-test")
        .client(client)
        .options(options)
        .build()
        .await
        .expect("build manager");
    mgr.serve_webhooks(gadget_webhooks());
    let (health, metrics) = (mgr.health_addr().unwrap(), mgr.metrics_addr().unwrap());
    let webhook = SocketAddr::from(([127, 0, 0, 1], webhook_port));
    let running = mgr.spawn();
    let started = Instant::now();
    while TcpStream::connect(webhook).await.is_err() {
        assert!(
            started.elapsed() < Duration::from_secs(20),
            "the webhook server never listened"
        );
        tokio::task::yield_now().await;
    }
    Served {
        running,
        health,
        metrics,
        webhook,
        cert,
        _certs: certs,
    }
}

/// Writes a self-signed certificate for 127.0.0.1 as tls.crt/tls.key into `dir`; returns it to trust.
fn write_cert(dir: &Path) -> CertificateDer<'static> {
    let generated = rcgen::generate_simple_self_signed(vec!["127.0.0.1".to_string()]).unwrap();
    std::fs::write(dir.join("tls.crt"), generated.cert.pem()).unwrap();
    std::fs::write(dir.join("tls.key"), generated.signing_key.serialize_pem()).unwrap();
    CertificateDer::from_pem_slice(generated.cert.pem().as_bytes()).unwrap()
}

/// A client's connection, plain or TLS.
pub trait Io: AsyncRead + AsyncWrite + Unpin + Send {}
impl<T: AsyncRead + AsyncWrite + Unpin + Send> Io for T {}

pub type Conn = Box<dyn Io>;

/// A TCP connection to `addr`.
pub async fn tcp(addr: SocketAddr) -> TcpStream {
    TcpStream::connect(addr).await.expect("connect")
}

/// A TLS connection to `addr` trusting only `cert`, handshake done.
pub async fn tls(addr: SocketAddr, cert: &CertificateDer<'static>) -> Conn {
    let mut roots = rustls::RootCertStore::empty();
    roots.add(cert.clone()).unwrap();
    let config = rustls::ClientConfig::builder_with_provider(Arc::new(
        rustls::crypto::ring::default_provider(),
    ))
    .with_safe_default_protocol_versions()
    .unwrap()
    .with_root_certificates(roots)
    .with_no_client_auth();
    let connector = tokio_rustls::TlsConnector::from(Arc::new(config));
    let name = ServerName::try_from("127.0.0.1").unwrap();
    Box::new(
        connector
            .connect(name, tcp(addr).await)
            .await
            .expect("TLS handshake"),
    )
}

/// Reads until the server closes the connection (end of stream or reset), failing the test after `deadline`:
/// what arrived, and how long the close took.
pub async fn until_closed(
    conn: &mut (impl AsyncRead + Unpin),
    deadline: Duration,
) -> (String, Duration) {
    let started = Instant::now();
    let mut received = Vec::new();
    let read = tokio::time::timeout(deadline, async {
        let mut chunk = [0u8; 4096];
        loop {
            match conn.read(&mut chunk).await {
                Ok(0) | Err(_) => break,
                Ok(n) => received.extend_from_slice(&chunk[..n]),
            }
        }
    })
    .await;
    let took = started.elapsed();
    let received = String::from_utf8_lossy(&received).into_owned();
    assert!(
        read.is_ok(),
        "the server kept the connection open for {deadline:?}; received {received:?}"
    );
    (received, took)
}

/// The status line's code of a response.
pub fn status(response: &str) -> u16 {
    response
        .split(' ')
        .nth(1)
        .and_then(|code| code.parse().ok())
        .unwrap_or_else(|| panic!("not an HTTP response: {response:?}"))
}

/// Reads one response head (up to the blank line) and, with a Content-Length, its body.
pub async fn read_response(conn: &mut Conn) -> String {
    let mut received = Vec::new();
    let mut byte = [0u8; 1];
    while !received.ends_with(b"\r\n\r\n") {
        let n = conn.read(&mut byte).await.expect("read a response");
        assert!(
            n > 0,
            "closed mid-response: {:?}",
            String::from_utf8_lossy(&received)
        );
        received.push(byte[0]);
    }
    let head = String::from_utf8_lossy(&received).into_owned();
    let length = head
        .lines()
        .find_map(|line| {
            line.to_ascii_lowercase()
                .strip_prefix("content-length: ")
                .map(str::to_string)
        })
        .and_then(|n| n.trim().parse::<usize>().ok())
        .unwrap_or(0);
    let mut body = vec![0u8; length];
    conn.read_exact(&mut body).await.expect("read the body");
    head + &String::from_utf8_lossy(&body)
}

/// POSTs `body` to `path` with `Expect: 100-continue`, so a refusal made on the headers alone (413, 429) is read
/// before any of the body is sent: the response.
pub async fn post(conn: &mut Conn, path: &str, body: &[u8]) -> String {
    let head = format!(
        "POST {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: {}\r\nExpect: 100-continue\r\n\r\n",
        body.len()
    );
    send(conn, head.as_bytes()).await;
    let first = read_response(conn).await;
    if status(&first) != 100 {
        return first;
    }
    send(conn, body).await;
    read_response(conn).await
}

/// Writes `bytes` and flushes them: over TLS, the last of them may otherwise wait in the client's buffer.
pub async fn send(conn: &mut (impl AsyncWrite + Unpin), bytes: &[u8]) {
    conn.write_all(bytes).await.expect("send");
    conn.flush().await.expect("flush");
}

/// An AdmissionReview of a Gadget for `operation`, `object` (and `old_object`) as JSON, as the API server sends it.
pub fn admission_review(operation: &str, object: &str, old_object: Option<&str>) -> Vec<u8> {
    format!(
        r#"{{"kind":"AdmissionReview","apiVersion":"admission.k8s.io/v1","request":{{"uid":"0c9a8d74-9cb7-44dd-b98e-09fd62def2f4","kind":{{"group":"test.rkb.dev","version":"v1","kind":"Gadget"}},"resource":{{"group":"test.rkb.dev","version":"v1","resource":"gadgets"}},"name":"big","namespace":"default","operation":"{operation}","userInfo":{{"username":"admin","groups":["system:masters"]}},"object":{object},"oldObject":{},"dryRun":false}}}}"#,
        old_object.unwrap_or("null")
    )
    .into_bytes()
}

/// A Gadget of about `size` bytes of JSON, the bulk in its last-applied-configuration annotation (kubectl's, what
/// makes real objects large).
pub fn big_gadget(size: usize) -> String {
    gadget_annotated(&format!(
        r#""kubectl.kubernetes.io/last-applied-configuration":"{}""#,
        "x".repeat(size.saturating_sub(200))
    ))
}

/// A Gadget of about `size` bytes of JSON, the bulk in annotations of about 100 bytes each.
pub fn many_annotations_gadget(size: usize) -> String {
    let one = |i: usize| format!(r#""example.com/note-{i:08}":"{}""#, "v".repeat(70));
    let count = size.saturating_sub(200) / (one(0).len() + 1);
    let annotations: Vec<String> = (0..count).map(one).collect();
    gadget_annotated(&annotations.join(","))
}

fn gadget_annotated(annotations: &str) -> String {
    format!(
        r#"{{"apiVersion":"test.rkb.dev/v1","kind":"Gadget","metadata":{{"name":"big","namespace":"default","annotations":{{{annotations}}}}},"spec":{{"image":"nginx:1.27"}}}}"#
    )
}
