//! Watches that cannot resume. kube-apiserver runs without its watch cache (watches read etcd) and compacts etcd
//! every second. The test's ConfigMaps change, then stay quiet while other writes move the revision on and
//! compaction passes their last change; then kube-apiserver is killed and started again, so every watch resumes from a compacted
//! resourceVersion (410 Gone) and must list again, while the ConfigMaps change once more. The controller must still
//! see the last state of every object.
//!
//! The manager lists (`streaming_lists(false)`): this test is about resuming past compaction. Without a watch cache a
//! streaming relist can stall before the bookmark that ends it; the fallback to a list after such a stall
//! (informer/initial_list.rs) is unit-tested there, and under a loaded CI machine its 10 s bound, three restarts
//! and the watcher's backoff did not always fit this test's deadline.

mod common;

use std::collections::HashMap;
use std::convert::Infallible;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use common::{config_map, create_config_map, quiet_options, touch_config_map};
use futures::StreamExt;
use k8s_openapi::api::core::v1::{ConfigMap, Secret};
use kube::api::{Api, PostParams};
use kube::runtime::{WatchStreamExt, watcher};
use kube::{Client, ResourceExt};
use rkb_envtest::{Environment, eventually};
use rkb_runtime::{Action, Context, Controller, Manager};

const LABEL: &str = "test=compaction";
const OBJECTS: usize = 8;

/// Counts the lists (initial and after a watch could not resume) of a plain watcher of the test's ConfigMaps, until
/// the returned task is aborted.
fn count_lists(client: Client) -> (Arc<Mutex<usize>>, tokio::task::JoinHandle<()>) {
    let lists = Arc::new(Mutex::new(0));
    let counted = lists.clone();
    let api: Api<ConfigMap> = Api::namespaced(client, "default");
    let events = watcher(api, watcher::Config::default().labels(LABEL)).default_backoff();
    let task = tokio::spawn(events.for_each(move |event| {
        if let Ok(watcher::Event::Init) = event {
            *counted.lock().unwrap() += 1;
        }
        futures::future::ready(())
    }));
    (lists, task)
}

/// Writes that move etcd's revision on without touching the test's ConfigMaps.
async fn unrelated_writes(client: &Client, round: usize) {
    let secrets: Api<Secret> = Api::namespaced(client.clone(), "default");
    let mut secret = Secret::default();
    secret.metadata.name = Some(format!("filler-{round}"));
    secrets
        .create(&PostParams::default(), &secret)
        .await
        .expect("create a Secret");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_watch_past_compaction_lists_again_and_misses_no_change() {
    let mut env = Environment::builder()
        .apiserver_arg("--watch-cache=false")
        .apiserver_arg("--etcd-compaction-interval=1s")
        .start()
        .await
        .expect("envtest");
    let client = env.client();
    for i in 0..OBJECTS {
        create_config_map(
            &client,
            &config_map(&format!("cm-{i}"), &[("test", "compaction")]),
        )
        .await;
    }
    let (lists, counting) = count_lists(client.clone());
    // The controller records the data it last reconciled, per ConfigMap.
    let seen: Arc<Mutex<HashMap<String, String>>> = Arc::default();
    let mgr = Manager::builder("rkb-compaction-test")
        .client(client.clone())
        .streaming_lists(false)
        .options(quiet_options())
        .build()
        .await
        .expect("build manager");
    let recorded = seen.clone();
    mgr.add(move |ctx: Context| async move {
        Controller::for_kind_with::<ConfigMap>(&ctx, watcher::Config::default().labels(LABEL))
            .run(move |cm: Arc<ConfigMap>, _| {
                let value = cm.data.as_ref().and_then(|d| d.get("k")).cloned();
                recorded
                    .lock()
                    .unwrap()
                    .insert(cm.name_any(), value.unwrap_or_default());
                async { Ok::<_, Infallible>(Action::await_change()) }
            })
            .await
    });
    let running = mgr.spawn();

    // Rounds of one change per ConfigMap, a quiet spell for them (other writes only, paced so compaction passes
    // their last revision), and a restart of kube-apiserver that breaks every watch.
    for round in 0..3 {
        for i in 0..OBJECTS {
            touch_config_map(&client, &format!("cm-{i}"), &format!("round-{round}")).await;
        }
        for filler in 0..10 {
            unrelated_writes(&client, round * 100 + filler).await;
            tokio::time::sleep(Duration::from_millis(250)).await;
        }
        env.kill_and_restart_apiserver()
            .await
            .expect("restart kube-apiserver");
    }
    // Changed while the watches come back: only a list shows these.
    for i in 0..OBJECTS {
        touch_config_map(&client, &format!("cm-{i}"), "last").await;
    }
    // The witness lists once at its start, then again after each restart whose resume point was compacted.
    eventually(
        "a watch to list again (else the scenario did not happen)",
        Duration::from_secs(30),
        || {
            let relisted = *lists.lock().unwrap() >= 2;
            async move { Ok::<_, Infallible>(relisted.then_some(())) }
        },
    )
    .await
    .unwrap();
    eventually(
        "the controller to see every last change",
        Duration::from_secs(30),
        || {
            let seen = seen.clone();
            async move {
                let seen = seen.lock().unwrap();
                let all = (0..OBJECTS)
                    .all(|i| seen.get(&format!("cm-{i}")).map(String::as_str) == Some("last"));
                Ok::<_, Infallible>(all.then_some(()))
            }
        },
    )
    .await
    .unwrap();
    running.stop().await.expect("manager stops cleanly");
    counting.abort();
}
