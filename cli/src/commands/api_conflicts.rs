//! Conflicts between a new API and the APIs PROJECT records, refused by `rkb create api` before it plans a file.
//!
//! The plural names a kind's CRD (`<plural>.<group>`), and all versions of a kind are one CRD. So every kind of a
//! group needs a plural of its own, and a new version of a kind must keep the plural and the scope its other
//! versions have: otherwise `rkb manifests` would merge them into one CRD under two names, or turn an existing CRD's
//! scope around (immutable on a live cluster). PROJECT is the first record consulted: it lists what rkb
//! scaffolded, as the user passed it. The sources are consulted too, as `rkb manifests` reads them (their markers
//! may say another scope or plural than PROJECT recorded, or hold kinds written by hand): a new API that the next
//! `rkb manifests` would refuse is refused here. Sources that do not read cleanly are left to `rkb manifests`,
//! which reports them.

use std::path::Path;

use anyhow::{Result, bail};

use crate::names;
use crate::project_config::{ProjectConfig, ResourceConfig};

/// The new API as `create api` would record it.
pub struct NewApi<'a> {
    pub group: &'a str,
    pub version: &'a str,
    pub kind: &'a str,
    pub plural: &'a str,
    /// `--plural` was passed (otherwise `plural` is the kind's default).
    pub plural_given: bool,
    pub namespaced: bool,
}

/// Refuses a version whose scope or plural differs from the kind's other versions, then a plural another kind of
/// the group has.
pub fn check(config: &ProjectConfig, new: &NewApi) -> Result<()> {
    let full_group = names::full_group(new.group, &config.domain);
    // Entries without an API (controllers of kinds rkb did not scaffold) have no CRD of rkb's to conflict with.
    let apis: Vec<&ResourceConfig> = config
        .resources
        .iter()
        .filter(|r| r.api.is_some() && r.full_group() == full_group)
        .collect();
    let other_versions: Vec<&ResourceConfig> = apis
        .iter()
        .copied()
        .filter(|r| r.kind == new.kind && r.version != new.version)
        .collect();
    check_scope(&other_versions, new)?;
    check_version_plural(&other_versions, new, &full_group)?;
    check_plural_is_free(&apis, new, &full_group)
}

fn scope(namespaced: bool) -> &'static str {
    if namespaced {
        "namespaced"
    } else {
        "cluster-scoped"
    }
}

/// `v1` or `v1, v2`: the versions of `entries`.
fn versions(entries: &[&ResourceConfig]) -> String {
    entries
        .iter()
        .map(|r| r.version.as_str())
        .collect::<Vec<_>>()
        .join(", ")
}

fn check_scope(other_versions: &[&ResourceConfig], new: &NewApi) -> Result<()> {
    let differing: Vec<&ResourceConfig> = other_versions
        .iter()
        .copied()
        .filter(|r| r.namespaced() != Some(new.namespaced))
        .collect();
    if differing.is_empty() {
        return Ok(());
    }
    let theirs = !new.namespaced;
    bail!(
        "kind {} is {} in {} (PROJECT), but --namespaced={} would make {} {}; the versions of a kind share one CRD and its scope: pass --namespaced={theirs}",
        new.kind,
        scope(theirs),
        versions(&differing),
        new.namespaced,
        new.version,
        scope(new.namespaced),
    )
}

fn check_version_plural(
    other_versions: &[&ResourceConfig],
    new: &NewApi,
    full_group: &str,
) -> Result<()> {
    let Some(first) = other_versions.iter().find(|r| r.plural() != new.plural) else {
        return Ok(());
    };
    let theirs = first.plural();
    let differing: Vec<&ResourceConfig> = other_versions
        .iter()
        .copied()
        .filter(|r| r.plural() == theirs)
        .collect();
    let source = if new.plural_given {
        format!("--plural {}", new.plural)
    } else {
        "the default plural".to_string()
    };
    bail!(
        "kind {} has the plural {theirs:?} in {} (PROJECT), but {} would get {:?} from {source}; the versions of a kind share one CRD, named {theirs}.{full_group} by the plural: pass --plural {theirs}",
        new.kind,
        versions(&differing),
        new.version,
        new.plural,
    )
}

fn check_plural_is_free(apis: &[&ResourceConfig], new: &NewApi, full_group: &str) -> Result<()> {
    let Some(owner) = apis
        .iter()
        .find(|r| r.kind != new.kind && r.plural() == new.plural)
    else {
        return Ok(());
    };
    let default = names::default_plural(new.kind);
    let hint = if new.plural_given && !apis.iter().any(|r| r.plural() == default) {
        format!(
            "drop --plural to use {}'s default plural {default:?}",
            new.kind
        )
    } else {
        format!("give {} another with --plural <plural>", new.kind)
    };
    let source = if new.plural_given {
        "from --plural"
    } else {
        "its default plural"
    };
    bail!(
        "kind {} would have the plural {:?} ({source}), which kind {} of group {full_group} already has (PROJECT); the plural names the CRD ({}.{full_group}), so each kind needs its own: {hint}",
        new.kind,
        new.plural,
        owner.kind,
        new.plural,
    )
}

/// What the sources under `root` say of the group's kinds: the kind's other versions must have the new one's scope
/// and plural, and no other kind may have its plural.
pub fn check_sources(root: &Path, config: &ProjectConfig, new: &NewApi) -> Result<()> {
    let Ok(kinds) = rkb_manifests::kind_identities(root) else {
        return Ok(());
    };
    let full_group = names::full_group(new.group, &config.domain);
    for k in kinds.iter().filter(|k| k.group == full_group) {
        let said = format!("{} {} says so in {}", k.kind, k.version, k.rust_path);
        let other_version = k.kind == new.kind && k.version != new.version;
        // PROJECT passed the new API: a source that disagrees was edited after rkb scaffolded it. Advising the
        // flag value the source has would only be refused by the PROJECT check.
        let recorded = config
            .resources
            .iter()
            .find(|r| r.full_group() == full_group && r.kind == k.kind && r.version == k.version);
        if other_version && let Some(r) = recorded.filter(|r| r.namespaced() != Some(k.namespaced))
        {
            bail!(
                "kind {} {} is {} by its markers ({}), but PROJECT records it {}: make its `+kubebuilder:resource:scope` agree with PROJECT before adding {}",
                k.kind,
                k.version,
                scope(k.namespaced),
                k.rust_path,
                scope(r.namespaced() == Some(true)),
                new.version
            );
        }
        if other_version && k.namespaced != new.namespaced {
            bail!(
                "kind {} is {} ({said}), but --namespaced={} would make {} {}; the versions of a kind share one CRD and its scope: pass --namespaced={}",
                new.kind,
                scope(k.namespaced),
                new.namespaced,
                new.version,
                scope(new.namespaced),
                k.namespaced
            );
        }
        if other_version && k.plural != new.plural {
            bail!(
                "kind {} has the plural {:?} ({said}), but {} would get {:?}; the versions of a kind share one CRD, named {}.{full_group} by the plural: pass --plural {}",
                new.kind,
                k.plural,
                new.version,
                new.plural,
                k.plural,
                k.plural
            );
        }
        if k.kind != new.kind && k.plural == new.plural {
            bail!(
                "kind {} would have the plural {:?}, which kind {} of group {full_group} already has ({said}); the plural names the CRD ({}.{full_group}), so each kind needs its own: give {} another with --plural <plural>",
                new.kind,
                new.plural,
                k.kind,
                new.plural,
                new.kind
            );
        }
    }
    Ok(())
}
