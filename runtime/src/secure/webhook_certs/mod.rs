//! Webhook certificates without cert-manager: the operator makes its own CA and serving certificate, keeps them
//! in a Secret, injects the CA into the objects through which the API server calls it, and rotates both before
//! they expire. Opt-in: `--webhook-cert-secret` (with `--webhook-ca-mutating`, `--webhook-ca-validating`,
//! `--webhook-ca-crds`) or [`crate::ManagerBuilder::webhook_certificates`]; the scaffold's
//! `config/webhook-certs` component deploys it in place of `config/certmanager`.
//!
//! Contract:
//!
//! Expected flow (when the manager serves webhooks, [`crate::Manager::serve_webhooks`]): the leader (with `--leader-elect`, the lease holder; without it, the one replica) reads the
//! Secret (`--webhook-cert-secret`, in the manager's namespace) and the targets (the webhook configurations and
//! CRDs named by the flags, as config/ names them after kustomize's prefix; a target that does not exist is
//! skipped until it does). Every `resync` it takes one step, recorded in the Secret, so a new leader resumes
//! where the last one stopped:
//! 1. no certificate (first start, an empty Secret): a new CA and a serving certificate signed by it, for every
//!    name the targets' clientConfigs call (a Service's `NAME.NAMESPACE.svc` and `.svc.cluster.local`, a URL's
//!    host), each valid for `validity` (one year) from an hour ago. The CA's key signs that certificate and is
//!    dropped: no CA key is stored anywhere.
//! 2. every pass: each target whose caBundle is not the Secret's `ca.crt` gets it (all webhooks of a
//!    configuration; a CRD's `spec.conversion.webhook.clientConfig`), by a JSON patch conditional on the
//!    resourceVersion it read.
//! 3. rotation, when less than `renew_before` (30 days) is left or a target calls a name the certificate lacks:
//!    a new CA and certificate are made and the new CA is added to `ca.crt` (both CAs trusted), while replicas
//!    keep serving the old certificate (the new one waits in `next.crt`); once every target holds the two-CA
//!    bundle, the leader waits `propagation` (every API server instance picks the change up), then moves the new
//!    certificate to `tls.crt`; `grace` later, the old CA leaves `ca.crt` and the targets.
//!
//! Guarantees:
//! - Every replica, leader or not, serves `tls.crt`/`tls.key` of the Secret, following it with a watch (no
//!   volume mount, no kubelet sync delay); /readyz waits for the first certificate, and until then handshakes
//!   fail. A Secret that stops holding a readable pair leaves the served one in place.
//! - No admission or conversion request fails because of a rotation: at every moment the certificate any replica
//!   serves is signed by a CA in every target's bundle (the new CA is trusted `propagation` before anything
//!   serves its certificate, the old CA stays `grace` after nothing should serve its certificate any more).
//! - A restart (or a new leader) reuses the Secret: nothing is issued while its certificate is valid and covers
//!   the targets' names. Writes are conditional (resourceVersion), so two managers that both think they lead
//!   cannot undo each other's step.
//!
//! Caveats:
//! - On the first start nothing trusts the new CA yet: calls fail (as the targets' failurePolicy says) until the
//!   API server has picked the injected bundle up, a CRD's conversion a moment after a webhook configuration's.
//! - The Secret is rkb's: a pair it holds without rkb's record (annotation `webhook-certs.rkb.dev/state`) is
//!   replaced. The record is trusted as written; editing it by hand is not supported.
//! - `propagation` is a wait, not a proof: an API server that has not seen the two-CA bundle after it (a
//!   partitioned one) rejects calls until it catches up. `grace` likewise covers replicas that have not seen the
//!   switch yet (their watch is seconds behind, not more, in a healthy cluster).
//! - A rotation runs to its end before the next can start, and its steps happen only while a leader runs: a
//!   certificate made with a `validity` shorter than `propagation + grace` plus a few `resync`s expires mid-way
//!   (the options refuse that).
//! - RBAC (the component grants it): get, list, watch, update and patch on the Secret (create only when it does
//!   not exist; the component creates it empty); get and patch on each target.

mod inject;
mod issue;
mod serve;
mod state;

use std::time::{Duration, SystemTime};

use k8s_openapi::api::core::v1::Secret;
use kube::api::{ObjectMeta, PostParams};
use kube::{Api, Client};

use crate::{Context, Error};
use inject::TargetKind;
pub(crate) use serve::{follow, tls_config};
use state::{Step, Stored, Timing, next_step};

/// How the operator makes, serves, injects and rotates its webhook certificate (see the module docs).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct WebhookCertificates {
    /// The Secret holding the CA bundle and the served certificate.
    pub secret: String,
    /// The Secret's namespace; None: the pod's, else the client's default namespace.
    pub namespace: Option<String>,
    /// MutatingWebhookConfigurations whose webhooks get the CA bundle.
    pub mutating_configurations: Vec<String>,
    /// ValidatingWebhookConfigurations whose webhooks get the CA bundle.
    pub validating_configurations: Vec<String>,
    /// CRDs whose conversion webhook gets the CA bundle.
    pub crds: Vec<String>,
    /// How long a CA and certificate are valid (one year).
    pub validity: Duration,
    /// A rotation starts when less than this is left (30 days).
    pub renew_before: Duration,
    /// How long a new CA is trusted by every target before its certificate is served (1 minute).
    pub propagation: Duration,
    /// How long the old CA stays trusted after the switch (10 minutes).
    pub grace: Duration,
    /// How often the leader compares the Secret and the targets (10 seconds).
    pub resync: Duration,
}

