//! The AppService controller against a real kube-apiserver and etcd (`make setup-envtest` builds them once;
//! `make test` runs this with KUBEBUILDER_ASSETS set).

use std::future::Future;
use std::time::Duration;

use rkb_runtime::Manager;
use rkb_runtime::envtest::Environment;
use rkb_runtime::kube::Api;
use rkb_runtime::kube::api::{DeleteParams, PostParams};

use app_operator::api::v1alpha1::AppService;
use app_operator::controller::appservice_controller::{FINALIZER, controller};

/// Polls `check` until it returns true, failing the test after 30 seconds.
async fn eventually<F, Fut>(what: &str, mut check: F) -> anyhow::Result<()>
where
    F: FnMut() -> Fut,
    Fut: Future<Output = anyhow::Result<bool>>,
{
    let deadline = tokio::time::Instant::now() + Duration::from_secs(30);
    while !check().await? {
        anyhow::ensure!(
            tokio::time::Instant::now() < deadline,
            "timed out waiting until {what}"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    Ok(())
}

#[tokio::test]
async fn reconciles_a_appservice_from_creation_to_deletion() -> anyhow::Result<()> {
    let env = Environment::builder()
        .crd_dir(concat!(env!("CARGO_MANIFEST_DIR"), "/config/crd/bases"))
        .start()
        .await?;
    let client = env.client();

    let mgr = Manager::builder("app-operator-test")
        .client(client.clone())
        .build()
        .await?;
    mgr.add(controller);
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    let running = tokio::spawn(mgr.run_until(async {
        let _ = stopped.await;
    }));

    let api: Api<AppService> = Api::namespaced(client.clone(), "default");
    let name = "appservice-sample";
    api.create(
        &PostParams::default(),
        &AppService::new(name, Default::default()),
    )
    .await?;

    // The finalizer shows that reconcile ran for the new object.
    eventually("the controller adds its finalizer", || async {
        let obj = api.get(name).await?;
        Ok(obj
            .metadata
            .finalizers
            .unwrap_or_default()
            .iter()
            .any(|f| f == FINALIZER))
    })
    .await?;

    // Deletion waits for cleanup, then the object is gone.
    api.delete(name, &DeleteParams::default()).await?;
    eventually("the AppService is deleted", || async {
        Ok(api.get_opt(name).await?.is_none())
    })
    .await?;

    let _ = stop.send(());
    running.await??;
    Ok(())
}
