//! Secure metrics serving as kubebuilder v4 scaffolds it (--metrics-secure): TLS with the certificate from
//! --metrics-cert-path or, without one, a self-signed certificate made at startup; every request authenticated by
//! a TokenReview of its bearer token and authorised by a SubjectAccessReview of the non-resource URL it asks for
//! (the scraper needs a ClusterRole with `nonResourceURLs: ["/metrics"], verbs: ["get"]`). Also the webhook
//! server's certificate.
//!
//! Contract (authorisation, [`authorizer`]): no token is 401; the reviews have 5 s together, after which the
//! request fails closed with 503, and a failed review is 500 (neither remembered); allows are remembered for a
//! minute and denials (401, 403) for 10 s, per token, verb and path, at most 1024 decisions.
//!
//! Contract (certificates):
//! - Files given (--metrics-cert-path, --webhook-cert-path) are served and reloaded when they change; rkb never
//!   rewrites a certificate it did not generate.
//! - Certificates rkb generates are valid for one year from an hour ago, and one it wrote to disk is replaced
//!   when less than 30 days are left, at startup or at a handshake (self_signed.rs).
//! - With `--webhook-cert-secret` the webhook server reads no files: the manager makes, injects and rotates its
//!   certificate itself and serves it from a Secret ([`webhook_certs`]).
//! - The webhook server without certificate files: in a pod (KUBERNETES_SERVICE_HOST set) a startup error naming
//!   the files and the scaffold's Secret `webhook-server-cert`; outside one a self-signed certificate written to
//!   --webhook-cert-path (created 0700; refused when another user owns it or others may write to it).

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, RwLock};
use std::time::{Duration, SystemTime};

use rustls::ServerConfig;
use rustls::crypto::CryptoProvider;
use rustls::pki_types::pem::PemObject;
use rustls::pki_types::{CertificateDer, PrivateKeyDer, PrivatePkcs8KeyDer};
use rustls::server::{ClientHello, ResolvesServerCert};
use rustls::sign::CertifiedKey;

use crate::Error;

mod authorizer;
mod self_signed;
pub mod webhook_certs;

pub(crate) use authorizer::Authorizer;

/// Builds the TLS configuration: `cert_dir/cert_name` + `cert_dir/key_name` (PEM) when a directory is given,
/// reloaded when the files change (as controller-runtime's certwatcher does, for cert-manager rotations); a fresh
/// self-signed certificate for localhost otherwise, valid for a year (see [`self_signed`]), held in memory only.
pub(crate) fn tls_config(
    cert_dir: Option<&Path>,
    cert_name: &str,
    key_name: &str,
) -> Result<ServerConfig, Error> {
    match cert_dir {
        Some(dir) => reloading_config(dir.join(cert_name), dir.join(key_name), None),
        None => in_memory_config(&self_signed::generate(SystemTime::now())?),
    }
}

/// An explicit provider: other crates in the process may compile in a second one, which would make the
/// process-wide default ambiguous.
fn provider() -> Arc<CryptoProvider> {
    Arc::new(rustls::crypto::ring::default_provider())
}

fn reloading_config(
    cert_path: PathBuf,
    key_path: PathBuf,
    own: Option<OwnCert>,
) -> Result<ServerConfig, Error> {
    let provider = provider();
    let resolver = ReloadingCert::load(cert_path, key_path, own, provider.clone())?;
    server_config(provider, Arc::new(resolver))
}

