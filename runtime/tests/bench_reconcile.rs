//! Reconcile throughput of the runtime's controller (leader gating, backoff, metrics and all) against a real API
//! server: N ConfigMaps, time until each has been reconciled once. Ignored by default; run with
//! `cargo test -p rkb-runtime --release --test bench_reconcile -- --ignored --nocapture`.

mod common;

use std::convert::Infallible;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, OnceLock};
use std::time::{Duration, Instant};

use common::{config_map, quiet_options};
use k8s_openapi::api::core::v1::ConfigMap;
use kube::Api;
use kube::api::PostParams;
use kube::runtime::watcher;
use rkb_envtest::{Environment, eventually};
use rkb_runtime::{Action, BoxError, Context, Controller, Manager};

const OBJECTS: usize = 500;

async fn time_to_reconcile_all(client: &kube::Client, label: &str, concurrency: u16) -> Duration {
    let done = Arc::new(AtomicUsize::new(0));
    let last: Arc<OnceLock<Instant>> = Arc::default();
    let last_set = last.clone();
    let mgr = Manager::builder(format!("bench-{label}"))
        .client(client.clone())
        .options(quiet_options())
        .build()
        .await
        .unwrap();
    let counter = done.clone();
    let selector = format!("bench={label}");
    mgr.add(move |ctx: Context| async move {
        Controller::for_kind_with::<ConfigMap>(&ctx, watcher::Config::default().labels(&selector))
            .concurrency(concurrency)
            .run(move |_cm: Arc<ConfigMap>, _ctx| {
                let (counter, last) = (counter.clone(), last_set.clone());
                async move {
                    if counter.fetch_add(1, Ordering::Relaxed) + 1 == OBJECTS {
                        let _ = last.set(Instant::now());
                    }
                    Ok::<_, BoxError>(Action::await_change())
                }
            })
            .await
    });
    let start = Instant::now();
    let running = mgr.spawn();
    eventually("all reconciled", Duration::from_secs(120), || {
        let n = done.load(Ordering::Relaxed);
        async move { Ok::<_, Infallible>((n >= OBJECTS).then_some(())) }
    })
    .await
    .unwrap();
    let took = *last.get().expect("last reconcile time") - start;
    running.stop().await.unwrap();
    took
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "benchmark"]
async fn bench_initial_reconcile_of_500_config_maps() {
    let env = Environment::start().await.expect("envtest");
    let client = env.client();
    let api: Api<ConfigMap> = Api::namespaced(client.clone(), "default");
    for i in 0..OBJECTS {
        api.create(
            &PostParams::default(),
            &config_map(&format!("bench-{i}"), &[("bench", "b")]),
        )
        .await
        .unwrap();
    }
    for concurrency in [1u16, 4] {
        let mut runs: Vec<Duration> = Vec::new();
        for _ in 0..3 {
            runs.push(time_to_reconcile_all(&client, "b", concurrency).await);
        }
        runs.sort();
        eprintln!(
            "concurrency {concurrency}: {OBJECTS} objects listed + reconciled once, median {:?} (runs {runs:?})",
            runs[1]
        );
    }
}
