//! A throw-away PKI per environment: one CA, the serving certificate, client certificates and the
//! service-account key. Fresh keys each time, so parallel environments never trust each other.

use rcgen::{
    BasicConstraints, CertificateParams, CertifiedIssuer, DnType, ExtendedKeyUsagePurpose, IsCa,
    KeyPair, KeyUsagePurpose,
};

use crate::error::Result;

/// A certificate with its private key, both PEM.
pub(crate) struct CertKey {
    pub cert_pem: String,
    pub key_pem: String,
}

pub(crate) struct Pki {
    pub ca_pem: String,
    /// Serves kube-apiserver (and kube-controller-manager's health port) on 127.0.0.1/localhost.
    pub serving: CertKey,
    /// `CN=envtest-admin, O=system:masters`: bypasses RBAC, like envtest's admin user.
    pub admin: CertKey,
    /// The controller manager's identity; also in system:masters so every controller may act.
    pub controller_manager: CertKey,
    /// Signs service-account tokens (PKCS#8 PEM).
    pub service_account_key_pem: String,
    /// Verifies them (kube-apiserver's --service-account-key-file wants the public key).
    pub service_account_public_pem: String,
}

impl Pki {
    pub(crate) fn generate() -> Result<Self> {
        let mut ca_params = CertificateParams::new(Vec::<String>::new())?;
        ca_params
            .distinguished_name
            .push(DnType::CommonName, "rkb-envtest-ca");
        ca_params.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
        ca_params.key_usages = vec![
            KeyUsagePurpose::KeyCertSign,
            KeyUsagePurpose::CrlSign,
            KeyUsagePurpose::DigitalSignature,
        ];
        let ca = CertifiedIssuer::self_signed(ca_params, KeyPair::generate()?)?;

        let mut serving = CertificateParams::new(vec![
            "127.0.0.1".to_string(),
            "localhost".to_string(),
            "::1".to_string(),
        ])?;
        serving
            .distinguished_name
            .push(DnType::CommonName, "kube-apiserver");
        serving.extended_key_usages = vec![ExtendedKeyUsagePurpose::ServerAuth];
        let serving = sign(serving, &ca)?;

        let admin = client_cert("envtest-admin", &ca)?;
        let controller_manager = client_cert("system:kube-controller-manager", &ca)?;

        let sa = KeyPair::generate()?;
        Ok(Self {
            ca_pem: ca.pem(),
            serving,
            admin,
            controller_manager,
            service_account_key_pem: sa.serialize_pem(),
            service_account_public_pem: sa.public_key_pem(),
        })
    }
}

fn client_cert(common_name: &str, ca: &CertifiedIssuer<'_, KeyPair>) -> Result<CertKey> {
    let mut params = CertificateParams::new(Vec::<String>::new())?;
    params
        .distinguished_name
        .push(DnType::CommonName, common_name);
    params
        .distinguished_name
        .push(DnType::OrganizationName, "system:masters");
    params.extended_key_usages = vec![ExtendedKeyUsagePurpose::ClientAuth];
    sign(params, ca)
}

fn sign(params: CertificateParams, ca: &CertifiedIssuer<'_, KeyPair>) -> Result<CertKey> {
    let key = KeyPair::generate()?;
    let cert = params.signed_by(&key, &**ca)?;
    Ok(CertKey {
        cert_pem: cert.pem(),
        key_pem: key.serialize_pem(),
    })
}
