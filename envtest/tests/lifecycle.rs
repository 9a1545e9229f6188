//! Starting, failing and stopping: clear errors, independent environments, nothing left behind.

mod common;

use std::io::{BufRead, BufReader};
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use common::start;
use k8s_openapi::api::core::v1::{ConfigMap, Namespace};
use kube::api::{Api, ObjectMeta, PostParams};
use kube::config::{KubeConfigOptions, Kubeconfig};
use rkb_envtest::{Binaries, Environment, Error};

/// `127.0.0.1:<port>` of an environment's API server.
fn socket_addr(env: &Environment) -> String {
    env.server_url().trim_start_matches("https://").to_string()
}

fn accepts_connections(addr: &str) -> bool {
    TcpStream::connect_timeout(&addr.parse().unwrap(), Duration::from_millis(200)).is_ok()
}

#[tokio::test]
async fn missing_binaries_fail_with_the_setup_command() {
    let empty = tempfile::tempdir().unwrap();
    let err = Environment::builder()
        .binary_assets_dir(empty.path())
        .start()
        .await
        .unwrap_err();
    assert!(matches!(err, Error::BinariesNotFound { .. }), "{err:?}");
    let text = err.to_string();
    assert!(text.contains(&empty.path().display().to_string()), "{text}");
    assert!(text.contains("make setup-envtest"), "{text}");
    assert!(text.contains("hack/setup-envtest.sh"), "{text}");
    assert!(text.contains("KUBEBUILDER_ASSETS"), "{text}");
}

#[tokio::test]
async fn a_missing_controller_manager_is_named() {
    let real = Binaries::locate().unwrap_or_else(|e| panic!("{e}"));
    let partial = tempfile::tempdir().unwrap();
    for b in [&real.etcd, &real.kube_apiserver] {
        std::os::unix::fs::symlink(b, partial.path().join(b.file_name().unwrap())).unwrap();
    }
    let err = Environment::builder()
        .binary_assets_dir(partial.path())
        .with_controller_manager()
        .start()
        .await
        .unwrap_err()
        .to_string();
    let missing = format!(
        "kube-controller-manager not found in {}",
        partial.path().display()
    );
    assert!(err.contains(&missing), "{err}");
    assert!(err.contains("hack/setup-envtest.sh"), "{err}");
}

#[tokio::test]
async fn a_binary_that_fails_to_start_shows_its_last_log_lines() {
    let err = Environment::builder()
        .apiserver_arg("--no-such-flag-rkb")
        .start()
        .await
        .unwrap_err();
    let Error::Exited {
        binary, log_tail, ..
    } = &err
    else {
        panic!("expected Exited, got {err}");
    };
    assert_eq!(*binary, "kube-apiserver");
    assert!(
        log_tail.contains("unknown flag: --no-such-flag-rkb"),
        "{err}"
    );
}

#[tokio::test]
async fn a_missing_crd_directory_fails_before_starting() {
    let err = Environment::builder()
        .crd_dir("/nonexistent/config/crd/bases")
        .start()
        .await
        .unwrap_err();
    assert!(matches!(err, Error::CrdDirMissing(_)), "{err:?}");
}

#[tokio::test]
async fn the_kubeconfig_file_reaches_the_server_as_admin() {
    let env = start(Environment::builder()).await;
    let kubeconfig = Kubeconfig::read_from(env.kubeconfig_path()).unwrap();
    let config = kube::Config::from_custom_kubeconfig(kubeconfig, &KubeConfigOptions::default())
        .await
        .unwrap();
    assert_eq!(
        config.cluster_url.to_string().trim_end_matches('/'),
        env.server_url()
    );
    let client = kube::Client::try_from(config).unwrap();
    // Cluster-scoped writes need cluster-admin rights (system:masters).
    let namespaces: Api<Namespace> = Api::all(client);
    let ns = Namespace {
        metadata: ObjectMeta {
            name: Some("from-kubeconfig".into()),
            ..Default::default()
        },
        ..Default::default()
    };
    namespaces
        .create(&PostParams::default(), &ns)
        .await
        .unwrap();

    // The same file works for kubectl (the one setup-envtest.sh links beside the binaries, else PATH's).
    let linked = env.binaries().dir.join("kubectl");
    let kubectl = if linked.exists() {
        linked
    } else {
        PathBuf::from("kubectl")
    };
    let out = Command::new(kubectl)
        .arg("--kubeconfig")
        .arg(env.kubeconfig_path())
        .args([
            "get",
            "namespace",
            "from-kubeconfig",
            "-o",
            "jsonpath={.metadata.name}",
        ])
        .output()
        .expect("kubectl runs");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(String::from_utf8_lossy(&out.stdout), "from-kubeconfig");
}

