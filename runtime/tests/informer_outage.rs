//! Informers through an API server outage (kube-apiserver killed and started again): built with the manager's
//! context (`retry_with_manager`), an informer waits for the manager's outage prober like the manager's own
//! watches do (tests/outage.rs); without it, it keeps kube-runtime's default backoff and retries on its own.

mod common;

use std::collections::BTreeSet;
use std::convert::Infallible;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use common::{FailedRequests, config_map, create_config_map, quiet_options};
use k8s_openapi::api::core::v1::ConfigMap;
use kube::ResourceExt;
use rkb_envtest::{Environment, eventually};
use rkb_runtime::informer::{HandlerFuncs, SharedInformerFactory};
use rkb_runtime::{Context, Manager};

/// How long the API server stays down. The kill ends the open watch (EOF), which kube's watcher restarts at once;
/// on kube-runtime's default backoff (0.8 s doubling, jitter up to twice that) it then retries before 1.6 s and
/// again before 4.8 s: three failed requests or more in the outage.
const OUTAGE: Duration = Duration::from_secs(6);

/// An informer on ConfigMaps labelled `test=<label>`, run by a controller of a manager over a client that counts
/// failed requests, through an outage of [`OUTAGE`]: how many of its requests failed while the API server was
/// down. Asserts that the informer saw a ConfigMap made before the outage and one made after it.
async fn failed_requests_through_an_outage(
    label: &'static str,
    retry_with_manager: bool,
) -> anyhow::Result<usize> {
    let mut env = Environment::start().await?;
    create_config_map(&env.client(), &config_map("before", &[("test", label)])).await;
    let (client, counter) = FailedRequests::client(env.config())?;
    let mgr = Manager::builder(format!("rkb-{label}"))
        .client(client)
        .options(quiet_options())
        .build()
        .await?;
    let seen: Arc<Mutex<BTreeSet<String>>> = Arc::default();
    let recorded = seen.clone();
    mgr.add(move |ctx: Context| async move {
        let mut factory = SharedInformerFactory::builder(ctx.client())
            .namespace("default")
            .tweak_list_options(move |c| c.labels(&format!("test={label}")));
        if retry_with_manager {
            factory = factory.retry_with_manager(&ctx);
        }
        let factory = factory.build();
        factory
            .informer::<ConfigMap>()
            .add_event_handler(HandlerFuncs::new().on_add(move |cm: &Arc<ConfigMap>, _| {
                recorded.lock().unwrap().insert(cm.name_any());
            }));
        factory.start();
        ctx.shutdown_signal().await;
        factory.shutdown().await;
        Ok::<_, Infallible>(())
    });
    let running = mgr.spawn();
    let observed = |name: &'static str| {
        let seen = seen.clone();
        eventually(name, Duration::from_secs(30), move || {
            let done = seen.lock().unwrap().contains(name);
            async move { Ok::<_, Infallible>(done.then_some(())) }
        })
    };
    observed("before").await?;

    let failed = counter.through_outage(&mut env, OUTAGE).await?;

    // Back: the informer watches again and sees what is made now.
    create_config_map(&env.client(), &config_map("after", &[("test", label)])).await;
    observed("after").await?;
    running.stop().await?;
    Ok(failed)
}

/// With the manager's context, the first request after the cut fails and marks the outage; the informer then
/// sends nothing until the manager's prober gets an answer, and resumes.
#[tokio::test]
async fn an_informer_with_the_managers_context_waits_for_its_prober() -> anyhow::Result<()> {
    let failed = failed_requests_through_an_outage("informer-outage-manager", true).await?;
    assert!(
        (1..=2).contains(&failed),
        "{failed} failed informer requests in a {OUTAGE:?} outage"
    );
    Ok(())
}

/// Without it, the informer keeps kube-runtime's default backoff, as before the option: it asks the server that
/// is gone again and again, and still resumes.
#[tokio::test]
async fn an_informer_without_it_retries_on_its_own_backoff() -> anyhow::Result<()> {
    let failed = failed_requests_through_an_outage("informer-outage-default", false).await?;
    assert!(
        failed >= 3,
        "{failed} failed informer requests in a {OUTAGE:?} outage"
    );
    Ok(())
}

/// An informer given the context of a manager that has since stopped has no prober to wait for: through an
/// outage it falls back to its own backoff (a few failed requests), instead of retrying in a loop that the gone
/// manager's shutdown would release at once.
#[tokio::test]
async fn an_informer_that_outlives_its_manager_retries_on_its_own_backoff() -> anyhow::Result<()> {
    let mut env = Environment::start().await?;
    let label = ("test", "informer-outage-stopped");
    create_config_map(&env.client(), &config_map("before", &[label])).await;
    let (client, counter) = FailedRequests::client(env.config())?;
    let mgr = Manager::builder("rkb-informer-outage-stopped")
        .client(client.clone())
        .options(quiet_options())
        .build()
        .await?;
    let factory = SharedInformerFactory::builder(client)
        .namespace("default")
        .tweak_list_options(|c| c.labels("test=informer-outage-stopped"))
        .retry_with_manager(&mgr.context())
        .build();
    let lister = factory.informer::<ConfigMap>().lister();
    factory.start();
    mgr.spawn().stop().await?;
    let cached = |name: &'static str| {
        let lister = lister.clone();
        eventually(name, Duration::from_secs(30), move || {
            let done = lister.list_all().iter().any(|c| c.name_any() == name);
            async move { Ok::<_, Infallible>(done.then_some(())) }
        })
    };
    cached("before").await?;

    let failed = counter.through_outage(&mut env, OUTAGE).await?;
    // The default backoff's schedule fits at most four attempts (0 s, 0.8 s, 2.4 s, 5.6 s at the earliest) in the
    // outage, one more while the new server starts; a loop without a pause makes hundreds.
    assert!(
        (1..=5).contains(&failed),
        "{failed} failed informer requests in a {OUTAGE:?} outage"
    );
    create_config_map(&env.client(), &config_map("after", &[label])).await;
    cached("after").await?;
    factory.shutdown().await;
    Ok(())
}
