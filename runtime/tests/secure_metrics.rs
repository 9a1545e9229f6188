//! --metrics-secure against a real API server: HTTPS with the configured certificate, 401 without a token,
//! 403 for a ServiceAccount without the metrics-reader role, 200 once it is bound. Denials are remembered as
//! allows are: the API server's audit log shows one review per token while its decision holds.

mod common;

use std::convert::Infallible;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use common::quiet_options;
use k8s_openapi::api::authentication::v1::{TokenRequest, TokenRequestSpec};
use k8s_openapi::api::core::v1::ServiceAccount;
use k8s_openapi::api::rbac::v1::{ClusterRole, ClusterRoleBinding, PolicyRule, RoleRef, Subject};
use kube::Api;
use kube::api::{ObjectMeta, PostParams};
use rkb_envtest::{Environment, eventually};
use rkb_runtime::{Manager, ManagerOptions};
use rustls::pki_types::{CertificateDer, ServerName};

/// Writes a self-signed certificate for 127.0.0.1 as tls.crt/tls.key into `dir`; returns it to trust.
fn write_cert(dir: &std::path::Path) -> CertificateDer<'static> {
    let generated = rcgen::generate_simple_self_signed(vec!["127.0.0.1".to_string()]).unwrap();
    std::fs::write(dir.join("tls.crt"), generated.cert.pem()).unwrap();
    std::fs::write(dir.join("tls.key"), generated.signing_key.serialize_pem()).unwrap();
    generated.cert.der().clone()
}

