//! The sharding benchmark (`shard_probe --bench`): for each replica count, a fresh envtest API server holding
//! `--instances` Probes (created before any replica runs), then that many replicas of this binary started at once;
//! measured: the time from their start until every Probe has its child and the ring is at rest, each replica's
//! resident memory, cached objects and requests (`rest_client_requests_total`), and kube-apiserver's own resident
//! memory, CPU and requests served (from its /metrics).
//!
//! `--bench [--instances 10000] [--replicas 1,2,3] [--work 0ms] [--concurrency 4]`; prints one Markdown table row per replica.

use std::time::{Duration, Instant};

use rkb_envtest::Environment;

use crate::api::v1::Probe;
use crate::harness::{self, Fleet, Replica, Scrape, Timing};

const NAMESPACE: &str = "default";

struct BenchArgs {
    instances: usize,
    replicas: Vec<usize>,
    work: Duration,
    concurrency: u16,
}

fn parse(args: &[String]) -> anyhow::Result<BenchArgs> {
    let mut parsed = BenchArgs {
        instances: 10_000,
        replicas: vec![1, 2, 3],
        work: Duration::ZERO,
        concurrency: 4,
    };
    let mut args = args.iter();
    while let Some(flag) = args.next() {
        let mut value = || {
            args.next()
                .ok_or_else(|| anyhow::anyhow!("{flag} needs a value"))
        };
        match flag.as_str() {
            "--instances" => parsed.instances = value()?.parse()?,
            "--replicas" => {
                parsed.replicas = value()?
                    .split(',')
                    .map(str::parse)
                    .collect::<Result<_, _>>()?
            }
            "--work" => parsed.work = humantime::parse_duration(value()?)?,
            "--concurrency" => parsed.concurrency = value()?.parse()?,
            other => anyhow::bail!(
                "unknown bench flag {other}: --instances N, --replicas 1,2,3, --work DURATION, --concurrency N"
            ),
        }
    }
    Ok(parsed)
}

/// Runs the benchmark for each replica count and prints the table.
pub async fn run(args: &[String]) -> anyhow::Result<()> {
    let args = parse(args)?;
    println!(
        "| replicas | Probes | start to steady state | per-replica RSS (MiB) | per-replica cached | per-replica requests | apiserver RSS (MiB) | apiserver CPU (s) | apiserver requests |"
    );
    println!("|---|---|---|---|---|---|---|---|---|");
    for &count in &args.replicas {
        println!("{}", one_run(&args, count).await?);
    }
    Ok(())
}

/// One replica count on a fresh API server: its table row.
async fn one_run(args: &BenchArgs, count: usize) -> anyhow::Result<String> {
    let env = Environment::builder()
        .crd_yaml(Probe::crd_yaml())
        .start()
        .await?;
    let client = env.client();
    let tmp = tempfile::tempdir()?;
    let fleet = Fleet {
        binary: std::env::current_exe()?,
        kubeconfig: env.kubeconfig_path().to_path_buf(),
        dir: tmp.path().to_path_buf(),
        // The manager's defaults: the benchmark measures steady work, not movement.
        timing: Timing {
            lease: Duration::from_secs(15),
            renew_deadline: Duration::from_secs(10),
            retry: Duration::from_secs(2),
        },
        work: args.work,
        concurrency: args.concurrency,
    };
    harness::create_probes(&client, NAMESPACE, args.instances).await?;
    let started = Instant::now();
    let mut replicas = Vec::new();
    for n in 0..count {
        replicas.push(
            Replica::start(&fleet, &format!("bench-r{n}"))
                .await
                .map_err(anyhow::Error::msg)?,
        );
    }
    let within = Duration::from_secs(1800);
    harness::wait_children(&client, NAMESPACE, args.instances, within)
        .await
        .map_err(anyhow::Error::msg)?;
    let refs: Vec<&Replica> = replicas.iter().collect();
    let cached = harness::wait_balanced(&client, NAMESPACE, &refs, within)
        .await
        .map_err(anyhow::Error::msg)?;
    let steady = started.elapsed();

    let mut rss = Vec::new();
    let mut requests = Vec::new();
    for replica in &replicas {
        let scrape = replica.scrape().await.map_err(anyhow::Error::msg)?;
        rss.push(mib(scrape.value("process_resident_memory_bytes", &[])));
        requests.push(format!("{:.0}", scrape.sum("rest_client_requests_total")));
    }
    let apiserver = Scrape(
        client
            .request_text(http::Request::get("/metrics").body(Vec::new())?)
            .await?,
    );
    let cached: Vec<String> = cached.values().map(usize::to_string).collect();
    Ok(format!(
        "| {count} | {} | {:.1} s | {} | {} | {} | {} | {:.1} | {:.0} |",
        args.instances,
        steady.as_secs_f64(),
        rss.join(", "),
        cached.join(", "),
        requests.join(", "),
        mib(apiserver.value("process_resident_memory_bytes", &[])),
        apiserver
            .value("process_cpu_seconds_total", &[])
            .unwrap_or(0.0),
        apiserver.sum("apiserver_request_total"),
    ))
}

fn mib(bytes: Option<f64>) -> String {
    format!("{:.1}", bytes.unwrap_or(0.0) / 1_048_576.0)
}
