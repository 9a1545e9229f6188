//! Informer benchmark (ignored by default): heap held by the cache per 1000 objects, and the
//! latency from a create request to the add handler. Numbers go to docs/benchmarks.md `## informers`.
//!
//! cargo test -p rkb-runtime --test informer_bench -- --ignored --nocapture

use std::alloc::System;
use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::{Duration, Instant};

use futures::{StreamExt, stream};
use k8s_openapi::api::core::v1::{ConfigMap, Namespace};
use k8s_openapi::apimachinery::pkg::apis::meta::v1::ObjectMeta;
use kube::Api;
use kube::runtime::watcher;
use rkb_envtest::Environment;
use rkb_runtime::client::{PostParams, ResourceClient};
use rkb_runtime::informer::{HandlerFuncs, Informer};
use stats_alloc::{INSTRUMENTED_SYSTEM, Region, StatsAlloc};
use tokio::sync::mpsc;

#[global_allocator]
static GLOBAL: &StatsAlloc<System> = &INSTRUMENTED_SYSTEM;

const OBJECTS: usize = 2000;
const LATENCY_SAMPLES: usize = 200;

/// A small, typical object: four labels and a 256-byte value.
fn cm(i: usize) -> ConfigMap {
    ConfigMap {
        metadata: ObjectMeta {
            name: Some(format!("cm-{i:05}")),
            labels: Some(
                [
                    ("app", "bench"),
                    ("tier", "cache"),
                    ("team", "infra"),
                    ("shard", "a"),
                ]
                .iter()
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect(),
            ),
            ..Default::default()
        },
        data: Some(BTreeMap::from([("payload".to_string(), "x".repeat(256))])),
        ..Default::default()
    }
}

fn median(v: &mut [f64]) -> f64 {
    v.sort_by(|a, b| a.partial_cmp(b).unwrap());
    v[v.len() / 2]
}

fn percentile(v: &mut [f64], p: f64) -> f64 {
    v.sort_by(|a, b| a.partial_cmp(b).unwrap());
    v[((v.len() as f64 - 1.0) * p).round() as usize]
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "benchmark; run with --ignored --nocapture"]
async fn informer_memory_and_add_latency() {
    let env = Environment::start().await.expect("envtest");
    let ns: ResourceClient<Namespace> = ResourceClient::all(env.client());
    for name in ["bench", "latency"] {
        let obj = Namespace {
            metadata: ObjectMeta {
                name: Some(name.into()),
                ..Default::default()
            },
            ..Default::default()
        };
        ns.create(&obj, &PostParams::default()).await.unwrap();
    }
    let cms: ResourceClient<ConfigMap> = ResourceClient::namespaced(env.client(), "bench");
    stream::iter(0..OBJECTS)
        .map(|i| {
            let cms = cms.clone();
            async move { cms.create(&cm(i), &PostParams::default()).await.unwrap() }
        })
        .buffer_unordered(16)
        .collect::<Vec<_>>()
        .await;
    let json_bytes = serde_json::to_vec(&cms.get("cm-00000").await.unwrap())
        .unwrap()
        .len();

    // Heap held after sync, net of everything freed (list pages, decode buffers); with and
    // without managedFields.
    let mut per_1000 = Vec::new();
    let mut per_1000_stripped = Vec::new();
    for run in 0..10 {
        let stripped = run % 2 == 1;
        let region = Region::new(GLOBAL);
        let mut informer = Informer::<ConfigMap>::new(
            Api::namespaced(env.client(), "bench"),
            watcher::Config::default(),
            None,
        );
        if stripped {
            informer = informer.strip_managed_fields();
        }
        informer.start();
        assert!(informer.wait_for_sync().await);
        assert_eq!(informer.lister().len(), OBJECTS);
        tokio::time::sleep(Duration::from_millis(300)).await;
        let s = region.change();
        let held =
            s.bytes_allocated as f64 + s.bytes_reallocated as f64 - s.bytes_deallocated as f64;
        let v = held / OBJECTS as f64 * 1000.0;
        if stripped {
            per_1000_stripped.push(v);
        } else {
            per_1000.push(v);
        }
        informer.stop().await;
        drop(informer);
    }

    // Latency: create sent -> add handler running, and create acknowledged -> add handler.
    let informer = Informer::<ConfigMap>::new(
        Api::namespaced(env.client(), "latency"),
        watcher::Config::default(),
        None,
    );
    let (tx, mut rx) = mpsc::unbounded_channel::<Instant>();
    informer.add_event_handler(HandlerFuncs::new().on_add(move |_: &Arc<ConfigMap>, _| {
        let _ = tx.send(Instant::now());
    }));
    informer.start();
    assert!(informer.wait_for_sync().await);
    let lat: ResourceClient<ConfigMap> = ResourceClient::namespaced(env.client(), "latency");
    let (mut from_send, mut from_ack) = (Vec::new(), Vec::new());
    for i in 0..LATENCY_SAMPLES {
        let sent = Instant::now();
        lat.create(&cm(i), &PostParams::default()).await.unwrap();
        let acked = Instant::now();
        let handled = tokio::time::timeout(Duration::from_secs(10), rx.recv())
            .await
            .unwrap()
            .unwrap();
        from_send.push(handled.duration_since(sent).as_secs_f64() * 1e3);
        from_ack.push(handled.saturating_duration_since(acked).as_secs_f64() * 1e3);
    }
    informer.stop().await;

    let mem = median(&mut per_1000);
    let mem_stripped = median(&mut per_1000_stripped);
    println!("objects cached: {OBJECTS} ConfigMaps, {json_bytes} bytes of JSON each");
    println!(
        "informer heap per 1000 objects: median {:.0} KiB over {} runs (min {:.0}, max {:.0})",
        mem / 1024.0,
        per_1000.len(),
        per_1000.first().unwrap() / 1024.0,
        per_1000.last().unwrap() / 1024.0
    );
    println!(
        "  with strip_managed_fields: median {:.0} KiB",
        mem_stripped / 1024.0
    );
    println!(
        "create sent -> add handler: median {:.2} ms, p90 {:.2} ms ({LATENCY_SAMPLES} samples)",
        median(&mut from_send),
        percentile(&mut from_send, 0.9)
    );
    println!(
        "create acknowledged -> add handler: median {:.2} ms, p90 {:.2} ms",
        median(&mut from_ack),
        percentile(&mut from_ack, 0.9)
    );
    assert!(mem > 0.0 && mem_stripped < mem);
}
