//! The metrics certificate rotates the way cert-manager's does in a pod: config/default's
//! cert_metrics_manager_patch.yaml mounts the Secret, and kubelet updates a Secret volume by writing the new files
//! into a fresh directory and swapping the `..data` symlink that tls.crt and tls.key point through. A running
//! manager serves /metrics with the new certificate after the swap, with no restart.

mod common;

use std::net::SocketAddr;
use std::os::unix::fs::symlink;
use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use common::quiet_options;
use rkb_envtest::{Environment, eventually};
use rkb_runtime::{Manager, ManagerOptions};
use rustls::pki_types::{CertificateDer, ServerName};

/// A Secret volume as kubelet writes it: `<dir>/..<version>/{tls.crt,tls.key}`, `..data` pointing at the current
/// version, and the file names pointing through `..data`. Returns the certificate to trust.
fn publish(dir: &Path, version: &str) -> CertificateDer<'static> {
    let generated = rcgen::generate_simple_self_signed(vec!["127.0.0.1".to_string()]).unwrap();
    let data = dir.join(format!("..{version}"));
    std::fs::create_dir(&data).unwrap();
    std::fs::write(data.join("tls.crt"), generated.cert.pem()).unwrap();
    std::fs::write(data.join("tls.key"), generated.signing_key.serialize_pem()).unwrap();
    // The swap is one rename of a symlink, so a reader never sees a certificate without its key.
    let staged = dir.join("..data_tmp");
    symlink(format!("..{version}"), &staged).unwrap();
    std::fs::rename(&staged, dir.join("..data")).unwrap();
    for name in ["tls.crt", "tls.key"] {
        if !dir.join(name).exists() {
            symlink(format!("..data/{name}"), dir.join(name)).unwrap();
        }
    }
    generated.cert.der().clone()
}

/// GET /metrics over TLS trusting only `trusted`: the HTTP status, or the handshake's error when the server
/// presents another certificate.
fn get_metrics_trusting(
    addr: SocketAddr,
    trusted: &CertificateDer<'static>,
) -> Result<u16, String> {
    use std::io::{Read, Write};
    let mut roots = rustls::RootCertStore::empty();
    roots.add(trusted.clone()).unwrap();
    let config = rustls::ClientConfig::builder_with_provider(Arc::new(
        rustls::crypto::ring::default_provider(),
    ))
    .with_safe_default_protocol_versions()
    .unwrap()
    .with_root_certificates(roots)
    .with_no_client_auth();
    let conn =
        rustls::ClientConnection::new(Arc::new(config), ServerName::try_from("127.0.0.1").unwrap())
            .unwrap();
    let tcp = std::net::TcpStream::connect(addr).map_err(|e| e.to_string())?;
    tcp.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
    let mut tls = rustls::StreamOwned::new(conn, tcp);
    tls.write_all(
        format!("GET /metrics HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n\r\n").as_bytes(),
    )
    .map_err(|e| e.to_string())?;
    let mut raw = Vec::new();
    // The server may close without close_notify; what was read is complete either way.
    let _ = tls.read_to_end(&mut raw);
    let response = String::from_utf8_lossy(&raw);
    response
        .split(' ')
        .nth(1)
        .and_then(|status| status.parse().ok())
        .ok_or_else(|| format!("no HTTP response: {response:?}"))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn metrics_are_served_with_the_certificate_kubelet_swaps_in() {
    let env = Environment::start().await.expect("envtest");
    let dir = tempfile::tempdir().unwrap();
    let first = publish(dir.path(), "2026_01");
    let options = ManagerOptions {
        metrics_bind_address: "127.0.0.1:0".into(),
        metrics_secure: true,
        metrics_cert_path: Some(dir.path().to_path_buf()),
        ..quiet_options()
    };
    let mgr = Manager::builder("rkb-metrics-rotation-test")
        .client(env.client())
        .options(options)
        .build()
        .await
        .expect("build manager");
    let addr = mgr.metrics_addr().unwrap();
    let running = mgr.spawn();

    // Served (401: no token; the handshake is what matters) with the mounted certificate.
    let served = eventually("/metrics over TLS", Duration::from_secs(10), || {
        let first = first.clone();
        async move {
            tokio::task::spawn_blocking(move || get_metrics_trusting(addr, &first).map(Some))
                .await
                .unwrap()
        }
    })
    .await
    .unwrap();
    assert_eq!(served, 401);

    let second = publish(dir.path(), "2026_02");
    std::fs::remove_dir_all(dir.path().join("..2026_01")).unwrap();
    let served = eventually(
        "/metrics with the swapped-in certificate",
        Duration::from_secs(10),
        || {
            let second = second.clone();
            async move {
                tokio::task::spawn_blocking(move || get_metrics_trusting(addr, &second).map(Some))
                    .await
                    .unwrap()
            }
        },
    )
    .await
    .unwrap();
    assert_eq!(served, 401);
    assert!(
        get_metrics_trusting(addr, &first).is_err(),
        "the old certificate is still served after the swap"
    );

    running.stop().await.expect("clean stop");
}
