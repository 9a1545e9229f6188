//! The AppService controller against a real kube-apiserver and etcd (`make setup-envtest` builds them once;
//! `make test` runs this with KUBEBUILDER_ASSETS set).

use std::time::Duration;

use rkb_runtime::Manager;
use rkb_runtime::envtest::{Environment, eventually};
use rkb_runtime::kube::Api;
use rkb_runtime::kube::api::{DeleteParams, PostParams};

use app_operator::api::v1alpha1::AppService;
use app_operator::controller::appservice_controller::{FINALIZER, controller};

/// How long the controller may take to act on a change.
const TIMEOUT: Duration = Duration::from_secs(30);

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
    let running = mgr.spawn();

    let api: Api<AppService> = Api::namespaced(client.clone(), "default");
    let name = "appservice-sample";
    api.create(
        &PostParams::default(),
        &AppService::new(name, Default::default()),
    )
    .await?;

    // The finalizer shows that reconcile ran for the new object.
    eventually("the controller adds its finalizer", TIMEOUT, || async {
        let obj = api.get(name).await?;
        let finalizers = obj.metadata.finalizers.unwrap_or_default();
        Ok::<_, rkb_runtime::kube::Error>(finalizers.iter().any(|f| f == FINALIZER).then_some(()))
    })
    .await?;

    // Deletion waits for cleanup, then the object is gone.
    api.delete(name, &DeleteParams::default()).await?;
    eventually("the AppService is deleted", TIMEOUT, || async {
        Ok::<_, rkb_runtime::kube::Error>(api.get_opt(name).await?.is_none().then_some(()))
    })
    .await?;

    running.stop().await?;
    Ok(())
}
