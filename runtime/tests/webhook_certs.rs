//! Webhook certificates without cert-manager, through a real kube-apiserver: the manager (with
//! `WebhookCertificates`, what `--webhook-cert-secret` and `--webhook-ca-*` set) makes a CA and serving certificate
//! in a Secret, injects the CA into the webhook configurations and a CRD's conversion webhook (which envtest
//! installed trusting a CA of its own, so only an injected bundle lets the API server call the manager), rotates
//! both with no admission request lost, reuses the Secret after a restart, and serves it on a replica that does not
//! lead.

mod common;

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use base64::Engine as _;
use common::kinds::{
    GIZMO_CRD, Gadget, GizmoV1, GizmoV2, NS, SpecV1, SpecV2, gadget_control_plane,
};
use common::{leader_options, quiet_options};
use k8s_openapi::api::admissionregistration::v1::{
    MutatingWebhookConfiguration, ValidatingWebhookConfiguration,
};
use k8s_openapi::api::core::v1::Secret;
use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinition;
use kube::api::PostParams;
use kube::{Api, Client};
use rkb_envtest::{Environment, WebhookServer, eventually};
use rkb_runtime::webhook::{CONVERT_PATH, Defaulter, Denied, Validator, Verdict, Webhooks};
use rkb_runtime::{Manager, RunningManager, TypeMeta, WebhookCertificates};

const SECRET: &str = "webhook-server-cert";
const GIZMOS: &str = "gizmos.test.rkb.dev";

/// A plain rename each way: this file tests the certificates the conversion is served with (tests/conversion.rs
/// tests conversion itself).
impl From<GizmoV2> for GizmoV1 {
    fn from(v2: GizmoV2) -> Self {
        GizmoV1 {
            type_meta: TypeMeta::default(),
            metadata: v2.metadata,
            spec: SpecV1 {
                replicas: v2.spec.size,
            },
        }
    }
}

impl From<GizmoV1> for GizmoV2 {
    fn from(v1: GizmoV1) -> Self {
        GizmoV2 {
            type_meta: TypeMeta::default(),
            metadata: v1.metadata,
            spec: SpecV2 {
                size: v1.spec.replicas,
                tier: String::new(),
            },
        }
    }
}

struct DefaultImage;

impl Defaulter<Gadget> for DefaultImage {
    async fn set_defaults(&self, gadget: &mut Gadget) -> Result<(), Denied> {
        if gadget.spec.image.is_empty() {
            gadget.spec.image = "nginx:1.27".into();
        }
        Ok(())
    }
}

struct AtMostTen;

impl Validator<Gadget> for AtMostTen {
    async fn validate_create(&self, gadget: &Gadget) -> Verdict {
        match gadget.spec.replicas {
            Some(n) if n > 10 => Err(Denied::new(format!(
                "spec.replicas must be at most 10, got {n}"
            ))),
            _ => Ok(Vec::new()),
        }
    }

    async fn validate_update(&self, _: &Gadget, new: &Gadget) -> Verdict {
        self.validate_create(new).await
    }

    async fn validate_delete(&self, _: &Gadget) -> Verdict {
        Ok(Vec::new())
    }
}

/// A control plane with the Gadget CRD and its webhook configurations (kubebuilder's names, as `rkb manifests`
/// writes them), and the Gizmo CRD converting through `/convert`: all pointed at one port, trusting envtest's CA.
async fn control_plane() -> (Environment, WebhookServer) {
    let (env, server) = gadget_control_plane().await;
    env.install_crds_yaml(GIZMO_CRD)
        .await
        .expect("install Gizmo CRD");
    env.enable_conversion(GIZMOS, &server, CONVERT_PATH)
        .await
        .expect("conversion on");
    (env, server)
}

/// The certificates as the `config/webhook-certs` component's flags set them, checked every 200 ms.
fn certificates() -> WebhookCertificates {
    WebhookCertificates {
        namespace: Some(NS.into()),
        mutating_configurations: vec!["mutating-webhook-configuration".into()],
        validating_configurations: vec!["validating-webhook-configuration".into()],
        crds: vec![GIZMOS.into()],
        resync: Duration::from_millis(200),
        ..WebhookCertificates::new(SECRET)
    }
}

