//! Where the control plane binaries are: the same places controller-runtime's envtest looks.

use std::path::{Path, PathBuf};

use crate::error::{Error, Result};

/// The executables an environment runs.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Binaries {
    /// The directory they were found in (what `KUBEBUILDER_ASSETS` would be).
    pub dir: PathBuf,
    /// etcd.
    pub etcd: PathBuf,
    /// kube-apiserver.
    pub kube_apiserver: PathBuf,
    /// kube-controller-manager; only required when an environment runs it (setup-envtest's downloads lack it:
    /// such a directory is accepted, and only `with_controller_manager()` fails, naming the missing binary).
    pub kube_controller_manager: PathBuf,
}

impl Binaries {
    /// Finds the binaries: `KUBEBUILDER_ASSETS` when set, else the newest
    /// `k8s/<version>-<os>-<arch>` directory under setup-envtest's data directory
    /// (`$XDG_DATA_HOME/kubebuilder-envtest`, default `~/.local/share/kubebuilder-envtest`).
    pub fn locate() -> Result<Self> {
        let assets = std::env::var_os("KUBEBUILDER_ASSETS").filter(|v| !v.is_empty());
        Self::locate_in(assets.map(PathBuf::from), setup_envtest_root())
    }

    /// Uses one directory, e.g. a `KUBEBUILDER_ASSETS` value.
    pub fn in_dir(dir: impl Into<PathBuf>) -> Result<Self> {
        let dir = dir.into();
        let found = Self::from_dir(&dir);
        if !found.etcd.is_file() || !found.kube_apiserver.is_file() {
            return Err(Error::BinariesNotFound {
                detail: format!(
                    "{} has no etcd and kube-apiserver executables",
                    dir.display()
                ),
            });
        }
        Ok(found)
    }

    /// The lookup without reading the process environment, so it can be tested.
    fn locate_in(assets: Option<PathBuf>, root: Option<PathBuf>) -> Result<Self> {
        if let Some(dir) = assets {
            return Self::in_dir(&dir).map_err(|_| Error::BinariesNotFound {
                detail: format!(
                    "KUBEBUILDER_ASSETS={} has no etcd and kube-apiserver executables",
                    dir.display()
                ),
            });
        }
        let Some(root) = root else {
            return Err(Error::BinariesNotFound {
                detail: "KUBEBUILDER_ASSETS is not set and neither is HOME".into(),
            });
        };
        let k8s = root.join("k8s");
        match newest_platform_dir(&k8s) {
            Some(dir) => Self::in_dir(dir),
            None => Err(Error::BinariesNotFound {
                detail: format!(
                    "KUBEBUILDER_ASSETS is not set and {} has no <version>-{} directory with etcd and kube-apiserver",
                    k8s.display(),
                    platform_suffix()
                ),
            }),
        }
    }

    fn from_dir(dir: &Path) -> Self {
        Self {
            dir: dir.to_path_buf(),
            etcd: dir.join("etcd"),
            kube_apiserver: dir.join("kube-apiserver"),
            kube_controller_manager: dir.join("kube-controller-manager"),
        }
    }

    /// The controller manager, or why it cannot be run.
    pub(crate) fn require_controller_manager(&self) -> Result<&Path> {
        if self.kube_controller_manager.is_file() {
            Ok(&self.kube_controller_manager)
        } else {
            Err(Error::ControllerManagerMissing {
                dir: self.dir.clone(),
            })
        }
    }
}

fn setup_envtest_root() -> Option<PathBuf> {
    let data = std::env::var_os("XDG_DATA_HOME")
        .filter(|v| !v.is_empty())
        .map(PathBuf::from)
        .or_else(|| {
            std::env::var_os("HOME")
                .filter(|v| !v.is_empty())
                .map(|h| PathBuf::from(h).join(".local/share"))
        })?;
    Some(data.join("kubebuilder-envtest"))
}

/// setup-envtest names directories `<version>-<GOOS>-<GOARCH>`.
fn platform_suffix() -> String {
    let arch = match std::env::consts::ARCH {
        "x86_64" => "amd64",
        "aarch64" => "arm64",
        "powerpc64" => "ppc64le",
        other => other,
    };
    format!("{}-{arch}", std::env::consts::OS)
}

