//! Secure metrics serving as kubebuilder v4 scaffolds it (--metrics-secure): TLS with the certificate from
//! --metrics-cert-path or, without one, a self-signed certificate made at startup; every request authenticated by
//! a TokenReview of its bearer token and authorised by a SubjectAccessReview of the non-resource URL it asks for
//! (the scraper needs a ClusterRole with `nonResourceURLs: ["/metrics"], verbs: ["get"]`).

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, RwLock};
use std::time::{Duration, Instant, SystemTime};

use http::{HeaderMap, StatusCode};
use k8s_openapi::api::authentication::v1::{TokenReview, TokenReviewSpec};
use k8s_openapi::api::authorization::v1::{
    NonResourceAttributes, SubjectAccessReview, SubjectAccessReviewSpec,
};
use kube::Client;
use kube::api::{Api, PostParams};
use rustls::ServerConfig;
use rustls::crypto::CryptoProvider;
use rustls::pki_types::pem::PemObject;
use rustls::pki_types::{CertificateDer, PrivateKeyDer, PrivatePkcs8KeyDer};
use rustls::server::{ClientHello, ResolvesServerCert};
use rustls::sign::CertifiedKey;

use crate::Error;

/// How long a successful authorisation is reused for the same token and path (controller-runtime caches
/// authentication for a minute too), so frequent scrapes do not double the API server's load.
const ALLOW_CACHE_TTL: Duration = Duration::from_secs(60);
const MAX_CACHED: usize = 1024;

/// Builds the TLS configuration: `cert_dir/cert_name` + `cert_dir/key_name` (PEM) when a directory is given,
/// reloaded when the files change (as controller-runtime's certwatcher does, for cert-manager rotations); a fresh
/// self-signed certificate for localhost otherwise.
pub(crate) fn tls_config(
    cert_dir: Option<&Path>,
    cert_name: &str,
    key_name: &str,
) -> Result<ServerConfig, Error> {
    // An explicit provider: other crates in the process may compile in a second one, which would make the
    // process-wide default ambiguous.
    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let resolver: Arc<dyn ResolvesServerCert> = match cert_dir {
        Some(dir) => Arc::new(ReloadingCert::load(
            dir.join(cert_name),
            dir.join(key_name),
            provider.clone(),
        )?),
        None => {
            let names = vec!["localhost".to_string(), "127.0.0.1".to_string()];
            let generated =
                rcgen::generate_simple_self_signed(names).map_err(|e| Error::Tls(e.to_string()))?;
            let key = PrivateKeyDer::Pkcs8(PrivatePkcs8KeyDer::from(
                generated.signing_key.serialize_der(),
            ));
            let certified =
                CertifiedKey::from_der(vec![generated.cert.der().clone()], key, &provider)
                    .map_err(|e| Error::Tls(e.to_string()))?;
            Arc::new(FixedCert(Arc::new(certified)))
        }
    };
    server_config(provider, resolver)
}

fn server_config(
    provider: Arc<CryptoProvider>,
    resolver: Arc<dyn ResolvesServerCert>,
) -> Result<ServerConfig, Error> {
    let mut config = ServerConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .map_err(|e| Error::Tls(e.to_string()))?
        .with_no_client_auth()
        .with_cert_resolver(resolver);
    config.alpn_protocols = vec![b"http/1.1".to_vec()];
    Ok(config)
}

/// The webhook server's TLS configuration: the certificate files in `dir` (reloaded when they change) when they
/// exist. Otherwise, for local runs (`make run` has no cert-manager), a self-signed certificate for localhost and
/// 127.0.0.1 is written there and served: the next run reuses it, so a local webhook configuration's caBundle (the
/// base64 of that tls.crt, also logged) stays valid across restarts. Where the directory cannot be written, the
/// certificate is served from memory.
pub(crate) fn webhook_tls_config(
    dir: &Path,
    cert_name: &str,
    key_name: &str,
) -> Result<ServerConfig, Error> {
    let (cert_path, key_path) = (dir.join(cert_name), dir.join(key_name));
    if cert_path.exists() || key_path.exists() {
        return tls_config(Some(dir), cert_name, key_name);
    }
    let names = vec!["localhost".to_string(), "127.0.0.1".to_string()];
    let generated =
        rcgen::generate_simple_self_signed(names).map_err(|e| Error::Tls(e.to_string()))?;
    let (cert_pem, key_pem) = (generated.cert.pem(), generated.signing_key.serialize_pem());
    let ca_bundle = base64_pem(&cert_pem);
    match write_pair(&cert_path, &cert_pem, &key_path, &key_pem) {
        Ok(()) => {
            tracing::warn!(
                cert = %cert_path.display(),
                %ca_bundle,
                "no webhook certificate in --webhook-cert-path: wrote a self-signed one for localhost and 127.0.0.1; \
                 its base64 (ca_bundle) is the caBundle of a local webhook configuration"
            );
            tls_config(Some(dir), cert_name, key_name)
        }
        Err(e) => {
            tracing::warn!(
                dir = %dir.display(),
                error = %e,
                %ca_bundle,
                "no webhook certificate in --webhook-cert-path, and none can be written there: serving a self-signed \
                 one for localhost and 127.0.0.1 from memory (ca_bundle is its caBundle)"
            );
            let provider = Arc::new(rustls::crypto::ring::default_provider());
            let key = PrivateKeyDer::Pkcs8(PrivatePkcs8KeyDer::from(
                generated.signing_key.serialize_der(),
            ));
            let certified =
                CertifiedKey::from_der(vec![generated.cert.der().clone()], key, &provider)
                    .map_err(|e| Error::Tls(e.to_string()))?;
            server_config(provider, Arc::new(FixedCert(Arc::new(certified))))
        }
    }
}

