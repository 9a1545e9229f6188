//! Admission webhooks through a real kube-apiserver: the manager serves a defaulter and a validator for a CRD, the
//! API server calls them (envtest installs the configurations `rkb manifests` writes, pointed at the manager), and
//! clients see defaults, refusals with the validator's message, and warnings. The certificate rotates on disk
//! without a restart.

mod common;

use std::sync::Arc;
use std::time::Duration;

use common::kinds::{GADGET_CRD, Gadget, NS, gadget_control_plane};
use common::quiet_options;
use kube::api::{DeleteParams, Patch, PatchParams, PostParams};
use kube::{Api, Client};
use rkb_envtest::{Environment, WebhookServer, eventually};
use rkb_runtime::webhook::{Defaulter, Denied, Validator, Verdict, Webhooks};
use rkb_runtime::{Manager, ManagerOptions, metrics};

struct GadgetDefaulter;

impl Defaulter<Gadget> for GadgetDefaulter {
    async fn set_defaults(&self, gadget: &mut Gadget) -> Result<(), Denied> {
        if gadget.spec.image.is_empty() {
            gadget.spec.image = "nginx:1.27".into();
        }
        gadget.spec.replicas.get_or_insert(1);
        Ok(())
    }
}

struct GadgetValidator;

impl Validator<Gadget> for GadgetValidator {
    async fn validate_create(&self, gadget: &Gadget) -> Verdict {
        let replicas = gadget.spec.replicas.unwrap_or(0);
        if replicas == 13 {
            panic!("unlucky number of replicas");
        }
        if replicas > 10 {
            return Err(Denied::new(format!(
                "spec.replicas must be at most 10, got {replicas}"
            )));
        }
        let image = &gadget.spec.image;
        Ok(if image.contains(':') {
            Vec::new()
        } else {
            vec![format!(
                "image {image} has no tag: it runs whatever latest is"
            )]
        })
    }

    async fn validate_update(&self, old: &Gadget, new: &Gadget) -> Verdict {
        if old.spec.image != new.spec.image {
            return Err("spec.image is immutable".into());
        }
        Ok(Vec::new())
    }

    async fn validate_delete(&self, gadget: &Gadget) -> Verdict {
        let protected = gadget
            .metadata
            .labels
            .as_ref()
            .is_some_and(|l| l.get("protected").is_some_and(|v| v == "true"));
        if protected {
            return Err("gadget is protected: remove the label protected=true first".into());
        }
        Ok(Vec::new())
    }
}

/// A manager serving the Gadget webhooks on `server`'s port and certificate.
async fn start_manager(
    client: Client,
    server: &WebhookServer,
) -> (rkb_runtime::RunningManager, metrics::Metrics) {
    let options = ManagerOptions {
        webhook_port: server.port,
        webhook_cert_path: server.cert_dir.clone(),
        ..quiet_options()
    };
    let mgr = Manager::builder("rkb-webhooks-test")
        .client(client)
        .options(options)
        .build()
        .await
        .expect("build manager");
    mgr.serve_webhooks(
        Webhooks::new()
            .defaulter::<Gadget, _>(GadgetDefaulter)
            .validator::<Gadget, _>(GadgetValidator),
    );
    let metrics = mgr.metrics().clone();
    (mgr.spawn(), metrics)
}