impl WebhookCertificates {
    /// In Secret `secret`, with the default timings and no targets yet.
    pub fn new(secret: impl Into<String>) -> Self {
        Self {
            secret: secret.into(),
            namespace: None,
            mutating_configurations: Vec::new(),
            validating_configurations: Vec::new(),
            crds: Vec::new(),
            validity: super::self_signed::VALIDITY,
            renew_before: super::self_signed::RENEW_BEFORE,
            propagation: Duration::from_secs(60),
            grace: Duration::from_secs(10 * 60),
            resync: Duration::from_secs(10),
        }
    }

    /// Refuses settings with which the API server could never trust the certificate, or a rotation could not
    /// finish before the certificate expires.
    pub fn validate(&self) -> Result<(), Error> {
        let invalid = |m: &str| Err(Error::InvalidOptions(m.to_string()));
        if self.secret.is_empty() {
            return invalid("--webhook-cert-secret must name a Secret");
        }
        if self.targets().next().is_none() {
            return invalid(
                "--webhook-cert-secret needs the objects to inject the CA into: --webhook-ca-mutating, \
                 --webhook-ca-validating or --webhook-ca-crds",
            );
        }
        if self.resync.is_zero() {
            return invalid("the webhook certificates' resync period must be positive");
        }
        let rotation = self.propagation + self.grace + self.resync * 4;
        if self.renew_before >= self.validity || self.renew_before <= rotation {
            return invalid(
                "--webhook-cert-renew-before must be below --webhook-cert-validity and leave time for a rotation \
                 (propagation + grace + 4 resyncs)",
            );
        }
        Ok(())
    }

    fn targets(&self) -> impl Iterator<Item = (TargetKind, &String)> {
        fn tagged(
            kind: TargetKind,
            names: &[String],
        ) -> impl Iterator<Item = (TargetKind, &String)> {
            names.iter().map(move |n| (kind, n))
        }
        tagged(TargetKind::Mutating, &self.mutating_configurations)
            .chain(tagged(
                TargetKind::Validating,
                &self.validating_configurations,
            ))
            .chain(tagged(TargetKind::Crd, &self.crds))
    }

    fn timing(&self) -> Timing {
        Timing {
            renew_before: self.renew_before,
            propagation: self.propagation,
            grace: self.grace,
        }
    }
}

/// The leader's side: one step per `resync` (at once after a step that wrote), while this manager leads, until
/// shutdown. Errors are logged and the pass retried: a webhook server must not stop the operator.
pub(crate) async fn write(ctx: Context, namespace: String, config: WebhookCertificates) {
    let client = ctx.client();
    let secrets: Api<Secret> = Api::namespaced(client.clone(), &namespace);
    loop {
        if !ctx.wait_for_leadership().await {
            return;
        }
        let wrote = match pass(&client, &secrets, &config).await {
            Ok(wrote) => wrote,
            Err(e) => {
                tracing::warn!(secret = %config.secret, %namespace, error = %crate::ErrorChain(&e), "webhook certificates: pass failed, retrying");
                false
            }
        };
        if wrote {
            continue;
        }
        tokio::select! {
            _ = ctx.shutdown_signal() => return,
            _ = tokio::time::sleep(config.resync) => {}
        }
    }
}

/// One pass: inject the bundle where it is missing, then take the next step. True when the Secret was written.
async fn pass(
    client: &Client,
    secrets: &Api<Secret>,
    config: &WebhookCertificates,
) -> Result<bool, Error> {
    let secret = secrets
        .get_opt(&config.secret)
        .await
        .map_err(Error::Client)?;
    let mut stored = Stored::read(secret.as_ref());
    let mut targets = Vec::new();
    for (kind, name) in config.targets() {
        targets.extend(inject::read(client, kind, name).await?);
    }
    let mut names: Vec<String> = targets.iter().flat_map(|t| t.names().cloned()).collect();
    names.sort();
    names.dedup();
    let mut synced = !stored.bundle.is_empty();
    if synced {
        let bundle = stored.bundle_pem();
        for target in targets.iter().filter(|t| !t.holds(&bundle)) {
            if let Err(e) = target.inject(client, &bundle).await {
                tracing::warn!(error = %crate::ErrorChain(&e), "cannot inject the webhook CA bundle, retrying");
                synced = false;
            }
        }
    }
    let now = SystemTime::now();
    let timing = config.timing();
    let step = next_step(&stored, synced, &names, now, &timing);
    if step == Step::Wait {
        return Ok(false);
    }
    stored.apply(&step, now, &timing, || {
        issue::issue(&names, now, config.validity)
    })?;
    save(secrets, &config.secret, secret, &stored).await?;
    tracing::info!(secret = %config.secret, ?step, ?names, "webhook certificates: step taken");
    Ok(true)
}

/// Writes `stored` into the Secret read (conditional on its resourceVersion), or creates it.
async fn save(
    secrets: &Api<Secret>,
    name: &str,
    read: Option<Secret>,
    stored: &Stored,
) -> Result<(), Error> {
    let pp = PostParams::default();
    let result = match read {
        Some(mut secret) => {
            stored.write_into(&mut secret);
            secrets.replace(name, &pp, &secret).await
        }
        None => {
            let mut secret = Secret {
                metadata: ObjectMeta {
                    name: Some(name.to_string()),
                    ..ObjectMeta::default()
                },
                type_: Some("Opaque".to_string()),
                ..Secret::default()
            };
            stored.write_into(&mut secret);
            secrets.create(&pp, &secret).await
        }
    };
    result.map(drop).map_err(Error::Client)
}