#[tokio::test]
async fn parallel_environments_are_independent() {
    let (a, b) = tokio::join!(start(Environment::builder()), start(Environment::builder()));
    assert_ne!(a.server_url(), b.server_url());
    assert_ne!(a.dir(), b.dir());
    let in_a: Api<ConfigMap> = Api::namespaced(a.client(), "default");
    let cm = ConfigMap {
        metadata: ObjectMeta {
            name: Some("only-in-a".into()),
            ..Default::default()
        },
        ..Default::default()
    };
    in_a.create(&PostParams::default(), &cm).await.unwrap();
    let in_b: Api<ConfigMap> = Api::namespaced(b.client(), "default");
    assert!(in_b.get_opt("only-in-a").await.unwrap().is_none());
    // Each trusts only its own CA: a's client cannot talk to b's server.
    let mut cross = a.config().clone();
    cross.cluster_url = b.server_url().parse().unwrap();
    cross.default_retry = false;
    let cross: Api<ConfigMap> = Api::namespaced(kube::Client::try_from(cross).unwrap(), "default");
    assert!(cross.get_opt("anything").await.is_err());
}

#[tokio::test]
async fn drop_and_stop_leave_no_process_or_directory() {
    let env = start(Environment::builder().with_controller_manager()).await;
    let (addr, dir) = (socket_addr(&env), env.dir().to_path_buf());
    assert!(accepts_connections(&addr) && dir.is_dir());
    drop(env);
    assert!(
        !accepts_connections(&addr),
        "kube-apiserver still listening after drop"
    );
    assert!(!dir.exists(), "{} left behind", dir.display());

    let env = start(Environment::builder()).await;
    let (addr, dir) = (socket_addr(&env), env.dir().to_path_buf());
    env.stop().await.unwrap();
    assert!(!accepts_connections(&addr));
    assert!(!dir.exists());
}

#[tokio::test]
async fn a_panicking_test_still_cleans_up() {
    let (tx, rx) = tokio::sync::oneshot::channel();
    let task = tokio::spawn(async move {
        let env = start(Environment::builder()).await;
        tx.send((socket_addr(&env), env.dir().to_path_buf()))
            .unwrap();
        panic!("test failure while the environment runs");
    });
    let (addr, dir) = rx.await.unwrap();
    assert!(task.await.unwrap_err().is_panic());
    assert!(!accepts_connections(&addr));
    assert!(!dir.exists());
}

const HELPER_ENV: &str = "RKB_ENVTEST_ORPHAN_HELPER";

/// Not a test on its own: `a_killed_test_process_leaves_no_orphans` runs it in a child process.
#[tokio::test]
#[ignore = "helper process for a_killed_test_process_leaves_no_orphans"]
async fn orphan_helper() {
    assert!(
        std::env::var_os(HELPER_ENV).is_some(),
        "run by a_killed_test_process_leaves_no_orphans"
    );
    let env = start(Environment::builder().with_controller_manager()).await;
    println!("READY {} {}", socket_addr(&env), env.dir().display());
    tokio::time::sleep(Duration::from_secs(300)).await;
}

