//! Self-contained kubeconfig files (certificates inlined), usable by kubectl and by kube::Config.

use base64::Engine as _;
use base64::engine::general_purpose::STANDARD;

use crate::certs::CertKey;

/// The context, cluster and user name inside every generated kubeconfig.
pub const CONTEXT_NAME: &str = "envtest";

pub(crate) fn render(server: &str, ca_pem: &str, user: &CertKey) -> String {
    let b64 = |s: &str| STANDARD.encode(s.as_bytes());
    let credentials = format!(
        "client-certificate-data: {cert}\n    client-key-data: {key}",
        cert = b64(&user.cert_pem),
        key = b64(&user.key_pem),
    );
    render_with(server, ca_pem, &credentials, "default")
}

/// A kubeconfig that authenticates with a bearer token (a ServiceAccount's, from the TokenRequest API) and defaults
/// to `namespace`, as a pod's in-cluster configuration does.
pub(crate) fn render_token(server: &str, ca_pem: &str, token: &str, namespace: &str) -> String {
    render_with(server, ca_pem, &format!("token: {token}"), namespace)
}

/// `credentials` is the user's entry, its lines after the first indented by four spaces.
fn render_with(server: &str, ca_pem: &str, credentials: &str, namespace: &str) -> String {
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
    {credentials}
contexts:
- name: {CONTEXT_NAME}
  context:
    cluster: {CONTEXT_NAME}
    user: {CONTEXT_NAME}
    namespace: {namespace}
current-context: {CONTEXT_NAME}
preferences: {{}}
",
        ca = b64(ca_pem),
    )
}