/// Writes a generated key (mode 0600) and certificate, key first: a reader that sees the certificate finds its key.
fn write_pair(cert: &Path, cert_pem: &str, key: &Path, key_pem: &str) -> std::io::Result<()> {
    if let Some(dir) = cert.parent() {
        std::fs::create_dir_all(dir)?;
    }
    let mut options = std::fs::OpenOptions::new();
    options.write(true).create_new(true);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o600);
    std::io::Write::write_all(&mut options.open(key)?, key_pem.as_bytes())?;
    std::fs::write(cert, cert_pem)
}

/// Standard base64 of a PEM text, as a caBundle field holds it.
fn base64_pem(pem: &str) -> String {
    use base64::Engine as _;
    base64::engine::general_purpose::STANDARD.encode(pem)
}

#[derive(Debug)]
struct FixedCert(Arc<CertifiedKey>);

impl ResolvesServerCert for FixedCert {
    fn resolve(&self, _: ClientHello<'_>) -> Option<Arc<CertifiedKey>> {
        Some(self.0.clone())
    }
}

/// A certificate read from PEM files and read again whenever their modification times change. A failed reload
/// keeps serving the previous certificate (a rotation may write the two files one after the other).
#[derive(Debug)]
struct ReloadingCert {
    cert_path: PathBuf,
    key_path: PathBuf,
    provider: Arc<CryptoProvider>,
    current: RwLock<(FileStamps, Arc<CertifiedKey>)>,
}

type FileStamps = (Option<SystemTime>, Option<SystemTime>);

impl ReloadingCert {
    fn load(
        cert_path: PathBuf,
        key_path: PathBuf,
        provider: Arc<CryptoProvider>,
    ) -> Result<Self, Error> {
        let stamps = stamps(&cert_path, &key_path);
        let key = read_pair(&cert_path, &key_path, &provider)?;
        Ok(Self {
            cert_path,
            key_path,
            provider,
            current: RwLock::new((stamps, Arc::new(key))),
        })
    }
}

fn stamps(cert: &Path, key: &Path) -> FileStamps {
    let modified = |p: &Path| std::fs::metadata(p).and_then(|m| m.modified()).ok();
    (modified(cert), modified(key))
}

fn read_pair(
    cert_path: &Path,
    key_path: &Path,
    provider: &CryptoProvider,
) -> Result<CertifiedKey, Error> {
    let chain = CertificateDer::pem_file_iter(cert_path)
        .and_then(|certs| certs.collect::<Result<Vec<_>, _>>())
        .map_err(|e| Error::Tls(format!("{}: {e}", cert_path.display())))?;
    if chain.is_empty() {
        return Err(Error::Tls(format!(
            "{}: no certificate",
            cert_path.display()
        )));
    }
    let key = PrivateKeyDer::from_pem_file(key_path)
        .map_err(|e| Error::Tls(format!("{}: {e}", key_path.display())))?;
    CertifiedKey::from_der(chain, key, provider).map_err(|e| {
        Error::Tls(format!(
            "{} and {}: {e}",
            cert_path.display(),
            key_path.display()
        ))
    })
}

impl ResolvesServerCert for ReloadingCert {
    fn resolve(&self, _: ClientHello<'_>) -> Option<Arc<CertifiedKey>> {
        // Two stat calls per handshake are cheap next to the handshake itself.
        let now = stamps(&self.cert_path, &self.key_path);
        {
            let current = self.current.read().unwrap_or_else(|e| e.into_inner());
            if current.0 == now {
                return Some(current.1.clone());
            }
        }
        let mut current = self.current.write().unwrap_or_else(|e| e.into_inner());
        match read_pair(&self.cert_path, &self.key_path, &self.provider) {
            Ok(key) => {
                tracing::info!(cert = %self.cert_path.display(), "reloaded metrics certificate");
                *current = (now, Arc::new(key));
            }
            // Remember the stamps anyway so a broken pair is not re-read on every handshake.
            Err(e) => {
                tracing::warn!(error = %e, "cannot reload metrics certificate, keeping the previous one");
                current.0 = now;
            }
        }
        Some(current.1.clone())
    }
}