fn cert_dir() -> (PathBuf, CertificateDer<'static>) {
    let dir = std::env::temp_dir().join(format!("rkb-secure-metrics-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let ca = write_cert(&dir);
    (dir, ca)
}

/// GET over TLS trusting only `ca`: (status, body).
async fn https_get(
    addr: SocketAddr,
    ca: CertificateDer<'static>,
    path: &str,
    token: Option<String>,
) -> (u16, String) {
    let path = path.to_string();
    tokio::task::spawn_blocking(move || {
        use std::io::{Read, Write};
        let mut roots = rustls::RootCertStore::empty();
        roots.add(ca).unwrap();
        let config = rustls::ClientConfig::builder_with_provider(Arc::new(
            rustls::crypto::ring::default_provider(),
        ))
        .with_safe_default_protocol_versions()
        .unwrap()
        .with_root_certificates(roots)
        .with_no_client_auth();
        let name = ServerName::try_from("127.0.0.1").unwrap();
        let conn = rustls::ClientConnection::new(Arc::new(config), name).unwrap();
        let tcp = std::net::TcpStream::connect(addr).unwrap();
        tcp.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
        let mut tls = rustls::StreamOwned::new(conn, tcp);
        let auth = token
            .map(|t| format!("Authorization: Bearer {t}\r\n"))
            .unwrap_or_default();
        let request =
            format!("GET {path} HTTP/1.1\r\nHost: {addr}\r\n{auth}Connection: close\r\n\r\n");
        tls.write_all(request.as_bytes()).unwrap();
        let mut raw = Vec::new();
        // The server closes without close_notify sometimes; what was read is complete either way.
        let _ = tls.read_to_end(&mut raw);
        let response = String::from_utf8_lossy(&raw).to_string();
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
    })
    .await
    .unwrap()
}

/// How many TokenReviews and SubjectAccessReviews the API server has been asked for.
fn reviews(env: &Environment) -> (usize, usize) {
    let events = env.audit_events().expect("audit log");
    let count = |resource: &str| {
        events
            .iter()
            .filter(|e| e.verb == "create" && e.resource == resource)
            .count()
    };
    (count("tokenreviews"), count("subjectaccessreviews"))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn secure_metrics_need_tls_and_an_authorised_token() {
    let env = Environment::builder()
        .with_audit_log()
        .start()
        .await
        .expect("envtest");
    let client = env.client();
    let (dir, ca) = cert_dir();

    let options = ManagerOptions {
        metrics_bind_address: "127.0.0.1:0".into(),
        metrics_secure: true,
        metrics_cert_path: Some(dir.clone()),
        ..quiet_options()
    };
    let mgr = Manager::builder("rkb-secure-test")
        .client(client.clone())
        .options(options)
        .build()
        .await
        .expect("build manager");
    let addr = mgr.metrics_addr().unwrap();
    let probe = prometheus_client::metrics::counter::Counter::<u64>::default();
    mgr.metrics().register(
        "rkb_secure_test_probe",
        "A metric of the test's own",
        probe.clone(),
    );
    probe.inc();
    let running = mgr.spawn();

    // Plain HTTP gets no metrics: the TLS handshake fails and the connection closes.
    let plain = tokio::task::spawn_blocking(move || {
        use std::io::{Read, Write};
        let mut tcp = std::net::TcpStream::connect(addr).unwrap();
        tcp.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
        let _ = tcp.write_all(b"GET /metrics HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n");
        let mut raw = Vec::new();
        let _ = tcp.read_to_end(&mut raw);
        String::from_utf8_lossy(&raw).to_string()
    })
    .await
    .unwrap();
    assert!(!plain.contains("controller_runtime"), "{plain}");

    // TLS without a token: 401.
    let (status, _) = eventually("HTTPS answering", Duration::from_secs(10), || {
        let ca = ca.clone();
        async move { Ok::<_, Infallible>(Some(https_get(addr, ca, "/metrics", None).await)) }
    })
    .await
    .unwrap();
    assert_eq!(status, 401);
    assert_eq!(
        https_get(addr, ca.clone(), "/metrics", Some("not-a-token".into()))
            .await
            .0,
        401
    );

    // A ServiceAccount's token: authenticated, but not authorised yet.
    let sas: Api<ServiceAccount> = Api::namespaced(client.clone(), "default");
    let sa = ServiceAccount {
        metadata: ObjectMeta {
            name: Some("scraper".into()),
            ..ObjectMeta::default()
        },
        ..ServiceAccount::default()
    };
    sas.create(&PostParams::default(), &sa).await.unwrap();
    let request = TokenRequest {
        spec: TokenRequestSpec {
            audiences: vec![],
            ..TokenRequestSpec::default()
        },
        ..TokenRequest::default()
    };
    let token = sas
        .create_token_request("scraper", &PostParams::default(), &request)
        .await
        .unwrap()
        .status
        .unwrap()
        .token;
    let (status, body) = https_get(addr, ca.clone(), "/metrics", Some(token.clone())).await;
    assert_eq!(status, 403, "{body}");
    assert!(
        body.contains("system:serviceaccount:default:scraper"),
        "{body}"
    );
    // Scraped again, the bad token and the unbound ServiceAccount are refused from memory: still one TokenReview
    // per token and one SubjectAccessReview in all.
    let bad = Some("not-a-token".to_string());
    assert_eq!(https_get(addr, ca.clone(), "/metrics", bad).await.0, 401);
    assert_eq!(
        https_get(addr, ca.clone(), "/metrics", Some(token.clone()))
            .await
            .0,
        403
    );
    assert_eq!(reviews(&env), (2, 1));

    // kubebuilder's metrics-reader ClusterRole, bound to the ServiceAccount.
    let role = ClusterRole {
        metadata: ObjectMeta {
            name: Some("metrics-reader".into()),
            ..ObjectMeta::default()
        },
        rules: Some(vec![PolicyRule {
            non_resource_urls: Some(vec!["/metrics".into()]),
            verbs: vec!["get".into()],
            ..PolicyRule::default()
        }]),
        ..ClusterRole::default()
    };
    Api::<ClusterRole>::all(client.clone())
        .create(&PostParams::default(), &role)
        .await
        .unwrap();
    let binding = ClusterRoleBinding {
        metadata: ObjectMeta {
            name: Some("scraper-metrics-reader".into()),
            ..ObjectMeta::default()
        },
        role_ref: RoleRef {
            api_group: "rbac.authorization.k8s.io".into(),
            kind: "ClusterRole".into(),
            name: "metrics-reader".into(),
        },
        subjects: Some(vec![Subject {
            kind: "ServiceAccount".into(),
            name: "scraper".into(),
            namespace: Some("default".into()),
            ..Subject::default()
        }]),
    };
    Api::<ClusterRoleBinding>::all(client.clone())
        .create(&PostParams::default(), &binding)
        .await
        .unwrap();
    let body = eventually("authorised scrape", Duration::from_secs(20), || {
        let (ca, token) = (ca.clone(), token.clone());
        async move {
            let (status, body) = https_get(addr, ca, "/metrics", Some(token)).await;
            Ok::<_, Infallible>((status == 200).then_some(body))
        }
    })
    .await
    .unwrap();
    assert!(body.contains("rkb_secure_test_probe_total 1"), "{body}");
    // Only /metrics is served on this port, authorised or not.
    assert_eq!(
        https_get(addr, ca.clone(), "/other", Some(token.clone()))
            .await
            .0,
        404
    );

    // A rotated certificate (cert-manager rewriting the mounted files) is served from the next handshake on:
    // a client trusting only the new certificate gets through (with the old one still served it would fail
    // the handshake).
    let rotated = write_cert(&dir);
    assert_ne!(rotated, ca);
    let (status, body) = https_get(addr, rotated, "/metrics", Some(token)).await;
    assert_eq!(status, 200, "{body}");

    running.stop().await.expect("clean stop");
    let _ = std::fs::remove_dir_all(dir);
}
