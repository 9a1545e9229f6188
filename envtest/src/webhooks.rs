//! Webhooks for tests, as controller-runtime's WebhookInstallOptions: a serving certificate for a webhook server on
//! 127.0.0.1, and the webhook configurations (and CRD conversion settings) rewritten to call that server.
//!
//! Expected flow: [`crate::Environment::install_webhooks`] with `config/webhook/manifests.yaml`; start the
//! operator's webhook server on [`WebhookServer::port`] with the certificate in [`WebhookServer::cert_dir`]
//! (`tls.crt`, `tls.key`); then exercise it through the API server (poll with `eventually`: the API server picks a
//! new configuration up within moments, and until the server listens, calls fail as the failurePolicy says).
//! [`WebhookServer::rotate`] replaces the certificate as cert-manager would.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD;
use rcgen::{
    BasicConstraints, CertificateParams, CertifiedIssuer, DnType, ExtendedKeyUsagePurpose, IsCa,
    KeyPair, KeyUsagePurpose,
};
use serde_json::{Value, json};

use crate::error::{Error, Result, io_err};

/// Where a test's webhook server listens, and the certificate it serves.
pub struct WebhookServer {
    /// The port on 127.0.0.1 the configurations call.
    pub port: u16,
    /// Holds `tls.crt` and `tls.key` (the `--webhook-cert-path` of the operator under test).
    pub cert_dir: PathBuf,
    /// The CA (PEM) the API server trusts for this server.
    pub ca_pem: String,
    ca: Arc<CertifiedIssuer<'static, KeyPair>>,
}

impl std::fmt::Debug for WebhookServer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("WebhookServer")
            .field("port", &self.port)
            .field("cert_dir", &self.cert_dir)
            .finish_non_exhaustive()
    }
}

impl WebhookServer {
    /// A CA, and a serving certificate for 127.0.0.1 and localhost written to `cert_dir`.
    pub(crate) fn new(port: u16, cert_dir: PathBuf) -> Result<Self> {
        let mut params = CertificateParams::new(Vec::<String>::new())?;
        params
            .distinguished_name
            .push(DnType::CommonName, "rkb-envtest-webhook-ca");
        params.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
        params.key_usages = vec![
            KeyUsagePurpose::KeyCertSign,
            KeyUsagePurpose::DigitalSignature,
        ];
        let ca = CertifiedIssuer::self_signed(params, KeyPair::generate()?)?;
        std::fs::create_dir_all(&cert_dir).map_err(io_err(&cert_dir))?;
        let server = Self {
            port,
            cert_dir,
            ca_pem: ca.pem(),
            ca: Arc::new(ca),
        };
        server.rotate()?;
        Ok(server)
    }

    /// Issues a fresh serving certificate from the same CA and replaces `tls.crt` and `tls.key` (key first, then
    /// the certificate, each by rename, as a rotation on disk happens). Returns the new certificate's PEM.
    pub fn rotate(&self) -> Result<String> {
        let mut params =
            CertificateParams::new(vec!["127.0.0.1".to_string(), "localhost".to_string()])?;
        params
            .distinguished_name
            .push(DnType::CommonName, "rkb-envtest-webhook");
        params.extended_key_usages = vec![ExtendedKeyUsagePurpose::ServerAuth];
        let key = KeyPair::generate()?;
        let cert = params.signed_by(&key, &**self.ca)?;
        replace(&self.cert_dir.join("tls.key"), &key.serialize_pem())?;
        replace(&self.cert_dir.join("tls.crt"), &cert.pem())?;
        Ok(cert.pem())
    }

    /// `https://127.0.0.1:<port><path>`.
    pub fn url(&self, path: &str) -> String {
        format!("https://127.0.0.1:{}{path}", self.port)
    }

    /// The client configuration that calls `path` on this server.
    pub fn client_config(&self, path: &str) -> Value {
        json!({"url": self.url(path), "caBundle": STANDARD.encode(&self.ca_pem)})
    }
}

fn replace(path: &Path, text: &str) -> Result<()> {
    let tmp = path.with_extension("tmp");
    std::fs::write(&tmp, text).map_err(io_err(&tmp))?;
    std::fs::rename(&tmp, path).map_err(io_err(path))
}

/// The webhook configurations of `yaml` (MutatingWebhookConfiguration, ValidatingWebhookConfiguration documents,
/// as `rkb manifests` writes them) with every webhook calling `server` at its service path.
pub(crate) fn rewrite(yaml: &str, server: &WebhookServer) -> Result<Vec<Value>> {
    let mut out = Vec::new();
    for (_, doc) in crate::crds::yaml_documents(yaml) {
        let doc =
            doc.map_err(|e| Error::Webhook(format!("webhook manifests do not parse: {e}")))?;
        let Some(mut doc) = doc else {
            continue;
        };
        let kind = doc["kind"].as_str().unwrap_or_default().to_string();
        if kind != "MutatingWebhookConfiguration" && kind != "ValidatingWebhookConfiguration" {
            return Err(Error::Webhook(format!(
                "expected webhook configurations, found a {kind:?} document"
            )));
        }
        for webhook in doc["webhooks"].as_array_mut().into_iter().flatten() {
            let path = service_path(&webhook["clientConfig"]).ok_or_else(|| {
                Error::Webhook(format!(
                    "webhook {} has no clientConfig.service.path or url to call",
                    webhook["name"]
                ))
            })?;
            webhook["clientConfig"] = server.client_config(&path);
        }
        out.push(doc);
    }
    Ok(out)
}

/// The path a webhook calls: its service's, or its URL's.
fn service_path(client_config: &Value) -> Option<String> {
    if let Some(path) = client_config["service"]["path"].as_str() {
        return Some(path.to_string());
    }
    let url = client_config["url"].as_str()?;
    let after_scheme = url.split_once("://").map_or(url, |(_, rest)| rest);
    after_scheme
        .find('/')
        .map(|i| after_scheme[i..].to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn services_and_urls_become_calls_to_the_test_server() {
        let dir = tempfile::tempdir().unwrap();
        let server = WebhookServer::new(9443, dir.path().join("certs")).unwrap();
        let yaml = "---
apiVersion: admissionregistration.k8s.io/v1
kind: MutatingWebhookConfiguration
metadata:
  name: m
webhooks:
- clientConfig:
    service:
      name: webhook-service
      namespace: system
      path: /mutate-x
  name: a.kb.io
- clientConfig:
    url: https://hooks.example.com:8443/y
  name: b.kb.io
";
        let docs = rewrite(yaml, &server).unwrap();
        let hooks = docs[0]["webhooks"].as_array().unwrap();
        assert_eq!(
            hooks[0]["clientConfig"]["url"],
            "https://127.0.0.1:9443/mutate-x"
        );
        assert_eq!(hooks[1]["clientConfig"]["url"], "https://127.0.0.1:9443/y");
        assert!(hooks[0]["clientConfig"]["service"].is_null());
        assert!(dir.path().join("certs/tls.crt").exists());
        let before = std::fs::read_to_string(dir.path().join("certs/tls.crt")).unwrap();
        let rotated = server.rotate().unwrap();
        assert_ne!(before, rotated);
        assert!(rewrite("kind: ConfigMap\n", &server).is_err());
    }
}
