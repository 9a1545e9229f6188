//! Seed 001's Cluster kind (clusterprovisioner.rke.io/v1alpha1, cluster-scoped, `+genclient:noStatus`)
//! in use: install its CRD from `Cluster::crd()`, watch Clusters with the generated informer, and
//! "provision" each one: record `status.appliedConfig` and the Provisioned and Ready conditions.
//!
//! ```text
//! cargo run -p rkb-fixture-operator --example cluster_provisioner                       # watch
//! cargo run -p rkb-fixture-operator --example cluster_provisioner -- prod /etc/prod.yaml # and create one
//! ```
//! The cluster comes from `KUBECONFIG` / `~/.kube/config`. Ctrl-C stops it.

use std::sync::Arc;
use std::time::Duration;

use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinition;
use rkb_fixture_operator::api::clusterprovisioner::v1alpha1::{
    Cluster, ClusterClient, ClusterInformer, ClusterSpec, ClusterStatus,
};
use rkb_runtime::client::{ApplyOptions, PostParams, ResourceClient};
use rkb_runtime::conditions::{is_condition_true, new_condition, set_condition};
use rkb_runtime::informer::{HandlerFuncs, SharedInformerFactory};
use rkb_runtime::kube::Client;

/// Applies the Cluster CRD and waits until the API server serves it.
pub async fn install_crd(client: &Client) -> anyhow::Result<()> {
    let crds: ResourceClient<CustomResourceDefinition> =
        ResourceClient::all(client.clone()).with_field_manager("cluster-provisioner");
    let crd = Cluster::crd();
    let name = crd.metadata.name.clone().unwrap_or_default();
    crds.apply(&crd, &ApplyOptions::force()).await?;
    for _ in 0..100 {
        let established = crds.get(&name).await?.status.is_some_and(|s| {
            s.conditions
                .unwrap_or_default()
                .iter()
                .any(|c| c.type_ == "Established" && c.status == "True")
        });
        if established {
            return Ok(());
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    anyhow::bail!("CRD {name} not established after 10s")
}

/// Brings `cluster`'s status in line with its spec; `None` when it already is.
pub fn provisioned(cluster: &Cluster) -> Option<Cluster> {
    let status = cluster.status.clone().unwrap_or_default();
    let done = status.applied_config == cluster.spec.config_path
        && is_condition_true(&status.conditions, "Provisioned")
        && is_condition_true(&status.conditions, "Ready");
    if done {
        return None;
    }
    let generation = cluster.metadata.generation;
    let mut status = ClusterStatus {
        applied_config: cluster.spec.config_path.clone(),
        ..status
    };
    let message = format!("provisioned from {}", cluster.spec.config_path);
    let provisioned = new_condition("Provisioned", "True", "ConfigApplied", &message, generation);
    set_condition(&mut status.conditions, provisioned);
    let ready = new_condition(
        "Ready",
        "True",
        "Provisioned",
        "cluster is ready",
        generation,
    );
    set_condition(&mut status.conditions, ready);
    let mut next = cluster.clone();
    next.status = Some(status);
    Some(next)
}

/// Starts the watch; every Cluster whose status lags its spec gets provisioned. `print` hears
/// one line per provisioning. `shutdown` the returned factory to stop.
pub async fn run_provisioner(
    client: Client,
    print: impl Fn(String) + Send + Sync + 'static,
) -> SharedInformerFactory {
    let factory = SharedInformerFactory::new(client.clone());
    let informer: ClusterInformer = factory.informer::<Cluster>();
    let clusters = ClusterClient::new(client).with_field_manager("cluster-provisioner");
    let print = Arc::new(print);
    let reconcile = move |cluster: &Arc<Cluster>| {
        let Some(next) = provisioned(cluster) else {
            return;
        };
        let (clusters, print) = (clusters.clone(), print.clone());
        // Handlers are synchronous and must be quick: the write happens on its own task.
        tokio::spawn(async move {
            let name = next.metadata.name.clone().unwrap_or_default();
            // noStatus: no status subresource, so status is written with update. A conflict
            // means a newer version is on its way to this handler; nothing to do here.
            match clusters.update(&next, &PostParams::default()).await {
                Ok(_) => print(format!("provisioned {name} from {}", next.spec.config_path)),
                Err(e) if e.is_conflict() => {}
                Err(e) => print(format!("provisioning {name} failed: {e}")),
            }
        });
    };
    let on_update = reconcile.clone();
    informer.add_event_handler(
        HandlerFuncs::new()
            .on_add(move |c: &Arc<Cluster>, _| reconcile(c))
            .on_update(move |_, c: &Arc<Cluster>| on_update(c)),
    );
    factory.start();
    factory
}

#[allow(dead_code)] // tests include this file for its functions only
#[tokio::main]
async fn main() -> anyhow::Result<()> {
    let client = Client::try_default().await?;
    install_crd(&client).await?;
    let factory = run_provisioner(client.clone(), |l| println!("{l}")).await;
    let args: Vec<String> = std::env::args().skip(1).collect();
    if let [name, path] = args.as_slice() {
        let spec = ClusterSpec {
            config_path: path.clone(),
        };
        ClusterClient::new(client)
            .create(&Cluster::new(name, spec), &PostParams::default())
            .await?;
    }
    tokio::signal::ctrl_c().await?;
    factory.shutdown().await;
    Ok(())
}
