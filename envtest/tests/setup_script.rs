//! The envtest setup script (templates/assets/setup-envtest.sh, scaffolded into every project as
//! hack/setup-envtest.sh; this repository's hack/setup-envtest.sh runs it requiring kube-controller-manager): which
//! directory it settles on and what it runs, without downloading or building anything. Fake asset trees stand in
//! for the binaries, and a fake `go` (which logs its arguments) for Go and setup-envtest; without it PATH has no
//! Go, so a case that would build fails loudly instead of spending minutes.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

const BINARIES: [&str; 3] = ["etcd", "kube-apiserver", "kube-controller-manager"];
/// What `setup-envtest use` downloads.
const SETUP_ENVTEST_DOWNLOAD: [&str; 3] = ["etcd", "kube-apiserver", "kubectl"];

/// The script projects get.
fn scaffold_script() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../templates/assets/setup-envtest.sh")
}

/// This repository's, which hack/test.sh runs.
fn repo_script() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../hack/setup-envtest.sh")
}

/// The host's platform as Go names it (what `go env GOOS GOARCH` says here, and the script's uname fallback).
fn host_platform() -> String {
    let arch = match std::env::consts::ARCH {
        "x86_64" => "amd64",
        "aarch64" => "arm64",
        "powerpc64" => "ppc64le",
        other => other,
    };
    format!("{}-{arch}", std::env::consts::OS)
}

fn make_executable(path: &Path, text: &str) {
    use std::os::unix::fs::PermissionsExt;
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o755)).unwrap();
}

/// An executable placeholder for each of `names` in `dir`.
fn fake_binaries(dir: &Path, names: &[&str]) {
    for name in names {
        make_executable(&dir.join(name), "#!/bin/sh\n");
    }
}

/// A `go` in `<root>/bin` that logs each call's arguments to `<root>/go.log`, names `platform` for
/// `go env GOOS GOARCH`, cannot fetch modules (as offline), and runs setup-envtest as `setup_envtest` says: a shell
/// snippet with the tool's arguments in `$@`.
fn fake_go(root: &Path, platform: &str, setup_envtest: &str) {
    let (os, arch) = platform.split_once('-').unwrap();
    let log = root.join("go.log");
    make_executable(
        &root.join("bin/go"),
        &format!(
            "#!/bin/bash\n\
             echo \"$*\" >> '{log}'\n\
             case \"$1\" in\n\
             env) printf '%s\\n%s\\n' {os} {arch} ;;\n\
             run) shift 2; {setup_envtest} ;;\n\
             mod) [ \"$2\" != download ] || {{ echo '{{\"Error\": \"dial tcp: proxy.golang.org: no such host\"}}'; exit 1; }} ;;\n\
             esac\n",
            log = log.display()
        ),
    );
}

/// What setup-envtest does where GitHub cannot be reached.
const UNREACHABLE: &str = "echo 'Get \"https://raw.githubusercontent.com/kubernetes-sigs/controller-tools/HEAD/\
envtest-releases.yaml\": dial tcp: lookup raw.githubusercontent.com: no such host' >&2; echo 'exit status 2' >&2; exit 1";

/// Runs `script` with its cache under `<root>/envtest`, PATH = `<root>/bin` (a fake go, if any) and the system
/// directories (no Go), and `assets` as KUBEBUILDER_ASSETS.
fn run(script: &Path, root: &Path, assets: Option<&Path>, args: &[&str]) -> Output {
    let mut cmd = Command::new("bash");
    cmd.arg(script)
        .args(args)
        .env_clear()
        .env(
            "PATH",
            format!("{}:/usr/bin:/bin", root.join("bin").display()),
        )
        .env("HOME", root)
        .env("RKB_ENVTEST_ROOT", root.join("envtest"))
        .env("RKB_ENVTEST_WORK", root.join("work"));
    if let Some(a) = assets {
        cmd.env("KUBEBUILDER_ASSETS", a);
    }
    cmd.output().unwrap()
}

