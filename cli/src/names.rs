//! Validation of user-supplied names, with kubebuilder's rules, and the names derived from them.

use anyhow::{Result, bail};
use rkb_markers::is_rust_keyword;

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
/// A DNS-1035 label (a controller's name, as kubebuilder checks it): lower-case letters, digits and '-', starting
/// with a letter and ending with a letter or digit, at most 63 characters.
pub fn is_dns1035_label(s: &str) -> bool {
    s.len() <= 63
        && s.starts_with(|c: char| c.is_ascii_lowercase())
        && !s.ends_with('-')
        && s.bytes()
            .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-')
}

pub(crate) fn is_dns1123_subdomain(s: &str) -> bool {
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
    if let Some(problem) = project_name_problem(name) {
        bail!("invalid project name {name:?}: {problem}; pass --project-name my-operator");
    }
    Ok(())
}

/// Why `name` cannot name a project, if it cannot: it is the Cargo package, and as a crate the scaffolded
/// main.rs and tests name it in Rust paths.
pub fn project_name_problem(name: &str) -> Option<String> {
    if !is_dns1123_label(name) {
        return Some(
            "it must be a DNS-1123 label (lower-case letters, digits and '-', at most 63 characters)"
                .to_string(),
        );
    }
    let ident = crate_ident(name);
    if name.starts_with(|c: char| c.is_ascii_digit()) {
        return Some(
            "it names the Rust crate, and a crate name cannot start with a digit".to_string(),
        );
    }
    if is_rust_keyword(&ident) {
        return Some(format!(
            "it names the Rust crate {ident}, and `{ident}` is a Rust keyword"
        ));
    }
    None
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

/// Every name the `create api` templates use unqualified: their imports and the prelude items they name.
/// A kind's struct (imported beside them, or defined beside them) with one of these names does not compile.
/// A unit test keeps this list in step with the templates.
const NAMES_IN_SCAFFOLD: &[&str] = &[
    "Action",
    "Api",
    "Arc",
    "Clone",
    "Condition",
    "Context",
    "Controller",
    "Debug",
    "DeepCopy",
    "Default",
    "DeleteParams",
    "Deserialize",
    "Duration",
    "Environment",
    "Error",
    "Event",
    "FINALIZER",
    "Kind",
    "MANAGER",
    "Manager",
    "NAMESPACE",
    "ObjectMeta",
    "Ok",
    "Option",
    "PartialEq",
    "PostParams",
    "ResourceExt",
    "Result",
    "Serialize",
    "String",
    "TIMEOUT",
    "TypeMeta",
    "Vec",
];

/// The types a kind's scaffold and `#[derive(Kind)]` define beside the kind itself, in its version module.
pub fn type_names_of(kind: &str) -> [String; 6] {
    ["", "Spec", "Status", "Client", "Lister", "Informer"].map(|suffix| format!("{kind}{suffix}"))
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
    if is_rust_keyword(kind) {
        bail!(
            "invalid --kind {kind:?}: the kind names a Rust struct, and `{kind}` is a Rust keyword; choose another name, e.g. --kind My{kind}"
        );
    }
    if let Some(clash) = type_names_of(kind)
        .into_iter()
        .find(|name| NAMES_IN_SCAFFOLD.contains(&name.as_str()))
    {
        bail!(
            "invalid --kind {kind:?}: the scaffolded Rust code already uses the name {clash} (an import or prelude item), so the kind's types would not compile; choose a more specific name, e.g. --kind My{kind}"
        );
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

/// The Rust module of a group in a multigroup project (src/api/<module>/, src/controller/<module>/): each run
/// of '-' and '.' becomes one '_', as kubebuilder strips them from a group's Go package name.
pub fn group_module(group: &str) -> String {
    group
        .split(['-', '.'])
        .filter(|part| !part.is_empty())
        .collect::<Vec<_>>()
        .join("_")
}

/// In a multigroup project the group also names a Rust module, which must be an identifier.
pub fn validate_group_module(group: &str) -> Result<()> {
    let module = group_module(group);
    if module.starts_with(|c: char| c.is_ascii_digit()) {
        bail!(
            "invalid --group {group:?}: in a multigroup project the group names the Rust module src/api/{module}/, which cannot start with a digit; choose a group that starts with a letter, e.g. --group my-{group}"
        );
    }
    if is_rust_keyword(&module) {
        bail!(
            "invalid --group {group:?}: in a multigroup project the group names the Rust module src/api/{module}/, and `{module}` is a Rust keyword; choose another group, e.g. --group my-{group}"
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

    /// The names a template's Rust uses unqualified: whatever its `use` lines import, and every other
    /// upper-case identifier not reached through a `::` path. `{{kind}}` and what it prefixes are left out.
    fn unqualified_names(source: &str) -> std::collections::BTreeSet<String> {
        let mut names = std::collections::BTreeSet::new();
        let mut in_use = false;
        for line in source.lines() {
            let mut code = line.replace("{{kind}}", "Zkind");
            while let Some(start) = code.find("{{") {
                let Some(len) = code[start..].find("}}") else {
                    break;
                };
                // `{{{raw}}}` closes with three braces.
                let end = start
                    + len
                    + if code[start + len..].starts_with("}}}") {
                        3
                    } else {
                        2
                    };
                code.replace_range(start..end, " ");
            }
            let mut plain = String::new();
            let mut in_string = false;
            for c in code.chars() {
                if c == '"' {
                    in_string = !in_string;
                } else if !in_string {
                    plain.push(c);
                }
            }
            let plain = plain.split("//").next().unwrap_or_default();
            in_use |= plain.trim_start().starts_with("use ")
                || plain.trim_start().starts_with("pub use ");
            let mut rest = plain;
            while let Some(start) = rest.find(|c: char| c.is_ascii_alphabetic() || c == '_') {
                let len = rest[start..]
                    .find(|c: char| !c.is_ascii_alphanumeric() && c != '_')
                    .unwrap_or(rest.len() - start);
                let ident = &rest[start..start + len];
                let qualified = rest[..start].ends_with("::");
                if ident.starts_with(|c: char| c.is_ascii_uppercase())
                    && !ident.starts_with("Zkind")
                    && (in_use || !qualified)
                {
                    names.insert(ident.to_string());
                }
                rest = &rest[start + len..];
            }
            if plain.contains(';') {
                in_use = false;
            }
        }
        names
    }

    #[test]
    fn names_in_scaffold_match_the_api_templates() {
        let mut used = std::collections::BTreeSet::new();
        for path in [
            "resource/types.rs",
            "controller/controller.rs",
            "controller/tests/controller.rs",
            "version/mod.rs",
        ] {
            let template = rkb_templates::api(path).expect("embedded");
            used.extend(unqualified_names(template.source));
        }
        let listed: std::collections::BTreeSet<String> =
            NAMES_IN_SCAFFOLD.iter().map(|n| n.to_string()).collect();
        let unlisted: Vec<_> = used.difference(&listed).collect();
        assert!(
            unlisted.is_empty(),
            "the api templates use {unlisted:?} unqualified; add them to NAMES_IN_SCAFFOLD so such kinds are refused"
        );
        let stale: Vec<_> = listed.difference(&used).collect();
        assert!(
            stale.is_empty(),
            "NAMES_IN_SCAFFOLD lists {stale:?}, which no api template uses"
        );
    }

    #[test]
    fn kinds_that_would_not_compile_are_refused() {
        for bad in [
            "Self",
            "Condition",
            "ObjectMeta",
            "Serialize",
            "Event",
            "Vec",
        ] {
            assert!(validate_kind(bad).is_err(), "{bad}");
        }
        assert!(validate_kind("Conditions").is_ok());
    }

    #[test]
    fn group_modules() {
        assert_eq!(group_module("devops"), "devops");
        assert_eq!(group_module("dev-ops"), "dev_ops");
        assert_eq!(group_module("ship.fleet"), "ship_fleet");
        // A run of separators is one '_': `a__b` would trip rustc's non_snake_case lint.
        assert_eq!(group_module("a--b"), "a_b");
        assert!(validate_group_module("dev-ops").is_ok());
        assert!(validate_group_module("type").is_err());
        assert!(validate_group_module("1st").is_err());
        assert!(validate_project_name("1demo").is_err());
        assert!(validate_project_name("type").is_err());
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
