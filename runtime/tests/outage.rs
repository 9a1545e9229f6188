//! An API server outage in the middle of a run (kube-apiserver stopped and started again): the failures it causes
//! are not retried object by object into a server that is gone, whatever error type the reconciler wraps them in;
//! reconciles wait for it, and every object converges once it answers.

mod common;

use std::collections::BTreeSet;
use std::convert::Infallible;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use common::{FailedRequests, config_map, create_config_map, quiet_options};
use k8s_openapi::api::core::v1::ConfigMap;
use kube::ResourceExt;
use kube::api::{Patch, PatchParams};
use kube::runtime::watcher;
use rkb_envtest::{Environment, eventually};
use rkb_runtime::{Action, Api, Context, Controller, Manager};
use serde_json::json;

const OBJECTS: usize = 20;

/// What the reconciler returns, written as operators write their errors: the context in the message, the
/// kube::Error as the source.
#[derive(Debug, thiserror::Error)]
#[error("annotating ConfigMap {name}")]
struct AnnotateFailed {
    name: String,
    #[source]
    source: kube::Error,
}

#[tokio::test]
async fn an_outage_pauses_reconciles_until_the_api_server_answers() -> anyhow::Result<()> {
    let mut env = Environment::start().await?;
    let client = env.client();
    for i in 0..OBJECTS {
        create_config_map(
            &client,
            &config_map(&format!("cm-{i}"), &[("test", "outage")]),
        )
        .await;
    }
    let failures = Arc::new(AtomicUsize::new(0));
    let written: Arc<Mutex<BTreeSet<String>>> = Arc::default();
    let mgr = Manager::builder("rkb-outage-test")
        .client(client.clone())
        .options(quiet_options())
        .build()
        .await?;
    let (counted, recorded) = (failures.clone(), written.clone());
    mgr.add(move |ctx: Context| async move {
        let selector = watcher::Config::default().labels("test=outage");
        Controller::for_kind_with::<ConfigMap>(&ctx, selector)
            .run(move |cm: Arc<ConfigMap>, ctx: Context| {
                let (counted, recorded) = (counted.clone(), recorded.clone());
                async move {
                    // A write on every pass, again and again: each fails while the API server is gone.
                    let api: Api<ConfigMap> = ctx.api_in("default");
                    let patch = json!({"metadata": {"annotations": {"rkb.test/seen": "yes"}}});
                    let name = cm.name_any();
                    // An operator's own error type: the outage is found in its source() chain (failure.rs).
                    api.patch(&name, &PatchParams::default(), &Patch::Merge(&patch))
                        .await
                        .map_err(|source| {
                            counted.fetch_add(1, Ordering::SeqCst);
                            AnnotateFailed { name, source }
                        })?;
                    recorded.lock().unwrap().insert(cm.name_any());
                    Ok::<_, AnnotateFailed>(Action::requeue(Duration::from_millis(300)))
                }
            })
            .await
    });
    let running = mgr.spawn();
    let all_written = |what: &'static str| {
        let written = written.clone();
        eventually(what, Duration::from_secs(30), move || {
            let n = written.lock().unwrap().len();
            async move { Ok::<_, Infallible>((n == OBJECTS).then_some(())) }
        })
    };
    all_written("every object is written").await?;

    // Without the pause, each failed object retries on its own backoff (5 ms doubling) and drains the overall
    // bucket (burst 100): 260 failed writes in one measured restart. With it, an object fails once and then waits
    // for the server, and so does every other (1 in the same run); at most one per object may fail.
    env.restart_apiserver().await?;
    let failed = failures.load(Ordering::SeqCst);
    assert!(
        (1..=OBJECTS).contains(&failed),
        "{failed} failed writes of {OBJECTS} objects while the API server restarted"
    );

    // Back: every object is written again, without waiting out a drained rate limiter.
    written.lock().unwrap().clear();
    all_written("every object is written after the outage").await?;

    running.stop().await?;
    Ok(())
}

/// A watch cut by an outage waits for the manager's prober instead of retrying on its own backoff (0.8 s
/// doubling: three or more failed attempts in a 6 s outage, and a resume seconds after the server is back), and
/// the controller sees what changed once the server answers.
#[tokio::test]
async fn watches_wait_for_the_prober_through_an_outage() -> anyhow::Result<()> {
    let mut env = Environment::start().await?;
    let label = ("test", "outage-watch");
    create_config_map(&env.client(), &config_map("before", &[label])).await;
    let (client, counter) = FailedRequests::client(env.config())?;
    let mgr = Manager::builder("rkb-outage-watch-test")
        .client(client)
        .options(quiet_options())
        .build()
        .await?;
    let seen: Arc<Mutex<BTreeSet<String>>> = Arc::default();
    let recorded = seen.clone();
    mgr.add(move |ctx: Context| async move {
        let selector = watcher::Config::default().labels("test=outage-watch");
        Controller::for_kind_with::<ConfigMap>(&ctx, selector)
            .run(move |cm: Arc<ConfigMap>, _ctx: Context| {
                recorded.lock().unwrap().insert(cm.name_any());
                async { Ok::<_, kube::Error>(Action::await_change()) }
            })
            .await
    });
    let running = mgr.spawn();
    let reconciled = |name: &'static str| {
        let seen = seen.clone();
        eventually(name, Duration::from_secs(30), move || {
            let done = seen.lock().unwrap().contains(name);
            async move { Ok::<_, Infallible>(done.then_some(())) }
        })
    };
    reconciled("before").await?;

    let failed = counter
        .through_outage(&mut env, Duration::from_secs(6))
        .await?;
    // The first attempt after the cut fails and marks the outage; the next waits for the prober's answer.
    assert!(
        (1..=2).contains(&failed),
        "{failed} failed watch requests in a 6 s outage"
    );
    create_config_map(&env.client(), &config_map("after", &[label])).await;
    reconciled("after").await?;
    running.stop().await?;
    Ok(())
}
