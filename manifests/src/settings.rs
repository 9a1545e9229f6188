//! Project settings from the `[package.metadata.rkb]` table of the project's Cargo.toml. They live there, not in
//! command-line flags, because two readers must agree on them: `rkb manifests` and the derive macro, which reads
//! the same markers inside `cargo build`.
//!
//! ```toml
//! [package.metadata.rkb]
//! # Unknown `+kubebuilder:` markers (and near misses of known ones) are warnings, not errors: for porting Go
//! # types whose markers controller-gen silently ignores. The default is strict.
//! allow-unknown-markers = true
//! ```
//!
//! Only this table is read, line by line (`key = value`, `#` comments); any other key in it is an error, so a
//! misspelt setting is never silently ignored.
//!
//! The Kubernetes version the project targets is read from its k8s-openapi dependency's `v1_NN` feature (on the
//! dependency's line, or the `features` line of a `[dependencies.k8s-openapi]` table): embedded Kubernetes types
//! get that version's schemas. A version rkb has no table for is a warning, and the base table (1.35) is used.

use std::path::Path;

use rkb_markers::{Diagnostic, Severity, UNKNOWN_MARKER};

const TABLE: &str = "[package.metadata.rkb]";
const ALLOW_UNKNOWN_MARKERS: &str = "allow-unknown-markers";

#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Settings {
    pub allow_unknown_markers: bool,
    /// The Kubernetes version of the project's k8s-openapi feature, or the base table's.
    pub k8s_version: crate::k8s::Version,
}

impl Default for Settings {
    fn default() -> Self {
        Self {
            allow_unknown_markers: false,
            k8s_version: crate::k8s::Version::BASE,
        }
    }
}

impl Settings {
    /// Reads `Cargo.toml` under `root` (no file or no table: the defaults); problems go to `diags`.
    pub fn read(root: &Path, diags: &mut Vec<Diagnostic>) -> Self {
        let Ok(text) = std::fs::read_to_string(root.join("Cargo.toml")) else {
            return Self::default();
        };
        Self::parse(&text, diags)
    }

    fn parse(manifest: &str, diags: &mut Vec<Diagnostic>) -> Self {
        let mut settings = Self::default();
        let mut in_table = false;
        let mut section = "";
        for (i, line) in manifest.lines().enumerate() {
            let trimmed = line.split('#').next().unwrap_or_default().trim();
            if trimmed.starts_with('[') {
                in_table = trimmed == TABLE;
                section = trimmed;
                continue;
            }
            if let Some(minor) = k8s_feature(section, trimmed) {
                settings.k8s_version = k8s_version(minor, (i + 1, line), diags);
            }
            if !in_table || trimmed.is_empty() {
                continue;
            }
            let at = |message: String, hint: &str| {
                let col = line.len() - line.trim_start().len() + 1;
                Diagnostic::error(message)
                    .at("Cargo.toml", i + 1, col, trimmed.chars().count())
                    .with_source_line(line)
                    .with_hint(hint)
            };
            let (key, value) = trimmed.split_once('=').unwrap_or((trimmed, ""));
            match (key.trim(), value.trim()) {
                (ALLOW_UNKNOWN_MARKERS, "true") => settings.allow_unknown_markers = true,
                (ALLOW_UNKNOWN_MARKERS, "false") => settings.allow_unknown_markers = false,
                (ALLOW_UNKNOWN_MARKERS, other) => diags.push(at(
                    format!("`{ALLOW_UNKNOWN_MARKERS}` must be true or false, not `{other}`"),
                    "write `allow-unknown-markers = true`",
                )),
                (other, _) => diags.push(at(
                    format!("unknown setting `{other}` in {TABLE}"),
                    "the only setting is `allow-unknown-markers = true|false`",
                )),
            }
        }
        settings
    }

    /// Applies the settings to a run's diagnostics: with `allow-unknown-markers`, unknown markers become
    /// warnings that say they were ignored and why; without it, their errors say how to accept them.
    pub fn apply(&self, diags: &mut [Diagnostic]) {
        for d in diags.iter_mut() {
            if d.code != Some(UNKNOWN_MARKER) || d.severity != Severity::Error {
                continue;
            }
            let note = if self.allow_unknown_markers {
                d.severity = Severity::Warning;
                d.message = format!("{} ignored", d.message);
                format!("ignored because Cargo.toml's {TABLE} sets {ALLOW_UNKNOWN_MARKERS} = true")
            } else {
                format!(
                    "markers of other tools are accepted, as warnings, with `{ALLOW_UNKNOWN_MARKERS} = true` in \
                     Cargo.toml's {TABLE}"
                )
            };
            d.hint = Some(match d.hint.take() {
                Some(hint) => format!("{hint} ({note})"),
                None => note,
            });
        }
    }
}

/// The NN of a `v1_NN` feature on a k8s-openapi dependency line (`trimmed`, in table `section`).
fn k8s_feature(section: &str, trimmed: &str) -> Option<u8> {
    let on_dependency = section == "[dependencies]" && trimmed.starts_with("k8s-openapi");
    let in_its_table = section == "[dependencies.k8s-openapi]" && trimmed.starts_with("features");
    if !on_dependency && !in_its_table {
        return None;
    }
    let at = trimmed.find("\"v1_")? + 4;
    let digits: String = trimmed[at..]
        .chars()
        .take_while(char::is_ascii_digit)
        .collect();
    digits.parse().ok()
}

