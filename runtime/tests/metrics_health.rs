//! /metrics and /readyz of a running manager against a real API server.

mod common;

use std::convert::Infallible;
use std::sync::Arc;
use std::time::Duration;

use common::{config_map, create_config_map, http_get, quiet_options, touch_config_map};
use k8s_openapi::api::core::v1::ConfigMap;
use kube::ResourceExt;
use kube::runtime::watcher;
use rkb_envtest::{Environment, eventually};
use rkb_runtime::metrics::sample;
use rkb_runtime::{Action, BoxError, Context, Controller, Manager, ManagerOptions};
use tokio::sync::oneshot;

fn count(text: &str, result: &str) -> f64 {
    sample(
        text,
        "controller_runtime_reconcile_total",
        &[("controller", "configmap"), ("result", result)],
    )
    .unwrap_or(-1.0)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn metrics_move_with_reconciles_and_readyz_flips_after_the_cache_syncs() {
    let env = Environment::start().await.expect("envtest");
    let client = env.client();
    create_config_map(&client, &config_map("good", &[("test", "metrics")])).await;

    let options = ManagerOptions {
        metrics_bind_address: "127.0.0.1:0".into(),
        health_probe_bind_address: "127.0.0.1:0".into(),
        ..quiet_options()
    };
    // From a configuration, as in production: the manager's own client reports rest_client_* metrics.
    let mgr = Manager::builder("rkb-metrics-test")
        .config(env.config().clone())
        .options(options)
        .build()
        .await
        .expect("build manager");
    let (metrics_addr, health_addr) = (mgr.metrics_addr().unwrap(), mgr.health_addr().unwrap());
    // The controller waits for the test's go-ahead, so /readyz can be seen before the cache syncs.
    let (go_tx, go_rx) = oneshot::channel::<()>();
    mgr.add(move |ctx: Context| async move {
        // Building the controller gates readiness on its cache, before it waits for the go-ahead.
        let controller = Controller::for_kind_with::<ConfigMap>(
            &ctx,
            watcher::Config::default().labels("test=metrics"),
        );
        let _ = go_rx.await;
        controller
            .run(|cm: Arc<ConfigMap>, _ctx| async move {
                if cm.name_any().starts_with("bad") {
                    return Err::<Action, BoxError>("this one always fails".into());
                }
                Ok(Action::await_change())
            })
            .await
    });
    let running = mgr.spawn();

    let healthz = eventually(
        "/healthz answering",
        Duration::from_secs(10),
        || async move {
            // Not listening yet is "not yet" (and the last error, should it never listen).
            std::net::TcpStream::connect(health_addr)?;
            Ok::<_, std::io::Error>(Some(http_get(health_addr, "/healthz").await))
        },
    )
    .await
    .unwrap();
    assert_eq!(healthz, (200, "ok".to_string()));
    // Not ready until the controller's cache syncs: first because it has not started (it is unnamed then), then
    // because it gated readiness on its cache.
    eventually(
        "/readyz to wait for the configmap controller's cache",
        Duration::from_secs(10),
        || async move {
            let (status, body) = http_get(health_addr, "/readyz").await;
            assert_eq!(status, 503, "ready before the cache synced: {body}");
            Ok::<_, Infallible>(body.contains("configmap").then_some(()))
        },
    )
    .await
    .unwrap();

    let _ = go_tx.send(());
    eventually("/readyz to flip", Duration::from_secs(20), || async move {
        Ok::<_, Infallible>((http_get(health_addr, "/readyz").await.0 == 200).then_some(()))
    })
    .await
    .unwrap();

    // One success for "good".
    let text = scrape_until("a successful reconcile", metrics_addr, |text| {
        count(text, "success") >= 1.0
    })
    .await;
    assert_eq!(count(&text, "error"), 0.0);
    assert_eq!(
        sample(
            &text,
            "controller_runtime_reconcile_errors_total",
            &[("controller", "configmap")]
        ),
        Some(0.0)
    );
    assert_eq!(
        sample(
            &text,
            "controller_runtime_max_concurrent_reconciles",
            &[("controller", "configmap")]
        ),
        Some(1.0)
    );
    let successes = count(&text, "success");
    // The process families kubebuilder's dashboards read, with real values.
    assert!(
        sample(&text, "process_cpu_seconds_total", &[]).is_some_and(|v| v > 0.0),
        "{text}"
    );
    assert!(sample(&text, "process_resident_memory_bytes", &[]).is_some_and(|v| v > 1e6));
    assert!(sample(&text, "process_open_fds", &[]).is_some_and(|v| v >= 3.0));
    assert!(sample(&text, "process_max_fds", &[]).is_some_and(|v| v >= 64.0));
    assert!(sample(&text, "process_virtual_memory_bytes", &[]).is_some_and(|v| v > 1e6));
    assert!(sample(&text, "process_start_time_seconds", &[]).is_some_and(|v| v > 1.6e9));
    // The manager's API traffic (the controller's list and watch at least), by code, method and host.
    let host = env.config().cluster_url.authority().unwrap().to_string();
    let gets = sample(
        &text,
        "rest_client_requests_total",
        &[("code", "200"), ("method", "GET"), ("host", &host)],
    );
    assert!(gets.is_some_and(|n| n >= 1.0), "{text}");
    let timed = sample(
        &text,
        "rest_client_request_duration_seconds_count",
        &[("verb", "GET"), ("host", &host)],
    );
    assert!(timed.is_some_and(|n| n >= 1.0), "{text}");

    // A change of "good" is one more success; a failing object moves the error counters.
    touch_config_map(&client, "good", "v2").await;
    create_config_map(&client, &config_map("bad", &[("test", "metrics")])).await;
    let text = scrape_until("errors and another success", metrics_addr, |text| {
        count(text, "error") >= 3.0 && count(text, "success") > successes
    })
    .await;
    let errors = sample(
        &text,
        "controller_runtime_reconcile_errors_total",
        &[("controller", "configmap")],
    )
    .unwrap();
    assert!(errors >= 3.0, "errors_total {errors}");
    let total = count(&text, "success") + count(&text, "error") + count(&text, "requeue_after");
    let observed = sample(
        &text,
        "controller_runtime_reconcile_time_seconds_count",
        &[("controller", "configmap")],
    )
    .unwrap();
    // Reconciles may finish between the counters' and the histogram's encoding, never the other way round.
    assert!(
        observed >= total,
        "histogram count {observed} < reconciles {total}"
    );
    assert!(
        text.contains("# TYPE controller_runtime_active_workers gauge"),
        "{text}"
    );

    running.stop().await.expect("manager stops cleanly");
    // The listeners close with the manager.
    assert!(std::net::TcpStream::connect(metrics_addr).is_err());
}

/// One series of the workqueue_* families of the "configmap" controller.
fn queue(text: &str, family: &str) -> f64 {
    sample(text, family, &[("name", "configmap")]).unwrap_or(-1.0)
}

/// Scrapes /metrics until `ready` holds for the text, and returns that text.
async fn scrape_until(
    what: &str,
    addr: std::net::SocketAddr,
    ready: impl Fn(&str) -> bool,
) -> String {
    let ready = &ready;
    eventually(what, Duration::from_secs(20), || async move {
        let (_, text) = http_get(addr, "/metrics").await;
        Ok::<_, Infallible>(ready(&text).then_some(text))
    })
    .await
    .unwrap()
}

/// The queue kubebuilder's dashboards read: keys wait while the one worker is held by a slow reconcile (depth,
/// unfinished work, longest-running processor), then drain (adds, queue and work durations), and failures count
/// as retries.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn workqueue_families_follow_a_running_controller() {
    let env = Environment::start().await.expect("envtest");
    let client = env.client();
    create_config_map(&client, &config_map("slow", &[("test", "queue")])).await;
    let options = ManagerOptions {
        metrics_bind_address: "127.0.0.1:0".into(),
        ..quiet_options()
    };
    let mgr = Manager::builder("rkb-workqueue-test")
        .client(client.clone())
        .options(options)
        .build()
        .await
        .expect("build manager");
    let metrics_addr = mgr.metrics_addr().unwrap();
    // "slow" holds the controller's one worker until the test releases it.
    let (release, released) = tokio::sync::watch::channel(false);
    mgr.add(move |ctx: Context| async move {
        Controller::for_kind_with::<ConfigMap>(
            &ctx,
            watcher::Config::default().labels("test=queue"),
        )
        .run(move |cm: Arc<ConfigMap>, _ctx| {
            let mut released = released.clone();
            async move {
                match cm.name_any().as_str() {
                    "slow" => drop(released.wait_for(|go| *go).await),
                    "fail" => return Err::<Action, BoxError>("always fails".into()),
                    _ => {}
                }
                Ok(Action::await_change())
            }
        })
        .await
    });
    let running = mgr.spawn();

    scrape_until("slow's reconcile running", metrics_addr, |text| {
        queue(text, "workqueue_unfinished_work_seconds") > 0.0
    })
    .await;
    // While the worker is held, a new object and a change of the running one both wait.
    create_config_map(&client, &config_map("a", &[("test", "queue")])).await;
    touch_config_map(&client, "slow", "v2").await;
    let held = scrape_until("two keys waiting", metrics_addr, |text| {
        queue(text, "workqueue_depth") == 2.0
    })
    .await;
    assert!(
        queue(&held, "workqueue_longest_running_processor_seconds") > 0.0,
        "{held}"
    );
    assert_eq!(queue(&held, "workqueue_adds_total"), 3.0, "{held}");
    assert_eq!(
        queue(&held, "workqueue_work_duration_seconds_count"),
        0.0,
        "{held}"
    );

    release.send(true).unwrap();
    let drained = scrape_until("the queue drained", metrics_addr, |text| {
        queue(text, "workqueue_depth") == 0.0
            && queue(text, "workqueue_work_duration_seconds_count") == 3.0
    })
    .await;
    assert_eq!(
        queue(&drained, "workqueue_queue_duration_seconds_count"),
        3.0,
        "{drained}"
    );
    // No work left running (a reconcile the queue did not count, seen once in CI, ends within the deadline too).
    scrape_until("no unfinished work", metrics_addr, |text| {
        queue(text, "workqueue_unfinished_work_seconds") == 0.0
    })
    .await;
    assert_eq!(queue(&drained, "workqueue_retries_total"), 0.0, "{drained}");

    create_config_map(&client, &config_map("fail", &[("test", "queue")])).await;
    let failing = scrape_until("retries of the failing object", metrics_addr, |text| {
        queue(text, "workqueue_retries_total") >= 3.0
    })
    .await;
    // Each retry is an add once its delay has passed: the first add of "fail", then at least two of its retries.
    assert!(queue(&failing, "workqueue_adds_total") >= 6.0, "{failing}");

    running.stop().await.expect("manager stops cleanly");
}
