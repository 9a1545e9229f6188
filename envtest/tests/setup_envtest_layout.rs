//! setup-envtest's download layout (etcd, kube-apiserver and kubectl; no kube-controller-manager), as users of
//! kubebuilder already have it in KUBEBUILDER_ASSETS: the control plane starts from it, and only
//! `with_controller_manager()` fails, naming the missing binary and how to get it.

mod common;

use std::path::Path;

use common::{crd_dir, start, widget, widgets};
use kube::api::PostParams;
use rkb_envtest::{Binaries, CONTROLLER_MANAGER_HINT, Environment, Error};
use serde_json::json;

/// A directory laid out as `setup-envtest use -p path` leaves one: links to the real etcd, kube-apiserver and
/// kubectl (when the real directory has it), nothing else.
fn setup_envtest_download(into: &Path) {
    let real = Binaries::locate().unwrap_or_else(|e| panic!("{e}"));
    for name in ["etcd", "kube-apiserver", "kubectl"] {
        let target = real.dir.join(name);
        if name == "kubectl" && !target.exists() {
            continue;
        }
        std::os::unix::fs::symlink(&target, into.join(name)).unwrap();
    }
}

#[tokio::test]
async fn the_control_plane_starts_without_a_controller_manager() {
    let assets = tempfile::tempdir().unwrap();
    setup_envtest_download(assets.path());
    let env = start(
        Environment::builder()
            .binary_assets_dir(assets.path())
            .crd_dir(crd_dir()),
    )
    .await;
    assert_eq!(env.binaries().dir, assets.path());
    assert!(!env.has_controller_manager());
    widgets(&env.client(), "default")
        .create(
            &PostParams::default(),
            &widget("w", json!({"size": "small"})),
        )
        .await
        .expect("the API server serves the CRD");
    env.stop().await.unwrap();
}

#[tokio::test]
async fn with_controller_manager_names_the_missing_binary_and_how_to_build_it() {
    let assets = tempfile::tempdir().unwrap();
    setup_envtest_download(assets.path());
    let started = Environment::builder()
        .binary_assets_dir(assets.path())
        .with_controller_manager()
        .start()
        .await;
    let Err(err) = started else {
        panic!("started without kube-controller-manager");
    };
    assert!(
        matches!(&err, Error::ControllerManagerMissing { dir } if dir == assets.path()),
        "{err:?}"
    );
    assert_eq!(
        err.to_string(),
        format!(
            "kube-controller-manager not found in {}: with_controller_manager() runs it for garbage collection and \
             namespace deletion\nhint: {CONTROLLER_MANAGER_HINT}",
            assets.path().display()
        )
    );
    assert!(
        CONTROLLER_MANAGER_HINT.contains("RKB_ENVTEST_CONTROLLER_MANAGER=1 make test"),
        "{CONTROLLER_MANAGER_HINT}"
    );
}
