//! Issues a CA and a serving certificate signed by it, together: the CA's key signs that one certificate and is
//! then dropped, so no CA key is ever stored (the next rotation makes a new CA).

use std::time::{SystemTime, UNIX_EPOCH};

use rcgen::{
    BasicConstraints, CertificateParams, DnType, ExtendedKeyUsagePurpose, IsCa, Issuer, KeyPair,
    KeyUsagePurpose,
};

use super::super::self_signed::BACKDATE;
use crate::Error;

/// A serving certificate and key (PEM), with what the writer records about it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Issued {
    /// The CA that signed the certificate (PEM): what the API server must trust.
    pub(crate) ca_pem: String,
    pub(crate) cert_pem: String,
    pub(crate) key_pem: String,
    /// When the certificate (and its CA) expire, in seconds since the epoch.
    pub(crate) not_after: u64,
    /// The DNS names and IP addresses the certificate serves.
    pub(crate) names: Vec<String>,
}

/// A fresh CA and a serving certificate for `names` signed by it, both valid from `now - BACKDATE` (clock skew)
/// until `now + validity`.
pub(crate) fn issue(
    names: &[String],
    now: SystemTime,
    validity: std::time::Duration,
) -> Result<Issued, Error> {
    let tls = |e: rcgen::Error| Error::Tls(format!("cannot issue the webhook certificate: {e}"));
    let since = |t: SystemTime| t.duration_since(UNIX_EPOCH).unwrap_or_default();
    let epoch = rcgen::date_time_ymd(1970, 1, 1);
    let not_before = epoch + since(now.checked_sub(BACKDATE).unwrap_or(UNIX_EPOCH));
    let not_after = since(now + validity);

    let mut ca_params = CertificateParams::new(Vec::<String>::new()).map_err(tls)?;
    ca_params.distinguished_name.push(
        DnType::CommonName,
        format!("rkb webhook CA {}", since(now).as_secs()),
    );
    ca_params.is_ca = IsCa::Ca(BasicConstraints::Constrained(0));
    ca_params.key_usages = vec![KeyUsagePurpose::KeyCertSign, KeyUsagePurpose::CrlSign];
    ca_params.not_before = not_before;
    ca_params.not_after = epoch + not_after;
    let ca_key = KeyPair::generate().map_err(tls)?;
    let ca_cert = ca_params.self_signed(&ca_key).map_err(tls)?;
    let issuer = Issuer::new(ca_params, ca_key);

    let mut params = CertificateParams::new(names.to_vec()).map_err(tls)?;
    params.distinguished_name.push(
        DnType::CommonName,
        names.first().map_or("rkb webhook", |n| n.as_str()),
    );
    params.extended_key_usages = vec![ExtendedKeyUsagePurpose::ServerAuth];
    params.key_usages = vec![
        KeyUsagePurpose::DigitalSignature,
        KeyUsagePurpose::KeyEncipherment,
    ];
    params.not_before = not_before;
    params.not_after = epoch + not_after;
    let key = KeyPair::generate().map_err(tls)?;
    let cert = params.signed_by(&key, &issuer).map_err(tls)?;
    Ok(Issued {
        ca_pem: ca_cert.pem(),
        cert_pem: cert.pem(),
        key_pem: key.serialize_pem(),
        not_after: not_after.as_secs(),
        names: names.to_vec(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    #[test]
    fn the_certificate_verifies_against_its_ca_only() {
        use rustls::client::danger::ServerCertVerifier as _;
        use rustls::pki_types::pem::PemObject;
        use rustls::pki_types::{CertificateDer, ServerName, UnixTime};
        let names = vec![
            "webhook-service.system.svc".to_string(),
            "127.0.0.1".to_string(),
        ];
        let now = SystemTime::now();
        let first = issue(&names, now, Duration::from_secs(3600)).unwrap();
        let second = issue(&names, now, Duration::from_secs(3600)).unwrap();
        let verify = |ca: &str, cert: &str, name: &'static str| {
            let mut roots = rustls::RootCertStore::empty();
            roots
                .add(CertificateDer::from_pem_slice(ca.as_bytes()).unwrap())
                .unwrap();
            let verifier = rustls::client::WebPkiServerVerifier::builder_with_provider(
                std::sync::Arc::new(roots),
                std::sync::Arc::new(rustls::crypto::ring::default_provider()),
            )
            .build()
            .unwrap();
            let cert = CertificateDer::from_pem_slice(cert.as_bytes()).unwrap();
            verifier
                .verify_server_cert(
                    &cert,
                    &[],
                    &ServerName::try_from(name).unwrap(),
                    &[],
                    UnixTime::now(),
                )
                .map(|_| ())
        };
        verify(&first.ca_pem, &first.cert_pem, "webhook-service.system.svc").unwrap();
        verify(&first.ca_pem, &first.cert_pem, "127.0.0.1").unwrap();
        assert!(verify(&first.ca_pem, &first.cert_pem, "other.system.svc").is_err());
        assert!(
            verify(&second.ca_pem, &first.cert_pem, "127.0.0.1").is_err(),
            "a new CA each time"
        );
        assert_eq!(
            first.not_after,
            (now + Duration::from_secs(3600))
                .duration_since(UNIX_EPOCH)
                .unwrap()
                .as_secs()
        );
    }
}