/// A manager serving the Gadget webhooks and the Gizmo conversion on `port`, with `certificates`.
async fn start_manager(
    client: Client,
    port: u16,
    certificates: WebhookCertificates,
) -> RunningManager {
    start_replica(client, port, certificates, None).await
}

/// [`start_manager`], as replica `identity` of an elected manager when one is given.
async fn start_replica(
    client: Client,
    port: u16,
    certificates: WebhookCertificates,
    identity: Option<&str>,
) -> RunningManager {
    let base = match identity {
        Some(_) => leader_options("rkb-webhook-certs-test", 15, 10, 500),
        None => quiet_options(),
    };
    let options = rkb_runtime::ManagerOptions {
        webhook_port: port,
        // Not read: the certificate comes from the Secret. A path that exists nowhere shows it.
        webhook_cert_path: "/nonexistent/rkb-webhook-certs".into(),
        ..base
    };
    let mut builder = Manager::builder("rkb-webhook-certs-test")
        .client(client)
        .options(options)
        .webhook_certificates(certificates);
    if let Some(identity) = identity {
        builder = builder.identity(identity);
    }
    let mgr = builder.build().await.expect("build manager");
    mgr.serve_webhooks(
        Webhooks::new()
            .defaulter::<Gadget, _>(DefaultImage)
            .validator::<Gadget, _>(AtMostTen)
            .conversion::<GizmoV1, GizmoV2>(),
    );
    mgr.spawn()
}

/// The Secret's `key`, as text.
async fn secret_text(client: &Client, key: &str) -> Option<String> {
    let secret = Api::<Secret>::namespaced(client.clone(), NS)
        .get_opt(SECRET)
        .await
        .ok()??;
    let bytes = secret.data?.get(key)?.0.clone();
    String::from_utf8(bytes).ok()
}

/// The caBundle of every webhook of both configurations and of the Gizmo CRD's conversion, decoded.
async fn injected_bundles(client: &Client) -> Vec<String> {
    let text =
        |b: Option<k8s_openapi::ByteString>| String::from_utf8(b.unwrap_or_default().0).unwrap();
    let mutating = Api::<MutatingWebhookConfiguration>::all(client.clone())
        .get("mutating-webhook-configuration")
        .await
        .unwrap();
    let validating = Api::<ValidatingWebhookConfiguration>::all(client.clone())
        .get("validating-webhook-configuration")
        .await
        .unwrap();
    let crd = Api::<CustomResourceDefinition>::all(client.clone())
        .get(GIZMOS)
        .await
        .unwrap();
    let admission = mutating
        .webhooks
        .unwrap_or_default()
        .into_iter()
        .map(|w| w.client_config);
    let validation = validating
        .webhooks
        .unwrap_or_default()
        .into_iter()
        .map(|w| w.client_config);
    let conversion = crd
        .spec
        .conversion
        .and_then(|c| c.webhook)
        .and_then(|w| w.client_config);
    admission
        .map(|c| text(c.ca_bundle))
        .chain(validation.map(|c| text(c.ca_bundle)))
        .chain(conversion.map(|c| text(c.ca_bundle)))
        .collect()
}

