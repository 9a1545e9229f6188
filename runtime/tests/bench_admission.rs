//! Admission round trip through a real API server: the latency of a create without webhooks, then with a defaulting
//! and a validating webhook served by the manager (each create waits for both). Ignored by default; run with
//! `cargo test -p rkb-runtime --release --test bench_admission -- --ignored --nocapture`.

mod common;

use std::time::{Duration, Instant};

use common::kinds::{GADGET_CRD, GADGET_WEBHOOKS, Gadget, NS};
use common::quiet_options;
use kube::Api;
use kube::api::PostParams;
use rkb_envtest::{Environment, eventually};
use rkb_runtime::webhook::{Defaulter, Denied, Validator, Verdict, Webhooks};
use rkb_runtime::{Manager, ManagerOptions};

const CREATES: usize = 1000;

struct Defaults;

impl Defaulter<Gadget> for Defaults {
    async fn set_defaults(&self, gadget: &mut Gadget) -> Result<(), Denied> {
        gadget.spec.replicas.get_or_insert(1);
        Ok(())
    }
}

struct Checks;

impl Validator<Gadget> for Checks {
    async fn validate_create(&self, gadget: &Gadget) -> Verdict {
        if gadget.spec.replicas.unwrap_or(0) > 10 {
            return Err("too many replicas".into());
        }
        Ok(Vec::new())
    }
}

/// A Gadget the webhooks pass unchanged but for the default replicas.
fn gadget(name: &str) -> Gadget {
    Gadget::new(name, "nginx:1.27", None)
}

/// Latencies of `CREATES` sequential creates, sorted.
async fn creates(api: &Api<Gadget>, prefix: &str) -> Vec<Duration> {
    let mut took = Vec::with_capacity(CREATES);
    for i in 0..CREATES {
        let started = Instant::now();
        api.create(&PostParams::default(), &gadget(&format!("{prefix}-{i}")))
            .await
            .expect("create");
        took.push(started.elapsed());
    }
    took.sort();
    took
}

fn percentile(sorted: &[Duration], p: f64) -> Duration {
    sorted[((sorted.len() as f64 * p).ceil() as usize).clamp(1, sorted.len()) - 1]
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "benchmark; run with --ignored --release"]
async fn bench_admission_round_trip() {
    let env = Environment::start().await.expect("envtest");
    env.install_crds_yaml(GADGET_CRD)
        .await
        .expect("install CRD");
    let api: Api<Gadget> = Api::namespaced(env.client(), NS);
    // Warm the API server's paths for this kind.
    for i in 0..50 {
        api.create(&PostParams::default(), &gadget(&format!("warm-{i}")))
            .await
            .unwrap();
    }
    let without = creates(&api, "plain").await;

    let server = env
        .install_webhooks(GADGET_WEBHOOKS)
        .await
        .expect("install webhooks");
    let options = ManagerOptions {
        webhook_port: server.port,
        webhook_cert_path: server.cert_dir.clone(),
        ..quiet_options()
    };
    let mgr = Manager::builder("bench-admission")
        .client(env.client())
        .options(options)
        .build()
        .await
        .unwrap();
    mgr.serve_webhooks(
        Webhooks::new()
            .defaulter::<Gadget, _>(Defaults)
            .validator::<Gadget, _>(Checks),
    );
    let running = mgr.spawn();
    let first = eventually("the webhooks answer", Duration::from_secs(30), || async {
        api.create(&PostParams::default(), &gadget("first"))
            .await
            .map(Some)
    })
    .await
    .unwrap();
    assert_eq!(first.spec.replicas, Some(1), "the defaulter ran");
    for i in 0..50 {
        api.create(&PostParams::default(), &gadget(&format!("warm-hooked-{i}")))
            .await
            .unwrap();
    }
    let with = creates(&api, "hooked").await;
    running.stop().await.unwrap();

    println!("| creates ({CREATES}, sequential) | p50 | p99 |");
    println!("|---|---:|---:|");
    for (name, sorted) in [
        ("without webhooks", &without),
        ("with a defaulting and a validating webhook", &with),
    ] {
        println!(
            "| {name} | {:.2} ms | {:.2} ms |",
            percentile(sorted, 0.50).as_secs_f64() * 1e3,
            percentile(sorted, 0.99).as_secs_f64() * 1e3
        );
    }
}
