//! Reconcile behaviour against a real API server: error backoff, reset on success, graceful shutdown.

mod common;

use std::convert::Infallible;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use common::{config_map, create_config_map, quiet_options, touch_config_map};
use k8s_openapi::api::core::v1::ConfigMap;
use kube::runtime::watcher;
use rkb_envtest::{Environment, eventually};
use rkb_runtime::{Action, BoxError, Context, Controller, Manager, RunningManager};
use tokio::sync::oneshot;

/// When each reconcile ran and what data.k it saw.
#[derive(Clone, Default)]
struct Attempts(Arc<Mutex<Vec<(Instant, String)>>>);

impl Attempts {
    fn times(&self, value: &str) -> Vec<Instant> {
        let attempts = self.0.lock().unwrap();
        attempts
            .iter()
            .filter(|(_, v)| v == value)
            .map(|(t, _)| *t)
            .collect()
    }

    fn count(&self, value: &str) -> usize {
        self.times(value).len()
    }
}

/// A manager whose controller reconciles the ConfigMaps labelled `test=<label>`, recording every attempt, and
/// fails while data.k starts with "fail".
async fn spawn_recording_controller(
    client: &kube::Client,
    label: &str,
) -> (RunningManager, Attempts) {
    let attempts = Attempts::default();
    let mgr = Manager::builder(format!("rkb-{label}-test"))
        .client(client.clone())
        .options(quiet_options())
        .build()
        .await
        .expect("build manager");
    let (recorded, selector) = (attempts.clone(), format!("test={label}"));
    mgr.add(move |ctx: Context| async move {
        Controller::for_kind_with::<ConfigMap>(&ctx, watcher::Config::default().labels(&selector))
            .run(move |cm: Arc<ConfigMap>, _ctx| {
                let recorded = recorded.clone();
                async move {
                    let value = cm
                        .data
                        .as_ref()
                        .and_then(|d| d.get("k").cloned())
                        .unwrap_or_default();
                    recorded
                        .0
                        .lock()
                        .unwrap()
                        .push((Instant::now(), value.clone()));
                    if value.starts_with("fail") {
                        return Err::<Action, BoxError>(format!("failing on {value}").into());
                    }
                    Ok(Action::await_change())
                }
            })
            .await
    });
    (mgr.spawn(), attempts)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_failing_reconcile_is_retried_with_growing_intervals_and_resets_on_success() {
    let env = Environment::start().await.expect("envtest");
    let client = env.client();
    create_config_map(&client, &config_map("flaky", &[("test", "backoff")])).await;

    let (running, attempts) = spawn_recording_controller(&client, "backoff").await;
    eventually("first reconcile", Duration::from_secs(20), || {
        let n = attempts.count("v");
        async move { Ok::<_, Infallible>((n >= 1).then_some(())) }
    })
    .await
    .unwrap();

    touch_config_map(&client, "flaky", "fail").await;
    // 5 ms doubling: attempts 1..=10 need 5+10+...+2560 ms ≈ 5.1 s after the first failure.
    eventually("ten failing attempts", Duration::from_secs(20), || {
        let n = attempts.count("fail");
        async move { Ok::<_, Infallible>((n >= 10).then_some(())) }
    })
    .await
    .unwrap();
    let times: Vec<Instant> = attempts.times("fail").into_iter().take(10).collect();
    let intervals: Vec<Duration> = times.windows(2).map(|w| w[1] - w[0]).collect();
    eprintln!("retry intervals: {intervals:?}");
    for (i, interval) in intervals.iter().enumerate() {
        // The i-th retry waits at least 5 ms * 2^i (timers never fire early).
        let floor = Duration::from_millis(5) * (1 << i);
        assert!(
            *interval >= floor,
            "retry {i} after {interval:?} < {floor:?}: {intervals:?}"
        );
    }
    // Growth, tolerant of scheduling noise: each interval beyond the first few exceeds the one two before it,
    // and the last is far beyond the first (no hot loop).
    for i in 4..intervals.len() {
        assert!(
            intervals[i] > intervals[i - 2],
            "intervals do not grow: {intervals:?}"
        );
    }
    assert!(intervals[8] >= Duration::from_millis(1000), "{intervals:?}");

    // A success resets the backoff: the next failure retries after ~5 ms again, not after seconds.
    touch_config_map(&client, "flaky", "ok").await;
    eventually("success", Duration::from_secs(20), || {
        let n = attempts.count("ok");
        async move { Ok::<_, Infallible>((n >= 1).then_some(())) }
    })
    .await
    .unwrap();
    touch_config_map(&client, "flaky", "fail-again").await;
    eventually(
        "two quick failures after the reset",
        Duration::from_secs(5),
        || {
            let n = attempts.count("fail-again");
            async move { Ok::<_, Infallible>((n >= 3).then_some(())) }
        },
    )
    .await
    .unwrap();
    let times = attempts.times("fail-again");
    assert!(
        times[1] - times[0] < Duration::from_millis(500),
        "backoff was not reset"
    );

    running.stop().await.expect("clean stop");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_stop_lets_the_in_flight_reconcile_finish() {
    let env = Environment::start().await.expect("envtest");
    let client = env.client();
    create_config_map(&client, &config_map("slow", &[("test", "graceful")])).await;

    let (started_tx, started_rx) = oneshot::channel::<()>();
    let started_tx = Arc::new(Mutex::new(Some(started_tx)));
    let finished: Arc<Mutex<Option<Instant>>> = Arc::default();
    let mgr = Manager::builder("rkb-graceful-test")
        .client(client.clone())
        .options(quiet_options())
        .build()
        .await
        .expect("build manager");
    let done = finished.clone();
    mgr.add(move |ctx: Context| async move {
        Controller::for_kind_with::<ConfigMap>(
            &ctx,
            watcher::Config::default().labels("test=graceful"),
        )
        .run(move |_cm: Arc<ConfigMap>, _ctx| {
            let (started_tx, done) = (started_tx.clone(), done.clone());
            async move {
                if let Some(tx) = started_tx.lock().unwrap().take() {
                    let _ = tx.send(());
                }
                // Deliberately slow (not a wait for state): the stop below arrives while this runs.
                tokio::time::sleep(Duration::from_millis(1500)).await;
                *done.lock().unwrap() = Some(Instant::now());
                Ok::<_, BoxError>(Action::await_change())
            }
        })
        .await
    });
    let running = mgr.spawn();
    tokio::time::timeout(Duration::from_secs(20), started_rx)
        .await
        .expect("reconcile started")
        .expect("sender kept");
    running.stop().await.expect("clean stop");
    let returned = Instant::now();
    let finished = finished
        .lock()
        .unwrap()
        .expect("the in-flight reconcile was cut short");
    assert!(finished <= returned);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_panicking_reconcile_is_retried_and_counted_as_an_error() {
    let env = Environment::start().await.expect("envtest");
    let client = env.client();
    create_config_map(&client, &config_map("panicky", &[("test", "panic")])).await;

    let attempts = Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let mgr = Manager::builder("rkb-panic-test")
        .client(client.clone())
        .options(quiet_options())
        .build()
        .await
        .expect("build manager");
    let metrics = mgr.metrics().clone();
    let counter = attempts.clone();
    mgr.add(move |ctx: Context| async move {
        Controller::for_kind_with::<ConfigMap>(
            &ctx,
            watcher::Config::default().labels("test=panic"),
        )
        .run(move |_cm: Arc<ConfigMap>, _ctx| {
            let counter = counter.clone();
            async move {
                let n = counter.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
                assert!(n >= 2, "deliberate panic #{n}");
                Ok::<_, BoxError>(Action::await_change())
            }
        })
        .await
    });
    let running = mgr.spawn();

    eventually(
        "a success after two panics",
        Duration::from_secs(20),
        || {
            let text = metrics.encode();
            async move {
                let count = |result: &str| {
                    rkb_runtime::metrics::sample(
                        &text,
                        "controller_runtime_reconcile_total",
                        &[("controller", "configmap"), ("result", result)],
                    )
                };
                Ok::<_, Infallible>(
                    (count("error") == Some(2.0) && count("success") == Some(1.0)).then_some(()),
                )
            }
        },
    )
    .await
    .unwrap();
    assert_eq!(attempts.load(std::sync::atomic::Ordering::SeqCst), 3);
    assert_eq!(
        rkb_runtime::metrics::sample(
            &metrics.encode(),
            "controller_runtime_reconcile_panics_total",
            &[("controller", "configmap")]
        ),
        Some(2.0)
    );

    running.stop().await.expect("clean stop");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_deleted_failing_object_leaves_no_backoff_behind() {
    let env = Environment::start().await.expect("envtest");
    let client = env.client();
    let with_value = |value: &str| {
        let mut cm = config_map("doomed", &[("test", "deleted-backoff")]);
        cm.data = Some([("k".to_string(), value.to_string())].into());
        cm
    };
    create_config_map(&client, &with_value("fail-old")).await;

    let (running, attempts) = spawn_recording_controller(&client, "deleted-backoff").await;

    // Nine failures (5 + 10 + ... + 1280 ms): the tenth retry of this name would wait 2.56 s.
    eventually("nine failures", Duration::from_secs(20), || {
        let n = attempts.count("fail-old");
        async move { Ok::<_, Infallible>((n >= 9).then_some(())) }
    })
    .await
    .unwrap();
    let api: kube::Api<ConfigMap> = kube::Api::namespaced(client.clone(), "default");
    api.delete("doomed", &Default::default()).await.unwrap();
    // At once: kube-runtime does not reconcile deletions, so only the new object's uid tells it apart.
    create_config_map(&client, &with_value("fail-new")).await;

    eventually(
        "two failures of the new object",
        Duration::from_secs(10),
        || {
            let n = attempts.count("fail-new");
            async move { Ok::<_, Infallible>((n >= 2).then_some(())) }
        },
    )
    .await
    .unwrap();
    let times = attempts.times("fail-new");
    assert!(
        times[1] - times[0] < Duration::from_millis(1000),
        "the new object inherited the deleted one's backoff: retried after {:?}",
        times[1] - times[0]
    );
    running.stop().await.expect("clean stop");
}