/// Creates a Gadget (mutating and validating webhooks), then a Gizmo in v2 (conversion), each polling until the
/// API server reaches the manager; the created Gadget.
async fn first_admission(client: &Client, suffix: &str) -> Gadget {
    let gadgets: Api<Gadget> = Api::namespaced(client.clone(), NS);
    let gizmos: Api<GizmoV2> = Api::namespaced(client.clone(), NS);
    let pp = PostParams::default();
    let created = eventually(
        "a Gadget create passes the webhooks",
        Duration::from_secs(30),
        || async {
            gadgets
                .create(&pp, &Gadget::new(&format!("first-{suffix}"), "", None))
                .await
                .map(Some)
        },
    )
    .await
    .expect("the API server calls the webhooks");
    // The API server picks up a CRD's new caBundle a moment after a webhook configuration's.
    eventually(
        "a Gizmo create in v2 is converted",
        Duration::from_secs(30),
        || async {
            gizmos
                .create(&pp, &GizmoV2::new(&format!("first-{suffix}"), 3, ""))
                .await
                .map(Some)
        },
    )
    .await
    .expect("the API server calls the conversion webhook");
    created
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_api_server_calls_the_webhooks_with_the_certificate_the_operator_made() {
    let (env, server) = control_plane().await;
    let client = env.client();
    let running = start_manager(client.clone(), server.port, certificates()).await;

    let created = first_admission(&client, "a").await;
    assert_eq!(created.spec.image, "nginx:1.27", "the defaulter ran");
    let refused = Api::<Gadget>::namespaced(client.clone(), NS)
        .create(&PostParams::default(), &Gadget::new("eleven", "", Some(11)))
        .await;
    let Err(kube::Error::Api(status)) = refused else {
        panic!("11 replicas were admitted: {refused:?}");
    };
    assert_eq!(
        status.message,
        "admission webhook \"vgadget-v1.kb.io\" denied the request: spec.replicas must be at most 10, got 11"
    );
    let stored: GizmoV1 = Api::namespaced(client.clone(), NS)
        .get("first-a")
        .await
        .expect("read in v1");
    assert_eq!(stored.spec.replicas, 3, "converted from v2");

    // What the API server trusts is the operator's CA, in every target, and no longer envtest's.
    let ca = secret_text(&client, "ca.crt")
        .await
        .expect("the Secret holds ca.crt");
    assert_eq!(ca.matches("BEGIN CERTIFICATE").count(), 1, "{ca}");
    let bundles = injected_bundles(&client).await;
    assert_eq!(bundles, vec![ca.clone(); 3]);
    assert_ne!(ca, server.ca_pem);
    running.stop().await.expect("manager stops");
}

/// The served certificate and the bundle, as the Secret holds them.
async fn served_and_bundle(client: &Client) -> (String, String) {
    (
        secret_text(client, "tls.crt").await.unwrap_or_default(),
        secret_text(client, "ca.crt").await.unwrap_or_default(),
    )
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_rotation_under_a_steady_stream_of_admissions_loses_none() {
    let (env, server) = control_plane().await;
    let client = env.client();
    // Valid 18 s, renewed 12 s before expiry: a rotation starts 6 s after the first certificate; the new CA is
    // trusted 3 s before its certificate is served (the API server picks a CRD's new caBundle up a moment after a
    // webhook configuration's), and the old one stays 2 s after.
    let certificates = WebhookCertificates {
        validity: Duration::from_secs(18),
        renew_before: Duration::from_secs(12),
        propagation: Duration::from_secs(3),
        grace: Duration::from_secs(2),
        ..certificates()
    };
    let running = start_manager(client.clone(), server.port, certificates).await;
    first_admission(&client, "b").await;
    let (first_cert, first_ca) = served_and_bundle(&client).await;

    // The stream: one Gadget create (mutating + validating) and one Gizmo read in v2 (conversion) after another.
    let stop = Arc::new(tokio::sync::Notify::new());
    let admitted = Arc::new(AtomicUsize::new(0));
    let stream = tokio::spawn({
        let (client, stop, admitted) = (client.clone(), stop.clone(), admitted.clone());
        async move {
            let gadgets: Api<Gadget> = Api::namespaced(client.clone(), NS);
            let gizmos: Api<GizmoV2> = Api::namespaced(client, NS);
            let mut failures = Vec::new();
            for n in 0.. {
                let created = gadgets
                    .create(
                        &PostParams::default(),
                        &Gadget::new(&format!("s{n}"), "", Some(1)),
                    )
                    .await;
                let converted = gizmos.get("first-b").await;
                match (created, converted) {
                    (Ok(_), Ok(_)) => {
                        admitted.fetch_add(1, Ordering::Relaxed);
                    }
                    (created, converted) => failures.push(format!(
                        "request {n}: {:?} / {:?}",
                        created.err(),
                        converted.err()
                    )),
                }
                if tokio::time::timeout(Duration::ZERO, stop.notified())
                    .await
                    .is_ok()
                {
                    return (n + 1, failures);
                }
            }
            unreachable!()
        }
    });

    // One whole rotation: a new certificate served and the bundle back to one CA, a new one.
    let new_ca = eventually("a rotation completes", Duration::from_secs(40), || async {
        let (cert, ca) = served_and_bundle(&client).await;
        let done =
            cert != first_cert && ca != first_ca && ca.matches("BEGIN CERTIFICATE").count() == 1;
        Ok::<_, kube::Error>(done.then_some(ca))
    })
    .await
    .expect("the certificate rotates");
    let bundles = injected_bundles(&client).await;
    // Two stream rounds after the drop, so requests ran against the final bundle too.
    let after = admitted.load(Ordering::Relaxed);
    eventually("the stream runs on", Duration::from_secs(10), || async {
        Ok::<_, kube::Error>((admitted.load(Ordering::Relaxed) >= after + 2).then_some(()))
    })
    .await
    .ok();
    stop.notify_one();
    let (sent, failures) = stream.await.expect("stream");
    assert_eq!(
        failures,
        Vec::<String>::new(),
        "{} of {sent} requests failed",
        failures.len()
    );
    assert_eq!(
        admitted.load(Ordering::Relaxed),
        sent,
        "every request admitted"
    );
    assert!(
        sent >= 10,
        "the stream ran through the rotation: {sent} requests"
    );
    assert!(
        bundles.iter().all(|b| b.contains(&new_ca)),
        "the targets trust the new CA: {bundles:?}"
    );
    running.stop().await.expect("manager stops");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_restarted_manager_serves_the_secret_it_finds() {
    let (env, server) = control_plane().await;
    let client = env.client();
    let first = start_manager(client.clone(), server.port, certificates()).await;
    first_admission(&client, "c").await;
    first.stop().await.expect("first manager stops");
    let secrets: Api<Secret> = Api::namespaced(client.clone(), NS);
    let before = secrets.get(SECRET).await.expect("the Secret");

    // The mutating configuration trusts envtest's CA again: only the second manager's writer, injecting the
    // Secret's bundle in a pass that found the Secret as it was, makes the next admission pass.
    let patch = serde_json::json!([{"op": "replace", "path": "/webhooks/0/clientConfig/caBundle",
        "value": base64::engine::general_purpose::STANDARD.encode(&server.ca_pem)}]);
    Api::<MutatingWebhookConfiguration>::all(client.clone())
        .patch(
            "mutating-webhook-configuration",
            &kube::api::PatchParams::default(),
            &kube::api::Patch::Json::<()>(serde_json::from_value(patch).unwrap()),
        )
        .await
        .expect("reset the caBundle");

    let second = start_manager(client.clone(), server.port, certificates()).await;
    first_admission(&client, "d").await;
    let after = secrets.get(SECRET).await.expect("the Secret");
    assert_eq!(
        after.metadata.resource_version, before.metadata.resource_version,
        "the restarted manager wrote the Secret: {:?}",
        after.metadata.annotations
    );
    second.stop().await.expect("second manager stops");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_follower_serves_the_certificate_the_leader_wrote() {
    let (env, server) = control_plane().await;
    let client = env.client();
    // The leader listens on a port nothing calls; the API server calls the follower only.
    let leader = start_replica(client.clone(), 0, certificates(), Some("leader")).await;
    eventually(
        "the leader writes the Secret",
        Duration::from_secs(30),
        || async { Ok::<_, kube::Error>(secret_text(&client, "tls.crt").await.map(|_| ())) },
    )
    .await
    .expect("the leader writes");
    let follower = start_replica(
        client.clone(),
        server.port,
        certificates(),
        Some("follower"),
    )
    .await;
    first_admission(&client, "e").await;
    let lease = Api::<k8s_openapi::api::coordination::v1::Lease>::namespaced(client.clone(), NS)
        .get("rkb-webhook-certs-test")
        .await
        .expect("the lease");
    let holder = lease.spec.and_then(|s| s.holder_identity);
    assert_eq!(holder.as_deref(), Some("leader"), "the follower never led");
    follower.stop().await.expect("follower stops");
    leader.stop().await.expect("leader stops");
}