/// The highest version directory for this platform that holds the two required binaries, preferring
/// those that also hold kube-controller-manager: setup-envtest's downloads lack it, and a newer download
/// beside a control plane built by `hack/setup-envtest.sh` must not make `with_controller_manager()` fail.
fn newest_platform_dir(k8s: &Path) -> Option<PathBuf> {
    let suffix = format!("-{}", platform_suffix());
    let entries = std::fs::read_dir(k8s).ok()?;
    entries
        .filter_map(|e| e.ok())
        .filter_map(|e| {
            let name = e.file_name().into_string().ok()?;
            let version = parse_version(name.strip_suffix(&suffix)?)?;
            let dir = e.path();
            let complete = dir.join("kube-controller-manager").is_file();
            (dir.join("etcd").is_file() && dir.join("kube-apiserver").is_file())
                .then_some(((complete, version), dir))
        })
        .max_by(|a, b| a.0.cmp(&b.0))
        .map(|(_, dir)| dir)
}

/// `1.35.4` -> `[1, 35, 4]`; anything else is not a version directory.
fn parse_version(s: &str) -> Option<Vec<u64>> {
    s.split('.').map(|p| p.parse().ok()).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fake_release(root: &Path, version: &str, binaries: &[&str]) -> PathBuf {
        let dir = root
            .join("k8s")
            .join(format!("{version}-{}", platform_suffix()));
        std::fs::create_dir_all(&dir).unwrap();
        for b in binaries {
            std::fs::write(dir.join(b), "").unwrap();
        }
        dir
    }

    const SETUP_ENVTEST: &[&str] = &["etcd", "kube-apiserver"];
    const BUILT: &[&str] = &["etcd", "kube-apiserver", "kube-controller-manager"];

    #[test]
    fn picks_the_newest_complete_version_numerically() {
        let root = tempfile::tempdir().unwrap();
        fake_release(root.path(), "1.9.0", SETUP_ENVTEST);
        let want = fake_release(root.path(), "1.35.4", SETUP_ENVTEST);
        fake_release(root.path(), "1.36.0", &["etcd"]); // incomplete: skipped
        let found = Binaries::locate_in(None, Some(root.path().into())).unwrap();
        assert_eq!(found.dir, want);
        assert_eq!(found.kube_apiserver, want.join("kube-apiserver"));
    }

    #[test]
    fn prefers_a_control_plane_with_the_controller_manager_over_a_newer_download() {
        let root = tempfile::tempdir().unwrap();
        let built = fake_release(root.path(), "1.35.4", BUILT);
        fake_release(root.path(), "1.36.0", SETUP_ENVTEST);
        let found = Binaries::locate_in(None, Some(root.path().into())).unwrap();
        assert_eq!(found.dir, built);
        assert!(found.require_controller_manager().is_ok());
    }

    #[test]
    fn kubebuilder_assets_wins_and_is_named_when_empty() {
        let root = tempfile::tempdir().unwrap();
        fake_release(root.path(), "1.35.4", SETUP_ENVTEST);
        let assets = tempfile::tempdir().unwrap();
        let err = Binaries::locate_in(Some(assets.path().into()), Some(root.path().into()))
            .unwrap_err()
            .to_string();
        assert!(err.contains("KUBEBUILDER_ASSETS="), "{err}");
        assert!(err.contains("make setup-envtest"), "{err}");
    }

    /// What `setup-envtest use -p path` prints: accepted as it is; only the controller manager is refused.
    #[test]
    fn kubebuilder_assets_in_setup_envtests_layout_are_accepted() {
        let assets = tempfile::tempdir().unwrap();
        for b in ["etcd", "kube-apiserver", "kubectl"] {
            std::fs::write(assets.path().join(b), "").unwrap();
        }
        let found = Binaries::locate_in(Some(assets.path().into()), None).unwrap();
        assert_eq!(found.dir, assets.path());
        let err = found.require_controller_manager().unwrap_err();
        assert!(
            matches!(&err, Error::ControllerManagerMissing { dir } if dir == assets.path()),
            "{err:?}"
        );
    }

    #[test]
    fn missing_root_names_the_setup_command() {
        let root = tempfile::tempdir().unwrap();
        let err = Binaries::locate_in(None, Some(root.path().into()))
            .unwrap_err()
            .to_string();
        assert!(err.contains("hack/setup-envtest.sh"), "{err}");
        assert!(err.contains(&platform_suffix()), "{err}");
    }
}
