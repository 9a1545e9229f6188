//! `rkb version`: what this binary is (version, commit, build date, platform, as kubebuilder's `version`
//! prints) and, run inside a project, whether the project's rkb-runtime is the release this CLI scaffolds.

use std::path::Path;

use super::runtime_source;

pub const SHORT: &str = env!("CARGO_PKG_VERSION");

pub fn run(dir: &Path) {
    println!("rkb {SHORT}");
    println!("commit: {}", env!("RKB_GIT_COMMIT"));
    println!("built: {}", env!("RKB_BUILD_DATE"));
    println!("platform: {}/{}", std::env::consts::OS, go_arch());
    println!(
        "scaffolds: kube 5, k8s-openapi 0.29 (Kubernetes 1.35), rkb-runtime {}",
        runtime_source::version_requirement()
    );
    println!("manifests: controller-gen v0.21.0 compatible");
    println!("project layout: rust.rkb.io/v1 (kubebuilder PROJECT version 3)");
    if let Some(warning) = project_runtime_mismatch(dir) {
        eprintln!("{warning}");
    }
}

/// The architecture in Go's and Docker's words (amd64, arm64), which kubebuilder prints and images are tagged with.
fn go_arch() -> &'static str {
    match std::env::consts::ARCH {
        "x86_64" => "amd64",
        "aarch64" => "arm64",
        "x86" => "386",
        "powerpc64" => "ppc64le",
        other => other,
    }
}

/// A warning when `dir` is an rkb project whose rkb-runtime (locked, else required) is another release line.
fn project_runtime_mismatch(dir: &Path) -> Option<String> {
    if !dir.join("PROJECT").is_file() {
        return None;
    }
    let (version, from) = std::fs::read_to_string(dir.join("Cargo.lock"))
        .ok()
        .and_then(|lock| locked_version(&lock, "rkb-runtime"))
        .map(|v| (v, "Cargo.lock"))
        .or_else(|| {
            let manifest = std::fs::read_to_string(dir.join("Cargo.toml")).ok()?;
            Some((required_version(&manifest, "rkb-runtime")?, "Cargo.toml"))
        })?;
    let ours = runtime_source::version_requirement();
    let theirs: Vec<&str> = version.split('.').take(2).collect();
    if theirs.join(".") == ours {
        return None;
    }
    Some(format!(
        "warning: this project uses rkb-runtime {version} ({from}), but this rkb scaffolds and generates for {ours}; \
         install the matching CLI (cargo install rkb --version {version}) or set rkb-runtime's version in Cargo.toml to \"{ours}\" \
         (its features stay as they are)"
    ))
}

/// The version of package `name` in a Cargo.lock.
fn locked_version(lock: &str, name: &str) -> Option<String> {
    let mut lines = lock.lines();
    while let Some(line) = lines.next() {
        if line.trim() == format!("name = \"{name}\"") {
            let version = lines.next()?.trim().strip_prefix("version = ")?;
            return Some(version.trim_matches('"').to_string());
        }
    }
    None
}

/// The version requirement on dependency `name` in a Cargo.toml: `name = "0.1"` or `name = { version = "0.1", .. }`.
fn required_version(manifest: &str, name: &str) -> Option<String> {
    manifest.lines().find_map(|line| {
        let rest = line
            .trim()
            .strip_prefix(name)?
            .trim_start()
            .strip_prefix('=')?;
        let rest = rest.trim_start();
        let rest = match rest.strip_prefix('{') {
            Some(table) => &table[table.find("version")?..],
            None => rest,
        };
        let start = rest.find('"')? + 1;
        let end = start + rest[start..].find('"')?;
        Some(rest[start..end].to_string())
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn versions_from_lock_and_manifest() {
        let lock = "[[package]]\nname = \"rkb-derive\"\nversion = \"0.3.0\"\n\n[[package]]\nname = \"rkb-runtime\"\nversion = \"0.2.4\"\n";
        assert_eq!(
            locked_version(lock, "rkb-runtime").as_deref(),
            Some("0.2.4")
        );
        assert_eq!(locked_version(lock, "kube"), None);
        assert_eq!(
            required_version("rkb-runtime = \"0.1\"\n", "rkb-runtime").as_deref(),
            Some("0.1")
        );
        assert_eq!(
            required_version(
                "rkb-runtime-extra = \"9\"\nrkb-runtime = { version = \"0.2\", features = [\"envtest\"] }\n",
                "rkb-runtime"
            )
            .as_deref(),
            Some("0.2")
        );
    }

    #[test]
    fn a_project_on_another_release_line_is_warned_about() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path();
        assert_eq!(project_runtime_mismatch(dir), None, "not a project");
        std::fs::write(dir.join("PROJECT"), "version: '3'\n").unwrap();
        std::fs::write(
            dir.join("Cargo.toml"),
            format!(
                "[dependencies]\nrkb-runtime = {{ version = \"{}\", features = [\"mimalloc\"] }}\n",
                runtime_source::version_requirement()
            ),
        )
        .unwrap();
        assert_eq!(project_runtime_mismatch(dir), None, "same release line");
        std::fs::write(
            dir.join("Cargo.lock"),
            "[[package]]\nname = \"rkb-runtime\"\nversion = \"9.8.7\"\n",
        )
        .unwrap();
        let warning = project_runtime_mismatch(dir).unwrap();
        assert!(
            warning.starts_with("warning: this project uses rkb-runtime 9.8.7 (Cargo.lock)"),
            "{warning}"
        );
        let hint = format!(
            "or set rkb-runtime's version in Cargo.toml to \"{}\" (its features stay as they are)",
            runtime_source::version_requirement()
        );
        assert!(warning.ends_with(&hint), "{warning}");
    }
}
