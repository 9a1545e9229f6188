//! Seed 003's pod-watch program: watch Pods and print each one added, modified or deleted.
//!
//! ```text
//! cargo run -p rkb-runtime --example pod_watch                 # all namespaces
//! cargo run -p rkb-runtime --example pod_watch -- -n default   # one namespace
//! ```
//! The cluster comes from `KUBECONFIG` / `~/.kube/config` / the in-cluster service account.
//! Built on a shared informer, so the watch reconnects by itself; Ctrl-C stops it.

use std::sync::Arc;

use k8s_openapi::api::core::v1::Pod;
use rkb_runtime::informer::{HandlerFuncs, SharedInformerFactory};
use rkb_runtime::kube::Client;

/// One output line for a pod event.
pub fn line(event: &str, pod: &Pod) -> String {
    let phase = pod
        .status
        .as_ref()
        .and_then(|s| s.phase.as_deref())
        .unwrap_or("Unknown");
    format!(
        "{event} {}/{} ({phase})",
        pod.metadata.namespace.as_deref().unwrap_or(""),
        pod.metadata.name.as_deref().unwrap_or("")
    )
}

/// Starts watching Pods (of `namespace`, or all) and hands every event's line to `print`.
/// Returns the running factory: `shutdown` it to stop.
pub async fn watch_pods(
    client: Client,
    namespace: Option<String>,
    print: impl Fn(String) + Send + Sync + 'static,
) -> SharedInformerFactory {
    let mut builder = SharedInformerFactory::builder(client);
    if let Some(ns) = namespace {
        builder = builder.namespace(ns);
    }
    let factory = builder.build();
    let print = Arc::new(print);
    let (p1, p2, p3) = (print.clone(), print.clone(), print);
    factory.informer::<Pod>().add_event_handler(
        HandlerFuncs::new()
            .on_add(move |pod: &Arc<Pod>, _| p1(line("ADDED", pod)))
            .on_update(move |old: &Arc<Pod>, new: &Arc<Pod>| {
                // Resyncs and relists replay unchanged objects; only real changes are printed.
                if old.metadata.resource_version != new.metadata.resource_version {
                    p2(line("MODIFIED", new))
                }
            })
            .on_delete(move |pod: &Arc<Pod>| p3(line("DELETED", pod))),
    );
    factory.start();
    factory
}

#[allow(dead_code)] // the test includes this file for `watch_pods` only
#[tokio::main]
async fn main() -> anyhow::Result<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let namespace = match args.as_slice() {
        [] => None,
        [flag, ns] if flag == "-n" || flag == "--namespace" => Some(ns.clone()),
        _ => anyhow::bail!("usage: pod_watch [-n NAMESPACE]"),
    };
    let client = Client::try_default().await?;
    let factory = watch_pods(client, namespace, |l| println!("{l}")).await;
    tokio::signal::ctrl_c().await?;
    factory.shutdown().await;
    Ok(())
}