/// The table for Kubernetes 1.`minor`, or the base table with a warning at `line` when rkb has none.
fn k8s_version(
    minor: u8,
    (line_no, line): (usize, &str),
    diags: &mut Vec<Diagnostic>,
) -> crate::k8s::Version {
    use crate::k8s::Version;
    Version::of_minor(minor).unwrap_or_else(|| {
        let feature = format!("v1_{minor}");
        let col = line.find(&feature).map_or(1, |c| line[..c].chars().count() + 1);
        diags.push(
            Diagnostic::warning(format!(
                "rkb has no schemas of Kubernetes 1.{minor} (k8s-openapi feature `{feature}`): embedded Kubernetes types get {}'s",
                Version::BASE
            ))
            .at("Cargo.toml", line_no, col, feature.len())
            .with_source_line(line)
            .with_hint(format!(
                "rkb has tables for {}; fields that differ in 1.{minor} may be missing or described differently in the CRD",
                Version::supported()
            )),
        );
        Version::BASE
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_only_its_table() {
        let mut diags = Vec::new();
        let manifest = "[package]\nname = \"x\"\nallow-unknown-markers = true\n\n[package.metadata.rkb]\n# porting\nallow-unknown-markers = true # for now\n\n[dependencies]\n";
        assert!(Settings::parse(manifest, &mut diags).allow_unknown_markers);
        assert!(diags.is_empty(), "{diags:?}");
        let strict = "[package]\nallow-unknown-markers = true\n";
        assert!(!Settings::parse(strict, &mut diags).allow_unknown_markers);
        assert!(diags.is_empty(), "{diags:?}");
    }

    /// `file:line:col message` of each diagnostic.
    fn located(diags: &[Diagnostic]) -> Vec<String> {
        diags
            .iter()
            .map(|d| format!("{}:{}:{} {}", d.file.display(), d.line, d.col, d.message))
            .collect()
    }

    #[test]
    fn the_kubernetes_version_is_read_from_the_k8s_openapi_feature() {
        use crate::k8s::Version;
        let mut diags = Vec::new();
        let inline =
            "[dependencies]\nk8s-openapi = { version = \"0.29\", features = [\"v1_34\"] }\n";
        let v1_34 = Version::of_minor(34).unwrap();
        assert_eq!(Settings::parse(inline, &mut diags).k8s_version, v1_34);
        let table = "[dependencies.k8s-openapi]\nversion = \"0.29\"\nfeatures = [\"v1_34\"]\n";
        assert_eq!(Settings::parse(table, &mut diags).k8s_version, v1_34);
        let dev =
            "[dev-dependencies]\nk8s-openapi = { version = \"0.29\", features = [\"v1_34\"] }\n";
        assert_eq!(Settings::parse(dev, &mut diags).k8s_version, Version::BASE);
        assert!(diags.is_empty(), "{diags:?}");

        let newer =
            "[dependencies]\nk8s-openapi = { version = \"0.29\", features = [\"v1_38\"] }\n";
        assert_eq!(
            Settings::parse(newer, &mut diags).k8s_version,
            Version::BASE
        );
        assert_eq!(
            located(&diags),
            [
                "Cargo.toml:2:48 rkb has no schemas of Kubernetes 1.38 (k8s-openapi feature `v1_38`): embedded Kubernetes types get 1.35's"
            ]
        );
        assert_eq!(diags[0].severity, Severity::Warning);
    }

    #[test]
    fn bad_settings_are_located_errors() {
        let mut diags = Vec::new();
        let manifest =
            "[package.metadata.rkb]\nallow-unknown-markers = yes\n  allow-unknown-marker = true\n";
        Settings::parse(manifest, &mut diags);
        assert_eq!(
            located(&diags),
            [
                "Cargo.toml:2:1 `allow-unknown-markers` must be true or false, not `yes`",
                "Cargo.toml:3:3 unknown setting `allow-unknown-marker` in [package.metadata.rkb]",
            ]
        );
    }

    #[test]
    fn unknown_markers_become_warnings_only_when_allowed() {
        let unknown = || {
            let mut d = Diagnostic::error("unknown marker `kubebuilder:validation:nullable`")
                .with_hint("did you mean `+nullable`?");
            d.code = Some(UNKNOWN_MARKER);
            vec![d, Diagnostic::error("something else")]
        };
        let mut strict = unknown();
        Settings::default().apply(&mut strict);
        assert!(strict.iter().all(Diagnostic::is_error));
        assert_eq!(
            strict[0].hint.as_deref(),
            Some(
                "did you mean `+nullable`? (markers of other tools are accepted, as warnings, with \
                 `allow-unknown-markers = true` in Cargo.toml's [package.metadata.rkb])"
            )
        );
        assert_eq!(strict[1].hint, None, "other errors keep their hints");
        let mut allowed = unknown();
        Settings {
            allow_unknown_markers: true,
            ..Settings::default()
        }
        .apply(&mut allowed);
        assert_eq!(allowed[0].severity, Severity::Warning);
        assert_eq!(
            allowed[0].message,
            "unknown marker `kubebuilder:validation:nullable` ignored"
        );
        assert_eq!(
            allowed[0].hint.as_deref(),
            Some(
                "did you mean `+nullable`? (ignored because Cargo.toml's [package.metadata.rkb] sets allow-unknown-markers = true)"
            )
        );
        assert!(allowed[1].is_error(), "other errors stay errors");
    }
}