fn in_memory_config(generated: &self_signed::Generated) -> Result<ServerConfig, Error> {
    let provider = provider();
    let key = PrivateKeyDer::Pkcs8(PrivatePkcs8KeyDer::from(generated.key_der.clone()));
    let certified = CertifiedKey::from_der(
        vec![CertificateDer::from(generated.cert_der.clone())],
        key,
        &provider,
    )
    .map_err(|e| Error::Tls(e.to_string()))?;
    server_config(provider, Arc::new(FixedCert(Arc::new(certified))))
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
/// exist. Otherwise:
/// - in a pod (KUBERNETES_SERVICE_HOST is set) a startup error naming the files and the Secret the scaffold
///   mounts: the API server would not trust a certificate the manager made up, and every admission would fail;
/// - for local runs (`make run` has no cert-manager), a self-signed certificate for localhost and 127.0.0.1 is
///   written there (directory 0700, see [`self_signed`]) and served: the next run reuses it, so a local webhook
///   configuration's caBundle (the base64 of that tls.crt, also logged) stays valid across restarts, until rkb
///   replaces it 30 days before it expires. Where the directory cannot be written, the certificate is served from
///   memory; a directory another user owns, or others may write to, is an error.
pub(crate) fn webhook_tls_config(
    dir: &Path,
    cert_name: &str,
    key_name: &str,
) -> Result<ServerConfig, Error> {
    let in_pod = std::env::var_os("KUBERNETES_SERVICE_HOST").is_some();
    webhook_tls_config_at(dir, cert_name, key_name, in_pod, SystemTime::now())
}

/// [`webhook_tls_config`] with the facts it depends on passed in, for tests.
fn webhook_tls_config_at(
    dir: &Path,
    cert_name: &str,
    key_name: &str,
    in_pod: bool,
    now: SystemTime,
) -> Result<ServerConfig, Error> {
    let (cert_path, key_path) = (dir.join(cert_name), dir.join(key_name));
    if cert_path.exists() || key_path.exists() {
        let own = OwnCert::find(dir, &cert_path, &key_path);
        if let Some(own) = &own {
            own.renew_if_due(now)?;
        }
        return reloading_config(cert_path, key_path, own);
    }
    if in_pod {
        return Err(missing_in_pod(&cert_path, &key_path));
    }
    let generated = self_signed::generate(now)?;
    let ca_bundle = base64_pem(&generated.cert_pem);
    match store(dir, &cert_path, &key_path, &generated)? {
        Ok(()) => {
            tracing::info!(
                cert = %cert_path.display(),
                %ca_bundle,
                "not in a pod and no webhook certificate in --webhook-cert-path: wrote a self-signed one for \
                 localhost and 127.0.0.1, valid for a year; its base64 (ca_bundle) is the caBundle of a local \
                 webhook configuration"
            );
            let own = OwnCert::find(dir, &cert_path, &key_path);
            reloading_config(cert_path, key_path, own)
        }
        Err(e) => {
            tracing::warn!(
                dir = %dir.display(),
                error = %e,
                %ca_bundle,
                "no webhook certificate in --webhook-cert-path, and none can be written there: serving a self-signed \
                 one for localhost and 127.0.0.1 from memory (ca_bundle is its caBundle)"
            );
            in_memory_config(&generated)
        }
    }
}

/// The startup error of a pod whose serving certificate is missing, naming what the scaffold mounts where.
fn missing_in_pod(cert_path: &Path, key_path: &Path) -> Error {
    Error::Tls(format!(
        "no webhook serving certificate: neither {} nor {} exists, and in a pod (KUBERNETES_SERVICE_HOST is set) \
         the manager does not make a self-signed one the API server would not trust. The scaffold mounts the Secret \
         `webhook-server-cert` (volume `webhook-certs`, config/default/manager_webhook_patch.yaml) at \
         /tmp/k8s-webhook-server/serving-certs, and cert-manager fills it (config/certmanager/certificate-webhook.yaml). \
         help: install cert-manager and deploy config/default, or point --webhook-cert-path (with \
         --webhook-cert-name and --webhook-key-name) at a directory holding the certificate and key",
        cert_path.display(),
        key_path.display()
    ))
}

/// Writes a generated pair into `dir`, creating it 0700. `Err`: the directory is refused (someone else's, or
/// writable by others), which stops the manager; `Ok(Err)`: it cannot be written, and the caller serves from memory.
fn store(
    dir: &Path,
    cert_path: &Path,
    key_path: &Path,
    generated: &self_signed::Generated,
) -> Result<std::io::Result<()>, Error> {
    if let Err(e) = self_signed::create_private_dir(dir) {
        return Ok(Err(e));
    }
    self_signed::check_private_dir(dir)?;
    Ok(self_signed::write_generated(
        dir, cert_path, key_path, generated,
    ))
}

/// A certificate rkb generated into a directory, renewed there when near expiry (see [`self_signed`]).
#[derive(Debug)]
struct OwnCert {
    dir: PathBuf,
    cert_path: PathBuf,
    key_path: PathBuf,
    /// When the current certificate expires; None once someone else's certificate has replaced it.
    not_after: Mutex<Option<SystemTime>>,
}

impl OwnCert {
    fn find(dir: &Path, cert_path: &Path, key_path: &Path) -> Option<Self> {
        let not_after = self_signed::own_expiry(dir, cert_path)?;
        Some(Self {
            dir: dir.to_path_buf(),
            cert_path: cert_path.to_path_buf(),
            key_path: key_path.to_path_buf(),
            not_after: Mutex::new(Some(not_after)),
        })
    }

    /// Replaces the certificate when less than 30 days of it are left and it is still rkb's; true when replaced.
    fn renew_if_due(&self, now: SystemTime) -> Result<bool, Error> {
        let mut not_after = self.not_after.lock().unwrap_or_else(|e| e.into_inner());
        if !not_after.is_some_and(|at| self_signed::renewal_due(at, now)) {
            return Ok(false);
        }
        // A user may have put a certificate of their own there since: that one is never touched.
        if self_signed::own_expiry(&self.dir, &self.cert_path).is_none() {
            *not_after = None;
            return Ok(false);
        }
        let generated = self_signed::generate(now)?;
        match store(&self.dir, &self.cert_path, &self.key_path, &generated) {
            Ok(Ok(())) => {}
            Ok(Err(e)) => return Err(Error::Tls(format!("{}: {e}", self.dir.display()))),
            Err(refused) => return Err(refused),
        }
        *not_after = Some(generated.not_after);
        tracing::warn!(
            cert = %self.cert_path.display(),
            ca_bundle = %base64_pem(&generated.cert_pem),
            "the self-signed webhook certificate rkb made had less than 30 days left: replaced it with one valid \
             for a year; a local webhook configuration needs the new caBundle (ca_bundle)"
        );
        Ok(true)
    }

    /// After a failed renewal while serving, tries again in an hour rather than on every handshake.
    fn postpone(&self, now: SystemTime) {
        let mut not_after = self.not_after.lock().unwrap_or_else(|e| e.into_inner());
        if not_after.is_some() {
            *not_after = Some(now + self_signed::RENEW_BEFORE + Duration::from_secs(60 * 60));
        }
    }
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
    /// Set when rkb generated the certificate, which it then renews itself.
    own: Option<OwnCert>,
    provider: Arc<CryptoProvider>,
    current: RwLock<(FileStamps, Arc<CertifiedKey>)>,
}

type FileStamps = (Option<SystemTime>, Option<SystemTime>);

impl ReloadingCert {
    fn load(
        cert_path: PathBuf,
        key_path: PathBuf,
        own: Option<OwnCert>,
        provider: Arc<CryptoProvider>,
    ) -> Result<Self, Error> {
        let stamps = stamps(&cert_path, &key_path);
        let key = read_pair(&cert_path, &key_path, &provider)?;
        Ok(Self {
            cert_path,
            key_path,
            own,
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
        self.renew_own(SystemTime::now());
        Some(self.current())
    }
}

impl ReloadingCert {
    /// Renews the certificate rkb generated when it is due (a manager may run for longer than a month).
    fn renew_own(&self, now: SystemTime) {
        let Some(own) = &self.own else { return };
        match own.renew_if_due(now) {
            // Forget the stamps: a coarse file clock might give the new files the old ones' times.
            Ok(true) => self.current.write().unwrap_or_else(|e| e.into_inner()).0 = (None, None),
            Ok(false) => {}
            Err(e) => {
                tracing::warn!(error = %e, "cannot renew the self-signed webhook certificate, retrying in an hour");
                own.postpone(now);
            }
        }
    }

    /// The certificate to serve, read again when the files' modification times changed.
    fn current(&self) -> Arc<CertifiedKey> {
        // Two stat calls per handshake are cheap next to the handshake itself.
        let now = stamps(&self.cert_path, &self.key_path);
        {
            let current = self.current.read().unwrap_or_else(|e| e.into_inner());
            if current.0 == now {
                return current.1.clone();
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
        current.1.clone()
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

    fn webhook_dir() -> (tempfile::TempDir, PathBuf) {
        let base = tempfile::tempdir().unwrap();
        let dir = base.path().join("k8s-webhook-server/serving-certs");
        (base, dir)
    }

    #[test]
    fn in_a_pod_a_missing_webhook_certificate_is_an_error() {
        let (_base, dir) = webhook_dir();
        let err = webhook_tls_config_at(&dir, "tls.crt", "tls.key", true, SystemTime::now())
            .unwrap_err()
            .to_string();
        assert_eq!(
            err,
            format!(
                "TLS: no webhook serving certificate: neither {d}/tls.crt nor {d}/tls.key exists, and in a \
                 pod (KUBERNETES_SERVICE_HOST is set) the manager does not make a self-signed one the API server \
                 would not trust. The scaffold mounts the Secret `webhook-server-cert` (volume `webhook-certs`, \
                 config/default/manager_webhook_patch.yaml) at /tmp/k8s-webhook-server/serving-certs, and \
                 cert-manager fills it (config/certmanager/certificate-webhook.yaml). help: install cert-manager \
                 and deploy config/default, or point --webhook-cert-path (with --webhook-cert-name and \
                 --webhook-key-name) at a directory holding the certificate and key",
                d = dir.display()
            )
        );
        assert!(!dir.exists(), "nothing written");
    }

    #[test]
    fn outside_a_pod_a_self_signed_certificate_is_written_in_a_0700_directory() {
        use std::os::unix::fs::PermissionsExt as _;
        let (_base, dir) = webhook_dir();
        webhook_tls_config_at(&dir, "tls.crt", "tls.key", false, SystemTime::now()).unwrap();
        assert!(dir.join("tls.crt").exists() && dir.join("tls.key").exists());
        let mode = std::fs::metadata(&dir).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode, 0o700);
    }

    #[test]
    fn rkb_renews_its_own_certificate_near_expiry_and_never_a_users() {
        let (_base, dir) = webhook_dir();
        let cert = dir.join("tls.crt");
        let made = SystemTime::now();
        webhook_tls_config_at(&dir, "tls.crt", "tls.key", false, made).unwrap();
        let first = std::fs::read_to_string(&cert).unwrap();
        // A restart 300 days later: 65 days left, kept.
        let day = Duration::from_secs(24 * 60 * 60);
        webhook_tls_config_at(&dir, "tls.crt", "tls.key", false, made + 300 * day).unwrap();
        assert_eq!(std::fs::read_to_string(&cert).unwrap(), first);
        // 340 days later: 25 days left, replaced.
        webhook_tls_config_at(&dir, "tls.crt", "tls.key", false, made + 340 * day).unwrap();
        let second = std::fs::read_to_string(&cert).unwrap();
        assert_ne!(second, first);
        // A user's certificate (here one made the same way, without rkb's record of it) is never replaced, even
        // when the one rkb recorded (made on day 340) is due.
        let theirs = self_signed::generate(made).unwrap();
        std::fs::write(&cert, &theirs.cert_pem).unwrap();
        std::fs::write(dir.join("tls.key"), &theirs.key_pem).unwrap();
        webhook_tls_config_at(&dir, "tls.crt", "tls.key", false, made + 690 * day).unwrap();
        assert_eq!(std::fs::read_to_string(&cert).unwrap(), theirs.cert_pem);
    }

    #[test]
    fn a_running_server_renews_its_own_certificate_when_due() {
        let (_base, dir) = webhook_dir();
        let (cert, key) = (dir.join("tls.crt"), dir.join("tls.key"));
        // Made 340 days ago: 25 days left now.
        let made = SystemTime::now() - Duration::from_secs(340 * 24 * 60 * 60);
        webhook_tls_config_at(&dir, "tls.crt", "tls.key", false, made).unwrap();
        let own = OwnCert::find(&dir, &cert, &key);
        assert!(own.is_some());
        let served = ReloadingCert::load(cert.clone(), key, own, provider()).unwrap();
        let before = served.current().cert[0].clone();
        served.renew_own(SystemTime::now());
        let after = served.current().cert[0].clone();
        assert_ne!(after, before, "renewed");
        let on_disk = CertificateDer::pem_file_iter(&cert)
            .unwrap()
            .next()
            .unwrap()
            .unwrap();
        assert_eq!(after, on_disk, "serves the renewed file");
    }
}
