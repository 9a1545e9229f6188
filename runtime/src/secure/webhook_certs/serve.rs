//! Every replica's side: serves the Secret's `tls.crt`/`tls.key`, following the Secret with a watch.

use std::sync::{Arc, RwLock};

use futures::StreamExt as _;
use k8s_openapi::api::core::v1::Secret;
use kube::Api;
use kube::runtime::WatchStreamExt as _;
use kube::runtime::watcher::{self, Event};
use rustls::ServerConfig;
use rustls::crypto::CryptoProvider;
use rustls::pki_types::pem::PemObject;
use rustls::pki_types::{CertificateDer, PrivateKeyDer};
use rustls::server::{ClientHello, ResolvesServerCert};
use rustls::sign::CertifiedKey;

use super::state::{CERT_KEY, KEY_KEY};
use crate::Error;

/// The certificate the Secret holds; none until it has one (a handshake then fails, as with no server at all).
#[derive(Debug)]
pub(crate) struct SecretCert {
    provider: Arc<CryptoProvider>,
    /// The served pair and its certificate's PEM (to tell a changed Secret from a resync).
    current: RwLock<Option<(String, Arc<CertifiedKey>)>>,
}

impl ResolvesServerCert for SecretCert {
    fn resolve(&self, _: ClientHello<'_>) -> Option<Arc<CertifiedKey>> {
        let current = self.current.read().unwrap_or_else(|e| e.into_inner());
        current.as_ref().map(|(_, key)| key.clone())
    }
}

impl SecretCert {
    /// Serves the pair in `secret` when it differs from the one served; true when it serves one now. A Secret
    /// without a readable pair leaves the served one in place.
    fn load(&self, secret: &Secret) -> bool {
        let text = |key: &str| {
            let data = secret.data.as_ref()?;
            String::from_utf8(data.get(key)?.0.clone()).ok()
        };
        let (Some(cert_pem), Some(key_pem)) = (text(CERT_KEY), text(KEY_KEY)) else {
            return self.serves();
        };
        if self
            .current
            .read()
            .unwrap_or_else(|e| e.into_inner())
            .as_ref()
            .is_some_and(|(pem, _)| *pem == cert_pem)
        {
            return true;
        }
        match certified(&cert_pem, &key_pem, &self.provider) {
            Ok(key) => {
                *self.current.write().unwrap_or_else(|e| e.into_inner()) =
                    Some((cert_pem, Arc::new(key)));
                tracing::info!(secret = ?secret.metadata.name, "serving the webhook certificate of the Secret");
                true
            }
            Err(e) => {
                tracing::warn!(secret = ?secret.metadata.name, error = %e, "cannot read the webhook certificate of the Secret, keeping the one served");
                self.serves()
            }
        }
    }

    fn serves(&self) -> bool {
        self.current
            .read()
            .unwrap_or_else(|e| e.into_inner())
            .is_some()
    }
}

fn certified(
    cert_pem: &str,
    key_pem: &str,
    provider: &CryptoProvider,
) -> Result<CertifiedKey, Error> {
    let bad = |e: &dyn std::fmt::Display| Error::Tls(e.to_string());
    let chain = CertificateDer::pem_slice_iter(cert_pem.as_bytes())
        .collect::<Result<Vec<_>, _>>()
        .map_err(|e| bad(&e))?;
    let key = PrivateKeyDer::from_pem_slice(key_pem.as_bytes()).map_err(|e| bad(&e))?;
    CertifiedKey::from_der(chain, key, provider).map_err(|e| bad(&e))
}

/// The webhook server's TLS configuration, serving from the returned [`SecretCert`].
pub(crate) fn tls_config() -> Result<(ServerConfig, Arc<SecretCert>), Error> {
    let provider = super::super::provider();
    let cert = Arc::new(SecretCert {
        provider: provider.clone(),
        current: RwLock::new(None),
    });
    Ok((super::super::server_config(provider, cert.clone())?, cert))
}

/// Follows Secret `name` in `api` until the task is dropped, serving each pair it holds; calls `ready` once a
/// pair is served.
pub(crate) async fn follow(
    api: Api<Secret>,
    name: String,
    cert: Arc<SecretCert>,
    ready: impl FnOnce(),
) {
    let config = watcher::Config::default().fields(&format!("metadata.name={name}"));
    let mut events = std::pin::pin!(watcher::watcher(api, config).default_backoff());
    let mut ready = Some(ready);
    while let Some(event) = events.next().await {
        let serving = match event {
            Ok(Event::Apply(secret) | Event::InitApply(secret)) => cert.load(&secret),
            Ok(Event::Delete(_)) => {
                tracing::warn!(%name, "the webhook certificate's Secret was deleted; serving the last certificate until the leader writes a new one");
                continue;
            }
            Ok(Event::Init | Event::InitDone) => continue,
            Err(e) => {
                tracing::warn!(%name, error = %e, "cannot watch the webhook certificate's Secret, retrying");
                continue;
            }
        };
        if serving && let Some(ready) = ready.take() {
            ready();
        }
    }
}
