//! Self-contained kubeconfig files (certificates inlined), usable by kubectl and by kube::Config.

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD;

use crate::certs::CertKey;

/// The context, cluster and user name inside every generated kubeconfig.
pub const CONTEXT_NAME: &str = "envtest";

pub(crate) fn render(server: &str, ca_pem: &str, user: &CertKey) -> String {
    let b64 = |s: &str| STANDARD.encode(s.as_bytes());
    format!(
        "apiVersion: v1
kind: Config
clusters:
- name: {CONTEXT_NAME}
  cluster:
    server: {server}
    certificate-authority-data: {ca}
users:
- name: {CONTEXT_NAME}
  user:
    client-certificate-data: {cert}
    client-key-data: {key}
contexts:
- name: {CONTEXT_NAME}
  context:
    cluster: {CONTEXT_NAME}
    user: {CONTEXT_NAME}
    namespace: default
current-context: {CONTEXT_NAME}
preferences: {{}}
",
        ca = b64(ca_pem),
        cert = b64(&user.cert_pem),
        key = b64(&user.key_pem),
    )
}