/// The refusal's message as a client sees it.
fn refusal(result: Result<Gadget, kube::Error>) -> String {
    match result {
        Err(kube::Error::Api(status)) => status.message,
        other => panic!("expected a refusal, got {other:?}"),
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_api_server_defaults_and_validates_through_the_managers_webhooks() {
    let (env, server) = gadget_control_plane().await;
    let client = env.client();
    let (running, metrics) = start_manager(client.clone(), &server).await;
    let gadgets: Api<Gadget> = Api::namespaced(client.clone(), NS);
    let pp = PostParams::default();

    // Defaults: the stored object has them (until the server listens, the API server's calls fail, so poll).
    let created = eventually(
        "a create passes the webhooks",
        Duration::from_secs(30),
        || async {
            gadgets
                .create(&pp, &Gadget::new("g1", "", None))
                .await
                .map(Some)
        },
    )
    .await
    .expect("the webhooks answer");
    assert_eq!(created.spec.image, "nginx:1.27");
    assert_eq!(created.spec.replicas, Some(1));

    // Refusals carry the validator's message, named by the webhook.
    let message = refusal(
        gadgets
            .create(&pp, &Gadget::new("g2", "nginx:1.27", Some(11)))
            .await,
    );
    assert_eq!(
        message,
        "admission webhook \"vgadget-v1.kb.io\" denied the request: spec.replicas must be at most 10, got 11"
    );
    let patch = serde_json::json!({"spec": {"image": "nginx:1.28"}});
    let message = match gadgets
        .patch("g1", &PatchParams::default(), &Patch::Merge(&patch))
        .await
    {
        Err(kube::Error::Api(status)) => status.message,
        other => panic!("expected a refusal, got {other:?}"),
    };
    assert!(
        message.ends_with("denied the request: spec.image is immutable"),
        "{message}"
    );

    // A panic in the validator is a refusal that says so, and the server keeps serving.
    let message = refusal(
        gadgets
            .create(&pp, &Gadget::new("g13", "nginx:1.27", Some(13)))
            .await,
    );
    assert!(
        message.contains("the webhook panicked: unlucky number of replicas"),
        "{message}"
    );

    // Deletes are validated with the old object.
    let mut protected = Gadget::new("g3", "nginx:1.27", None);
    protected.metadata.labels = Some([("protected".to_string(), "true".to_string())].into());
    gadgets.create(&pp, &protected).await.expect("create g3");
    let refused = gadgets.delete("g3", &DeleteParams::default()).await;
    let Err(kube::Error::Api(status)) = refused else {
        panic!("the delete of a protected gadget went through");
    };
    assert!(
        status
            .message
            .ends_with("gadget is protected: remove the label protected=true first")
    );

    // Warnings reach the client: kubectl prints them, and the create succeeds.
    let warned = kubectl_apply(&env, "g4", "busybox");
    assert!(warned.status.success(), "{warned:?}");
    let stderr = String::from_utf8_lossy(&warned.stderr);
    assert!(
        stderr.contains("Warning: image busybox has no tag: it runs whatever latest is"),
        "{stderr}"
    );

    // Each path's requests are counted with their status code.
    let text = metrics.encode();
    for path in [
        "/mutate-test-rkb-dev-v1-gadget",
        "/validate-test-rkb-dev-v1-gadget",
    ] {
        let served = metrics::sample(
            &text,
            "controller_runtime_webhook_requests_total",
            &[("code", "200"), ("webhook", path)],
        );
        assert!(served.is_some_and(|n| n >= 1.0), "{path}: {text}");
    }
    assert_eq!(
        metrics::sample(
            &text,
            "controller_runtime_webhook_requests_in_flight",
            &[("webhook", "/mutate-test-rkb-dev-v1-gadget")]
        ),
        Some(0.0)
    );
    running.stop().await.expect("manager stops");
}

fn kubectl_apply(env: &Environment, name: &str, image: &str) -> std::process::Output {
    use std::io::Write as _;
    let manifest = format!(
        "apiVersion: test.rkb.dev/v1\nkind: Gadget\nmetadata:\n  name: {name}\n  namespace: {NS}\nspec:\n  image: {image}\n"
    );
    let mut child = std::process::Command::new("kubectl")
        .arg("--kubeconfig")
        .arg(env.kubeconfig_path())
        .args(["apply", "-f", "-"])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("kubectl runs (it is installed with the envtest binaries' tools)");
    child
        .stdin
        .take()
        .expect("stdin")
        .write_all(manifest.as_bytes())
        .expect("write the manifest");
    child.wait_with_output().expect("kubectl finishes")
}

/// The certificate the webhook server presents on a TLS handshake (DER), trusting the test CA.
async fn served_certificate(server: &WebhookServer) -> Option<Vec<u8>> {
    use rustls::pki_types::pem::PemObject as _;
    use rustls::pki_types::{CertificateDer, ServerName};
    let mut roots = rustls::RootCertStore::empty();
    let ca = CertificateDer::from_pem_slice(server.ca_pem.as_bytes()).ok()?;
    roots.add(ca).ok()?;
    let config = rustls::ClientConfig::builder_with_provider(Arc::new(
        rustls::crypto::ring::default_provider(),
    ))
    .with_safe_default_protocol_versions()
    .ok()?
    .with_root_certificates(roots)
    .with_no_client_auth();
    let connector = tokio_rustls::TlsConnector::from(Arc::new(config));
    let tcp = tokio::net::TcpStream::connect(("127.0.0.1", server.port))
        .await
        .ok()?;
    let name = ServerName::try_from("127.0.0.1").ok()?;
    let tls = connector.connect(name, tcp).await.ok()?;
    let (_, session) = tls.get_ref();
    Some(session.peer_certificates()?.first()?.to_vec())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_rotated_certificate_is_served_without_a_restart() {
    use rustls::pki_types::CertificateDer;
    use rustls::pki_types::pem::PemObject as _;
    let (env, server) = gadget_control_plane().await;
    let (running, _) = start_manager(env.client(), &server).await;
    let first = eventually(
        "the server presents a certificate",
        Duration::from_secs(20),
        || async { Ok::<_, std::convert::Infallible>(served_certificate(&server).await) },
    )
    .await
    .expect("the webhook server listens");

    let rotated_pem = server.rotate().expect("rotate");
    let rotated = CertificateDer::from_pem_slice(rotated_pem.as_bytes())
        .expect("PEM")
        .to_vec();
    assert_ne!(first, rotated);
    eventually(
        "the rotated certificate is served, by the same process",
        Duration::from_secs(20),
        || async {
            Ok::<_, std::convert::Infallible>(
                (served_certificate(&server).await.as_ref() == Some(&rotated)).then_some(()),
            )
        },
    )
    .await
    .expect("the certificate is reloaded");

    // The API server, trusting the same CA, still gets through.
    let gadgets: Api<Gadget> = Api::namespaced(env.client(), NS);
    let created = gadgets
        .create(
            &PostParams::default(),
            &Gadget::new("after-rotation", "", None),
        )
        .await
        .expect("a create after the rotation passes the webhooks");
    assert_eq!(created.spec.image, "nginx:1.27");
    running.stop().await.expect("manager stops");
}

/// `make run` without cert-manager: the manager writes a self-signed certificate into an empty
/// --webhook-cert-path and serves it; a webhook configuration whose caBundle is that tls.crt works, and a restarted
/// manager reuses the certificate, so the configuration stays valid.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_local_run_writes_its_own_certificate_and_reuses_it() {
    use base64::Engine as _;
    use k8s_openapi::api::admissionregistration::v1::MutatingWebhookConfiguration;
    let env = Environment::start().await.expect("envtest");
    env.install_crds_yaml(GADGET_CRD)
        .await
        .expect("install CRD");
    let certs = tempfile::tempdir().unwrap();
    let cert_dir = certs.path().join("serving-certs");
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .unwrap()
        .port();
    let start = || async {
        let options = ManagerOptions {
            webhook_port: port,
            webhook_cert_path: cert_dir.clone(),
            ..quiet_options()
        };
        let mgr = Manager::builder("rkb-local-webhooks")
            .client(env.client())
            .options(options)
            .build()
            .await
            .expect("build manager");
        mgr.serve_webhooks(Webhooks::new().defaulter::<Gadget, _>(GadgetDefaulter));
        mgr.spawn()
    };
    let running = start().await;
    let cert_file = cert_dir.join("tls.crt");
    let cert = eventually(
        "the certificate is written",
        Duration::from_secs(20),
        || async { Ok::<_, std::convert::Infallible>(std::fs::read_to_string(&cert_file).ok()) },
    )
    .await
    .expect("tls.crt in --webhook-cert-path");
    let config: MutatingWebhookConfiguration = serde_json::from_value(serde_json::json!({
        "metadata": {"name": "local-gadgets"},
        "webhooks": [{
            "name": "mgadget-v1.kb.io",
            "admissionReviewVersions": ["v1"],
            "sideEffects": "None",
            "failurePolicy": "Fail",
            "clientConfig": {
                "url": format!("https://127.0.0.1:{port}/mutate-test-rkb-dev-v1-gadget"),
                "caBundle": base64::engine::general_purpose::STANDARD.encode(&cert),
            },
            "rules": [{"apiGroups": ["test.rkb.dev"], "apiVersions": ["v1"], "operations": ["CREATE"], "resources": ["gadgets"]}],
        }],
    }))
    .unwrap();
    Api::<MutatingWebhookConfiguration>::all(env.client())
        .create(&PostParams::default(), &config)
        .await
        .expect("install the local configuration");
    let gadgets: Api<Gadget> = Api::namespaced(env.client(), NS);
    let create = |name: &'static str| {
        let gadgets = gadgets.clone();
        async move {
            eventually("a create is defaulted", Duration::from_secs(30), || async {
                gadgets
                    .create(&PostParams::default(), &Gadget::new(name, "", None))
                    .await
                    .map(Some)
            })
            .await
            .expect("the webhook answers")
        }
    };
    assert_eq!(create("local-1").await.spec.image, "nginx:1.27");

    // A restart reuses the certificate: the configuration's caBundle still verifies it.
    running.stop().await.expect("manager stops");
    let running = start().await;
    assert_eq!(std::fs::read_to_string(&cert_file).unwrap(), cert);
    assert_eq!(create("local-2").await.spec.image, "nginx:1.27");
    running.stop().await.expect("manager stops");
}
