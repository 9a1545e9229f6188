//! Validation of user-supplied names, with kubebuilder's rules, and the names derived from them.

use anyhow::{Result, bail};

/// DNS-1123 label: lower-case alphanumerics and '-', starting and ending alphanumeric, at most 63 chars.
fn is_dns1123_label(s: &str) -> bool {
    !s.is_empty()
        && s.len() <= 63
        && s.bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-')
        && !s.starts_with('-')
        && !s.ends_with('-')
}

/// DNS-1123 subdomain: dot-separated labels, at most 253 chars.
fn is_dns1123_subdomain(s: &str) -> bool {
    !s.is_empty() && s.len() <= 253 && s.split('.').all(is_dns1123_label)
}

pub fn validate_domain(domain: &str) -> Result<()> {
    if !is_dns1123_subdomain(domain) {
        bail!(
            "invalid --domain {domain:?}: a domain must be a DNS-1123 subdomain (lower-case letters, digits, '-' and '.'), e.g. my.domain"
        );
    }
    Ok(())
}

pub fn validate_project_name(name: &str) -> Result<()> {
    if !is_dns1123_label(name) {
        bail!(
            "invalid project name {name:?}: it must be a DNS-1123 label (lower-case letters, digits and '-', at most 63 characters); pass --project-name my-operator"
        );
    }
    Ok(())
}

pub fn validate_group(group: &str, domain: &str) -> Result<()> {
    if !is_dns1123_subdomain(group) {
        bail!(
            "invalid --group {group:?}: a group must be a DNS-1123 subdomain (lower-case letters, digits, '-' and '.'), e.g. --group devops"
        );
    }
    let full = full_group(group, domain);
    if !is_dns1123_subdomain(&full) {
        bail!(
            "invalid --group {group:?}: the full group {full:?} is not a DNS-1123 subdomain of at most 253 characters"
        );
    }
    Ok(())
}

/// Versions as Kubernetes orders them: v1, v2alpha1, v1beta2.
pub fn validate_version(version: &str) -> Result<()> {
    let ok = (|| {
        let rest = version.strip_prefix('v')?;
        let digits = rest.bytes().take_while(u8::is_ascii_digit).count();
        if digits == 0 || rest.starts_with('0') {
            return None;
        }
        let tail = &rest[digits..];
        if tail.is_empty() {
            return Some(());
        }
        let n = tail
            .strip_prefix("alpha")
            .or_else(|| tail.strip_prefix("beta"))?;
        (!n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()) && !n.starts_with('0'))
            .then_some(())
    })()
    .is_some();
    if !ok {
        bail!(
            "invalid --version {version:?}: a version must look like v1, v1alpha1 or v2beta3 (v, a number, optionally alpha or beta and a number)"
        );
    }
    Ok(())
}

pub fn validate_kind(kind: &str) -> Result<()> {
    let Some(first) = kind.chars().next() else {
        bail!(
            "invalid --kind \"\": a kind is required, in upper camel case, e.g. --kind DemoMicroService"
        );
    };
    if !first.is_ascii_uppercase() {
        let mut fixed = kind.to_string();
        fixed[..first.len_utf8()].make_ascii_uppercase();
        bail!(
            "invalid --kind {kind:?}: a kind must start with an upper-case letter; did you mean --kind {fixed}?"
        );
    }
    if !kind.chars().all(|c| c.is_ascii_alphanumeric()) {
        bail!(
            "invalid --kind {kind:?}: a kind may only hold ASCII letters and digits (upper camel case, e.g. DemoMicroService)"
        );
    }
    if kind.len() > 63 {
        bail!("invalid --kind {kind:?}: a kind is at most 63 characters");
    }
    Ok(())
}

pub fn validate_plural(plural: &str) -> Result<()> {
    if !is_dns1123_label(plural) {
        bail!(
            "invalid --plural {plural:?}: a plural must be a DNS-1123 label in lower case, e.g. --plural demomicroservices"
        );
    }
    Ok(())
}

pub fn full_group(group: &str, domain: &str) -> String {
    if domain.is_empty() {
        group.to_string()
    } else {
        format!("{group}.{domain}")
    }
}

/// The resource plural kubebuilder and controller-gen derive from a kind.
pub fn default_plural(kind: &str) -> String {
    rkb_markers::plural_of(kind)
}

/// A Rust identifier-safe crate name for a project name (`demo-operator` -> `demo_operator`).
pub fn crate_ident(project_name: &str) -> String {
    project_name.replace('-', "_")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn versions() {
        for ok in ["v1", "v2", "v1alpha1", "v10beta3"] {
            assert!(validate_version(ok).is_ok(), "{ok}");
        }
        for bad in [
            "1",
            "v",
            "v0",
            "V1",
            "v1gamma1",
            "v1alpha",
            "v01",
            "v1beta01",
            "v1-alpha1",
        ] {
            assert!(validate_version(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn kinds() {
        assert!(validate_kind("DemoMicroService").is_ok());
        let err = validate_kind("demoMicroService").unwrap_err().to_string();
        assert!(
            err.contains("did you mean --kind DemoMicroService"),
            "{err}"
        );
        assert!(validate_kind("Demo_Service").is_err());
        assert!(validate_kind("").is_err());
    }

    #[test]
    fn groups_and_domains() {
        assert!(validate_group("devops", "my.domain").is_ok());
        assert!(validate_group("Devops", "my.domain").is_err());
        assert!(validate_group("dev_ops", "my.domain").is_err());
        assert!(validate_domain("my.domain").is_ok());
        assert!(validate_domain("my..domain").is_err());
        assert!(validate_project_name("demo-operator").is_ok());
        assert!(validate_project_name("Demo").is_err());
        assert!(validate_project_name("-demo").is_err());
    }
}
