//! Recovery from an API server outage: 300 objects written again and again by one controller; kube-apiserver is
//! restarted; the time from it being ready again until every object has been written once more. A/B in one run,
//! alternating: the reconciler's errors are `kube::Error` (the manager recognises the outage and pauses,
//! rkb_runtime::outage), or a `String` the manager cannot look into (charged to each object's backoff and the
//! overall rate limit, as every failure was before). Ignored by default; run with
//! `cargo test -p rkb-runtime --release --test bench_outage -- --ignored --nocapture`.

mod common;

use std::collections::BTreeSet;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use common::{config_map, create_config_map, quiet_options};
use k8s_openapi::api::core::v1::ConfigMap;
use kube::ResourceExt;
use kube::api::{Patch, PatchParams};
use kube::runtime::watcher;
use rkb_envtest::Environment;
use rkb_runtime::{Action, Api, Context, Controller, Manager};
use serde_json::json;

const OBJECTS: usize = 300;
const ROUNDS: usize = 3;

/// Writes an annotation on `cm`; the error as the reconciler returns it.
async fn write(ctx: &Context, cm: &ConfigMap) -> Result<(), kube::Error> {
    let api: Api<ConfigMap> = ctx.api_in("default");
    let patch = json!({"metadata": {"annotations": {"rkb.test/seen": "yes"}}});
    api.patch(
        &cm.name_any(),
        &PatchParams::default(),
        &Patch::Merge(&patch),
    )
    .await
    .map(|_| ())
}

/// One round: a fresh control plane, the objects, a manager, a restart; returns the recovery time.
async fn round(recognised: bool) -> anyhow::Result<Duration> {
    let mut env = Environment::start().await?;
    let client = env.client();
    for i in 0..OBJECTS {
        create_config_map(
            &client,
            &config_map(&format!("cm-{i}"), &[("test", "bench")]),
        )
        .await;
    }
    let written: Arc<Mutex<BTreeSet<String>>> = Arc::default();
    let mgr = Manager::builder("rkb-bench-outage")
        .client(client.clone())
        .options(quiet_options())
        .build()
        .await?;
    let recorded = written.clone();
    mgr.add(move |ctx: Context| async move {
        let selector = watcher::Config::default().labels("test=bench");
        let controller = Controller::for_kind_with::<ConfigMap>(&ctx, selector).concurrency(4);
        if recognised {
            controller
                .run(move |cm: Arc<ConfigMap>, ctx: Context| {
                    let recorded = recorded.clone();
                    async move {
                        write(&ctx, &cm).await?;
                        recorded.lock().unwrap().insert(cm.name_any());
                        Ok::<_, kube::Error>(Action::requeue(Duration::from_secs(1)))
                    }
                })
                .await
        } else {
            controller
                .run(move |cm: Arc<ConfigMap>, ctx: Context| {
                    let recorded = recorded.clone();
                    async move {
                        write(&ctx, &cm).await.map_err(|e| e.to_string())?;
                        recorded.lock().unwrap().insert(cm.name_any());
                        Ok::<_, String>(Action::requeue(Duration::from_secs(1)))
                    }
                })
                .await
        }
    });
    let running = mgr.spawn();
    wait_all(&written, Duration::from_secs(120)).await?;
    env.restart_apiserver().await?;
    written.lock().unwrap().clear();
    let ready = Instant::now();
    wait_all(&written, Duration::from_secs(300)).await?;
    let recovery = ready.elapsed();
    running.stop().await?;
    Ok(recovery)
}

async fn wait_all(written: &Mutex<BTreeSet<String>>, limit: Duration) -> anyhow::Result<()> {
    let deadline = Instant::now() + limit;
    while written.lock().unwrap().len() < OBJECTS {
        anyhow::ensure!(
            Instant::now() < deadline,
            "objects not written within {limit:?}"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    Ok(())
}

fn median(mut v: Vec<Duration>) -> Duration {
    v.sort();
    v[v.len() / 2]
}

#[tokio::test]
#[ignore = "benchmark: run with --ignored --nocapture"]
async fn recovery_after_an_api_server_restart() -> anyhow::Result<()> {
    let (mut paused, mut charged) = (Vec::new(), Vec::new());
    for r in 0..ROUNDS {
        paused.push(round(true).await?);
        charged.push(round(false).await?);
        println!(
            "round {r}: recognised {:?}, charged per object {:?}",
            paused[r], charged[r]
        );
    }
    let (p, c) = (median(paused), median(charged));
    println!(
        "{OBJECTS} objects, median recovery after the API server is ready: recognised (paused) {p:?}, \
         charged per object {c:?}, ratio {:.2}",
        p.as_secs_f64() / c.as_secs_f64()
    );
    Ok(())
}
