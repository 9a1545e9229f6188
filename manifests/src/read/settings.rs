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
//! Any other key in this table is an error, so a misspelt setting is never silently ignored; so is a Cargo.toml
//! that is not TOML (cargo refuses it too), at the place the TOML reader ([`toml`]) stops.
//!
//! The Kubernetes version the project targets is read from the `v1_NN` feature of its k8s-openapi dependency (in
//! `[dependencies]`, under that name or renamed with `package = "k8s-openapi"`): embedded Kubernetes types get that
//! version's schemas. A version rkb has no table for is a warning, and the base table (1.35) is used.

use std::path::Path;

use rkb_markers::{Diagnostic, Severity, UNKNOWN_MARKER};

mod toml;

use toml::{Table, Value};

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
        match std::fs::read_to_string(root.join("Cargo.toml")) {
            Ok(text) => Self::parse(&text, diags),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Self::default(),
            Err(e) => {
                diags.push(
                    Diagnostic::error(format!("cannot read Cargo.toml: {e}"))
                        .at("Cargo.toml", 0, 0, 0)
                        .with_hint("cargo cannot read it either: make it a readable UTF-8 file"),
                );
                Self::default()
            }
        }
    }

    fn parse(manifest: &str, diags: &mut Vec<Diagnostic>) -> Self {
        let mut settings = Self::default();
        let root = match toml::parse(manifest) {
            Ok(root) => root,
            Err(e) => {
                diags.push(
                    located(manifest, e.at, 1, Diagnostic::error(format!("Cargo.toml is not valid TOML: {}", e.message)))
                        .with_hint(format!(
                            "cargo refuses this manifest too; rkb reads its {TABLE} table and the k8s-openapi feature from it"
                        )),
                );
                return settings;
            }
        };
        if let Some((minor, at)) = k8s_feature(&root) {
            settings.k8s_version = k8s_version(minor, manifest, at, diags);
        }
        let Some(rkb) = root
            .table(&["package", "metadata"])
            .and_then(|m| m.get("rkb"))
        else {
            return settings;
        };
        let Value::Table(rkb) = &rkb.value else {
            diags.push(located(
                manifest,
                rkb.at,
                1,
                Diagnostic::error(format!(
                    "{TABLE} must be a table, not {}",
                    describe(&rkb.value)
                )),
            ));
            return settings;
        };
        for (key, value) in &rkb.entries {
            match (key.value.as_str(), &value.value) {
                (ALLOW_UNKNOWN_MARKERS, Value::Boolean(allow)) => {
                    settings.allow_unknown_markers = *allow
                }
                (ALLOW_UNKNOWN_MARKERS, other) => diags.push(
                    located(
                        manifest,
                        value.at,
                        1,
                        Diagnostic::error(format!(
                            "`{ALLOW_UNKNOWN_MARKERS}` must be true or false, not {}",
                            describe(other)
                        )),
                    )
                    .with_hint("write `allow-unknown-markers = true`"),
                ),
                (other, _) => diags.push(
                    located(
                        manifest,
                        key.at,
                        other.chars().count(),
                        Diagnostic::error(format!("unknown setting `{other}` in {TABLE}")),
                    )
                    .with_hint("the only setting is `allow-unknown-markers = true|false`"),
                ),
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

/// `d` at byte `at` of Cargo.toml (`manifest`), `len` characters underlined.
fn located(manifest: &str, at: usize, len: usize, d: Diagnostic) -> Diagnostic {
    let (line, col) = toml::line_col(manifest, at);
    d.at("Cargo.toml", line, col, len)
        .with_source_line(manifest.lines().nth(line - 1).unwrap_or(""))
}

/// A value as the messages show it.
fn describe(value: &Value) -> String {
    match value {
        Value::String(s) => format!("the string `\"{s}\"`"),
        Value::Boolean(b) => format!("`{b}`"),
        Value::Other(text) => format!("`{text}`"),
        Value::Array(..) => "an array".into(),
        Value::Table(_) => "a table".into(),
    }
}

/// The NN of the first `v1_NN` feature of the project's k8s-openapi dependency, and where that feature's text is.
fn k8s_feature(root: &Table) -> Option<(u8, usize)> {
    let dependencies = root.table(&["dependencies"])?;
    let k8s_openapi = dependencies.entries.iter().find_map(|(name, dep)| {
        let Value::Table(dep) = &dep.value else {
            return None;
        };
        let renamed = dep
            .get("package")
            .is_some_and(|p| matches!(&p.value, Value::String(p) if p == "k8s-openapi"));
        (name.value == "k8s-openapi" || renamed).then_some(dep)
    })?;
    let Value::Array(features, _) = &k8s_openapi.get("features")?.value else {
        return None;
    };
    features.iter().find_map(|f| {
        let Value::String(name) = &f.value else {
            return None;
        };
        let minor = name.strip_prefix("v1_")?.parse().ok()?;
        // The text starts after the opening quote.
        Some((minor, f.at + 1))
    })
}

/// The table for Kubernetes 1.`minor`, or the base table with a warning at byte `at` of `manifest` (the feature's
/// text) when rkb has none.
fn k8s_version(
    minor: u8,
    manifest: &str,
    at: usize,
    diags: &mut Vec<Diagnostic>,
) -> crate::k8s::Version {
    use crate::k8s::Version;
    Version::of_minor(minor).unwrap_or_else(|| {
        let feature = format!("v1_{minor}");
        diags.push(
            located(
                manifest,
                at,
                feature.len(),
                Diagnostic::warning(format!(
                    "rkb has no schemas of Kubernetes 1.{minor} (k8s-openapi feature `{feature}`): embedded Kubernetes types get {}'s",
                    Version::BASE
                )),
            )
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
        // The table however TOML spells it.
        for spelling in [
            "[package]\nmetadata.rkb.allow-unknown-markers = true\n",
            "[package.metadata]\nrkb = { allow-unknown-markers = true }\n",
        ] {
            assert!(
                Settings::parse(spelling, &mut diags).allow_unknown_markers,
                "{spelling}"
            );
        }
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
        let renamed = "[dependencies]\nk8s = { package = \"k8s-openapi\", version = \"0.29\", features = [\"earliest\", \"v1_34\"] }\n";
        assert_eq!(Settings::parse(renamed, &mut diags).k8s_version, v1_34);
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
        let manifest = "[package.metadata.rkb]\nallow-unknown-markers = \"yes\"\n  allow-unknown-marker = true\n";
        Settings::parse(manifest, &mut diags);
        assert_eq!(
            located(&diags),
            [
                "Cargo.toml:2:25 `allow-unknown-markers` must be true or false, not the string `\"yes\"`",
                "Cargo.toml:3:3 unknown setting `allow-unknown-marker` in [package.metadata.rkb]",
            ]
        );
        diags.clear();
        Settings::parse("[package.metadata]\nrkb = true\n", &mut diags);
        assert_eq!(
            located(&diags),
            ["Cargo.toml:2:7 [package.metadata.rkb] must be a table, not `true`"]
        );
    }

    /// Cargo refuses a manifest that is not TOML; rkb used to read what it could and fall back to the defaults
    /// without a word.
    #[test]
    fn a_manifest_that_is_not_toml_is_a_located_error() {
        let mut diags = Vec::new();
        let manifest =
            "[package]\nname = \"op\"\n\n[package.metadata.rkb]\nallow-unknown-markers = yes\n";
        assert_eq!(Settings::parse(manifest, &mut diags), Settings::default());
        assert_eq!(
            located(&diags),
            [
                "Cargo.toml:5:25 Cargo.toml is not valid TOML: invalid value `yes`: a string is quoted (\"yes\"), a boolean is true or false"
            ]
        );
        assert_eq!(diags[0].source_line, "allow-unknown-markers = yes");
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