/// SIGKILL gives no destructor a chance: the kernel's parent-death signal must stop the control
/// plane, and the next environment sweeps the stale temp dir.
#[tokio::test]
async fn a_killed_test_process_leaves_no_orphans() {
    let mut helper = Command::new(std::env::current_exe().unwrap())
        .args(["--ignored", "--exact", "orphan_helper", "--nocapture"])
        .env(HELPER_ENV, "1")
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let stdout = BufReader::new(helper.stdout.take().unwrap());
    let ready = tokio::task::spawn_blocking(move || {
        stdout
            .lines()
            .map_while(Result::ok)
            .find_map(|l| l.strip_prefix("READY ").map(str::to_string))
    })
    .await
    .unwrap();
    let Some(ready) = ready else {
        let _ = helper.kill();
        panic!("helper did not start an environment: {:?}", helper.wait());
    };
    let (addr, dir) = ready.split_once(' ').unwrap();
    let dir = PathBuf::from(dir);
    assert!(accepts_connections(addr));

    helper.kill().unwrap(); // SIGKILL
    helper.wait().unwrap();
    let deadline = Instant::now() + Duration::from_secs(10);
    while accepts_connections(addr) {
        assert!(
            Instant::now() < deadline,
            "kube-apiserver outlived its killed parent"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    assert!(
        no_process_uses(&dir),
        "a control plane process still runs from {}",
        dir.display()
    );

    // The next start sweeps the stale dir (a concurrent test's start may already have).
    let env = start(Environment::builder()).await;
    assert!(!dir.exists(), "stale {} not swept", dir.display());
    drop(env);
}

/// True when no process has `dir` in its command line (etcd's --data-dir, the TLS flags...).
fn no_process_uses(dir: &Path) -> bool {
    let needle = dir.display().to_string();
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        let found = std::fs::read_dir("/proc")
            .unwrap()
            .filter_map(|e| e.ok())
            .filter_map(|e| std::fs::read(e.path().join("cmdline")).ok())
            .any(|cmd| String::from_utf8_lossy(&cmd).contains(&needle));
        if !found {
            return true;
        }
        if Instant::now() >= deadline {
            return false;
        }
        std::thread::sleep(Duration::from_millis(100));
    }
}

#[tokio::test]
async fn restarting_the_apiserver_keeps_data_and_clients() {
    let mut env = start(Environment::builder()).await;
    let client = env.client();
    let config_maps: Api<ConfigMap> = Api::namespaced(client.clone(), "default");
    let cm = ConfigMap {
        metadata: ObjectMeta {
            name: Some("survivor".into()),
            ..Default::default()
        },
        ..Default::default()
    };
    config_maps
        .create(&PostParams::default(), &cm)
        .await
        .unwrap();
    let url = env.server_url().to_string();

    env.restart_apiserver().await.unwrap();
    assert_eq!(env.server_url(), url);
    // The client made before the restart works and sees the data kept in etcd.
    assert!(config_maps.get_opt("survivor").await.unwrap().is_some());
    let log = std::fs::read_to_string(env.dir().join("kube-apiserver.log")).unwrap();
    assert!(
        log.matches("Version: v").count() >= 2,
        "the log should show two starts"
    );
}

#[tokio::test]
async fn rbac_applies_to_users_other_than_the_admin() {
    let env = start(Environment::builder()).await;
    let mut as_nobody = env.config().clone();
    as_nobody.auth_info.impersonate = Some("nobody".into());
    let denied: Api<ConfigMap> =
        Api::namespaced(kube::Client::try_from(as_nobody).unwrap(), "default");
    match denied.list(&Default::default()).await {
        Err(kube::Error::Api(status)) => assert_eq!(status.code, 403, "{status:?}"),
        other => panic!("expected 403 Forbidden, got {other:?}"),
    }
}

#[tokio::test]
async fn a_client_with_rbac_has_exactly_the_roles_it_was_given() {
    let env = start(Environment::builder()).await;
    let rbac = "---\n\
apiVersion: rbac.authorization.k8s.io/v1\n\
kind: ClusterRole\n\
metadata:\n  name: reader\n\
rules:\n- apiGroups: [\"\"]\n  resources: [configmaps]\n  verbs: [get, list]\n\
---\n\
apiVersion: rbac.authorization.k8s.io/v1\n\
kind: Role\n\
metadata:\n  name: secret-writer\n  namespace: default\n\
rules:\n- apiGroups: [\"\"]\n  resources: [secrets]\n  verbs: [create]\n";
    let client = env.client_with_rbac("operator", rbac).await.unwrap();

    let config_maps: Api<ConfigMap> = Api::namespaced(client.clone(), "default");
    config_maps
        .list(&Default::default())
        .await
        .expect("the ClusterRole allows listing ConfigMaps");
    match config_maps
        .create(&PostParams::default(), &ConfigMap::default())
        .await
    {
        Err(kube::Error::Api(status)) => assert_eq!(status.code, 403, "{status:?}"),
        other => panic!("creating a ConfigMap was not granted, expected 403, got {other:?}"),
    }
    let secret = k8s_openapi::api::core::v1::Secret {
        metadata: ObjectMeta {
            name: Some("s".into()),
            ..Default::default()
        },
        ..Default::default()
    };
    let secrets: Api<k8s_openapi::api::core::v1::Secret> =
        Api::namespaced(client.clone(), "default");
    secrets
        .create(&PostParams::default(), &secret)
        .await
        .expect("the Role allows creating Secrets in default");
    let elsewhere: Api<k8s_openapi::api::core::v1::Secret> = Api::namespaced(client, "kube-system");
    assert!(
        elsewhere
            .create(&PostParams::default(), &secret)
            .await
            .is_err(),
        "the Role is namespaced"
    );

    let Err(err) = env.client_with_rbac("other", "kind: ConfigMap\n").await else {
        panic!("a ConfigMap is not an RBAC document");
    };
    assert!(
        err.to_string().contains("expected a ClusterRole or Role"),
        "{err}"
    );
}