/// Authenticates and authorises requests with the API server, like controller-runtime's
/// `filters.WithAuthenticationAndAuthorization`.
#[derive(Clone)]
pub(crate) struct Authorizer {
    client: Client,
    allowed: Arc<Mutex<HashMap<(String, String), Instant>>>,
}

impl Authorizer {
    pub(crate) fn new(client: Client) -> Self {
        Self {
            client,
            allowed: Arc::default(),
        }
    }

    /// Ok when the bearer token belongs to a user allowed to `verb` the non-resource URL `path`.
    pub(crate) async fn check(
        &self,
        headers: &HeaderMap,
        verb: &str,
        path: &str,
    ) -> Result<(), (StatusCode, String)> {
        let token = headers
            .get(http::header::AUTHORIZATION)
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.strip_prefix("Bearer "))
            .map(str::trim)
            .filter(|t| !t.is_empty())
            .ok_or((
                StatusCode::UNAUTHORIZED,
                "Unauthorized: no bearer token\n".to_string(),
            ))?;
        let key = (token.to_string(), format!("{verb} {path}"));
        if self.cached(&key) {
            return Ok(());
        }
        let internal = |e: kube::Error| {
            tracing::warn!(error = %e, "metrics authorisation call failed");
            (
                StatusCode::INTERNAL_SERVER_ERROR,
                "authorisation failed\n".to_string(),
            )
        };

        let review = TokenReview {
            spec: TokenReviewSpec {
                token: Some(token.to_string()),
                ..TokenReviewSpec::default()
            },
            ..TokenReview::default()
        };
        let reviewed = Api::<TokenReview>::all(self.client.clone())
            .create(&PostParams::default(), &review)
            .await
            .map_err(internal)?;
        let status = reviewed.status.unwrap_or_default();
        let user = match (status.authenticated, status.user) {
            (Some(true), Some(user)) => user,
            _ => return Err((StatusCode::UNAUTHORIZED, "Unauthorized\n".to_string())),
        };

        let access = SubjectAccessReview {
            spec: SubjectAccessReviewSpec {
                user: user.username.clone(),
                groups: user.groups.clone(),
                uid: user.uid.clone(),
                extra: user.extra.clone(),
                non_resource_attributes: Some(NonResourceAttributes {
                    path: Some(path.to_string()),
                    verb: Some(verb.to_string()),
                }),
                ..SubjectAccessReviewSpec::default()
            },
            ..SubjectAccessReview::default()
        };
        let decided = Api::<SubjectAccessReview>::all(self.client.clone())
            .create(&PostParams::default(), &access)
            .await
            .map_err(internal)?;
        if !decided.status.is_some_and(|s| s.allowed) {
            let who = user.username.unwrap_or_default();
            return Err((
                StatusCode::FORBIDDEN,
                format!("Forbidden (user={who}, verb={verb}, resource=, subresource=)\n"),
            ));
        }
        self.remember(key);
        Ok(())
    }

    fn cached(&self, key: &(String, String)) -> bool {
        let allowed = self.allowed.lock().unwrap_or_else(|e| e.into_inner());
        allowed
            .get(key)
            .is_some_and(|at| at.elapsed() < ALLOW_CACHE_TTL)
    }

    fn remember(&self, key: (String, String)) {
        let mut allowed = self.allowed.lock().unwrap_or_else(|e| e.into_inner());
        if allowed.len() >= MAX_CACHED {
            allowed.retain(|_, at| at.elapsed() < ALLOW_CACHE_TTL);
            if allowed.len() >= MAX_CACHED {
                allowed.clear();
            }
        }
        allowed.insert(key, Instant::now());
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn self_signed_config_builds() {
        let config = tls_config(None, "tls.crt", "tls.key").unwrap();
        assert_eq!(config.alpn_protocols, vec![b"http/1.1".to_vec()]);
    }

    #[test]
    fn missing_cert_files_are_reported_with_their_path() {
        let dir = std::env::temp_dir().join("rkb-runtime-no-such-cert-dir");
        let err = tls_config(Some(&dir), "tls.crt", "tls.key")
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("rkb-runtime-no-such-cert-dir/tls.crt"),
            "{err}"
        );
    }
}