fn last_line(out: &Output) -> String {
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .last()
        .unwrap_or_default()
        .to_string()
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

fn go_calls(root: &Path) -> Vec<String> {
    std::fs::read_to_string(root.join("go.log"))
        .unwrap_or_default()
        .lines()
        .map(str::to_string)
        .collect()
}

/// The script's default of `var` (`VAR="${RKB_...:-default}"`), so the tests follow a version bump.
fn pinned(var: &str) -> String {
    let text = std::fs::read_to_string(scaffold_script()).unwrap();
    let line = text
        .lines()
        .find(|l| l.starts_with(&format!("{var}=")))
        .unwrap();
    let start = line.find(":-").unwrap() + 2;
    line[start..line[start..].find('}').unwrap() + start].to_string()
}

/// The directory the script builds into for `platform`, and its stamp.
fn pinned_dir_and_stamp(root: &Path, platform: &str) -> (PathBuf, String) {
    let (k8s, etcd) = (pinned("K8S_VERSION"), pinned("ETCD_VERSION"));
    (
        root.join(format!("envtest/k8s/{k8s}-{platform}")),
        format!("k8s=v{k8s} etcd=v{etcd}"),
    )
}

/// The pinned directory as a finished build leaves it: every binary, and the stamp of the pinned versions.
fn built_control_plane(root: &Path) -> PathBuf {
    let (dest, stamp) = pinned_dir_and_stamp(root, &host_platform());
    fake_binaries(&dest, &BINARIES);
    std::fs::write(dest.join(".rkb-stamp"), format!("{stamp}\n")).unwrap();
    dest
}

#[test]
fn a_matching_stamp_reuses_the_cache_and_prints_it_last() {
    let root = tempfile::tempdir().unwrap();
    let dest = built_control_plane(root.path());
    for script in [repo_script(), scaffold_script()] {
        let out = run(&script, root.path(), None, &[]);
        assert!(out.status.success(), "{}", stderr(&out));
        assert_eq!(last_line(&out), dest.to_str().unwrap());
    }
}

#[test]
fn a_stale_stamp_rebuilds_and_without_go_says_how_to_get_it() {
    let root = tempfile::tempdir().unwrap();
    let (dest, _) = pinned_dir_and_stamp(root.path(), &host_platform());
    fake_binaries(&dest, &BINARIES);
    std::fs::write(dest.join(".rkb-stamp"), "k8s=v1.0.0 etcd=v3.0.0\n").unwrap();
    let out = run(&repo_script(), root.path(), None, &[]);
    assert!(!out.status.success());
    assert!(stderr(&out).contains("Go is needed"), "{}", stderr(&out));
}

#[test]
fn complete_kubebuilder_assets_are_used_as_they_are() {
    let root = tempfile::tempdir().unwrap();
    let assets = root.path().join("mine");
    fake_binaries(&assets, &BINARIES);
    let out = run(&repo_script(), root.path(), Some(&assets), &[]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(last_line(&out), assets.to_str().unwrap());
}

/// This repository's tests run kube-controller-manager, so its script looks past a setup-envtest download.
#[test]
fn the_repository_script_passes_over_kubebuilder_assets_without_a_controller_manager() {
    let root = tempfile::tempdir().unwrap();
    let assets = root.path().join("setup-envtest-download");
    fake_binaries(&assets, &SETUP_ENVTEST_DOWNLOAD);
    let dest = built_control_plane(root.path());
    let out = run(&repo_script(), root.path(), Some(&assets), &[]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(
        stderr(&out)
            .contains("lacks one of etcd kube-apiserver kube-controller-manager; looking further"),
        "{}",
        stderr(&out)
    );
    assert_eq!(last_line(&out), dest.to_str().unwrap());
}

/// Nor does it try setup-envtest, whose download would lack kube-controller-manager: it builds.
#[test]
fn the_repository_script_builds_without_trying_setup_envtest() {
    let root = tempfile::tempdir().unwrap();
    fake_go(root.path(), &host_platform(), UNREACHABLE);
    let out = run(&repo_script(), root.path(), None, &[]);
    assert!(!out.status.success(), "built with a fake go?");
    let calls = go_calls(root.path());
    assert!(
        calls.iter().any(|c| c.starts_with("mod download")),
        "{calls:?}"
    );
    assert!(!calls.iter().any(|c| c.starts_with("run ")), "{calls:?}");
}

/// A project's script takes what kubebuilder users already have, and says what it lacks.
#[test]
fn the_scaffold_script_uses_kubebuilder_assets_in_setup_envtests_layout() {
    let root = tempfile::tempdir().unwrap();
    let assets = root.path().join("setup-envtest-download");
    fake_binaries(&assets, &SETUP_ENVTEST_DOWNLOAD);
    let out = run(&scaffold_script(), root.path(), Some(&assets), &[]);
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(last_line(&out), assets.to_str().unwrap());
    assert_eq!(
        stderr(&out),
        format!(
            "setup-envtest: using KUBEBUILDER_ASSETS: {}\nsetup-envtest: note: no kube-controller-manager there; \
             tests using with_controller_manager() fail until RKB_ENVTEST_CONTROLLER_MANAGER=1 builds it\n",
            assets.display()
        )
    );
}

/// The directory is named for the platform `go env` reports, and setup-envtest is asked for that platform.
#[test]
fn the_platform_comes_from_go_env() {
    let root = tempfile::tempdir().unwrap();
    fake_go(root.path(), "darwin-arm64", UNREACHABLE);
    let out = run(&scaffold_script(), root.path(), None, &["--dry-run"]);
    assert!(out.status.success(), "{}", stderr(&out));
    let (dest, _) = pinned_dir_and_stamp(root.path(), "darwin-arm64");
    assert_eq!(last_line(&out), dest.to_str().unwrap());
    assert!(
        stderr(&out).contains("--os darwin --arch arm64"),
        "{}",
        stderr(&out)
    );
    // A dry run asks Go for the platform and runs nothing else.
    assert_eq!(go_calls(root.path()), ["env GOOS GOARCH"]);
}

/// Where GitHub is unreachable, setup-envtest fails (on disk, then downloading), the script says so and builds
/// from Go modules; here the module proxy is unreachable too, which fails naming the module, leaving nothing.
#[test]
fn a_failed_download_falls_back_to_building_from_go_modules() {
    let root = tempfile::tempdir().unwrap();
    let platform = host_platform();
    fake_go(root.path(), &platform, UNREACHABLE);
    let out = run(&scaffold_script(), root.path(), None, &[]);
    let err = stderr(&out);
    assert!(!out.status.success(), "{err}");
    let k8s = pinned("K8S_VERSION");
    let minor = k8s.rsplit_once('.').unwrap().0;
    let tool = format!(
        "run sigs.k8s.io/controller-runtime/tools/setup-envtest@{} use -p path --os {} --arch {} --bin-dir {} {minor}.x",
        pinned("SETUP_ENVTEST_VERSION"),
        platform.split_once('-').unwrap().0,
        platform.split_once('-').unwrap().1,
        root.path().join("envtest").display()
    );
    let calls = go_calls(root.path());
    assert_eq!(
        calls[..3],
        ["env GOOS GOARCH".to_string(), format!("{tool} -i"), tool]
    );
    assert!(
        err.starts_with(&format!(
            "setup-envtest: setup-envtest could not download the binaries: Get \"https://raw.githubusercontent.com/\
             kubernetes-sigs/controller-tools/HEAD/envtest-releases.yaml\": dial tcp: lookup \
             raw.githubusercontent.com: no such host\n\
             setup-envtest: building the control plane from Go modules instead\n\
             setup-envtest: error: cannot fetch k8s.io/kubernetes@v{k8s} from the Go module proxy: dial tcp: \
             proxy.golang.org: no such host\n"
        )),
        "{err}"
    );
    let leftovers: Vec<_> = std::fs::read_dir(root.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .filter(|name| name.contains("stage"))
        .collect();
    assert_eq!(leftovers, Vec::<String>::new());
}

/// setup-envtest's download, when it succeeds, is used as it is (no build), and the script says it used it.
#[test]
fn a_setup_envtest_download_is_used_without_building() {
    let root = tempfile::tempdir().unwrap();
    let platform = host_platform();
    let download = root.path().join(format!("envtest/k8s/1.35.0-{platform}"));
    let setup_envtest = format!(
        "case \" $* \" in *' -i '*) echo 'no such version installed' >&2; exit 1 ;; esac; \
         mkdir -p '{dir}'; for b in etcd kube-apiserver kubectl; do printf '#!/bin/sh\\n' > '{dir}'/$b; \
         chmod +x '{dir}'/$b; done; printf '%s' '{dir}'",
        dir = download.display()
    );
    fake_go(root.path(), &platform, &setup_envtest);
    let out = run(&scaffold_script(), root.path(), None, &[]);
    let err = stderr(&out);
    assert!(out.status.success(), "{err}");
    assert_eq!(last_line(&out), download.to_str().unwrap());
    let k8s = pinned("K8S_VERSION");
    assert!(
        err.starts_with(&format!(
            "setup-envtest: setup-envtest {} {}.x, downloaded: {}\n",
            pinned("SETUP_ENVTEST_VERSION"),
            k8s.rsplit_once('.').unwrap().0,
            download.display()
        )),
        "{err}"
    );
    assert!(
        !go_calls(root.path()).iter().any(|c| c.starts_with("mod ")),
        "built although setup-envtest downloaded"
    );
}
