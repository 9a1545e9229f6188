//! Sharding on a real API server (issue #28.4): the shard probe (runtime/examples/shard_probe.rs, a user-style
//! operator with a `.sharded()` controller) runs as separate processes against one envtest kube-apiserver, and
//! its shared reconcile log (shard_probe/trace.rs) is the witness.
//!
//! One test walks the whole life of a ring, because each step starts from the state the last one left:
//! 3 replicas and `SHARDING_INSTANCES` Probes (default 300 for CI; the full run is 3000): every Probe is
//! reconciled, each replica caches about a third (`rkb_shard_objects` from its /metrics; RSS reported); then, with
//! the Probes' spec changing all the time, a 4th replica joins, one leaves gracefully (SIGTERM, exit 0) and one is
//! SIGKILLed: its Probes are reconciled elsewhere within the shard lease duration plus one reconcile. Through all
//! of it, no two replicas' `[start, end]` reconciles of one Probe overlap in the log.
//!
//! The probe binary is built with the cargo running the tests (`cargo build --example shard_probe`), or taken from
//! `SHARD_PROBE_BIN`. Leases are short (4 s) so the kill step takes seconds.

use std::collections::{BTreeMap, BTreeSet};
use std::path::PathBuf;
use std::process::Command;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use kube::api::{Patch, PatchParams};
use kube::{Api, Client};
use rkb_envtest::{Environment, eventually};

// The probe's modules, as the example compiles them; the test uses the reading side of each.
#[path = "../examples/shard_probe/src/api/mod.rs"]
mod api;
#[allow(dead_code)]
#[path = "../examples/shard_probe/harness.rs"]
mod harness;
#[allow(dead_code)]
#[path = "../examples/shard_probe/trace.rs"]
mod trace;

use api::v1::Probe;
use harness::{Fleet, Replica, Timing};

const NAMESPACE: &str = "default";

/// Short leases: a killed replica's objects move after `LEASE`.
const TIMING: Timing = Timing {
    lease: Duration::from_secs(4),
    renew_deadline: Duration::from_secs(3),
    retry: Duration::from_millis(500),
};

/// What "one reconcile" and the sharder's reaction may take on a loaded 2-core CI machine, beyond the lease: the
/// sharder's watch sees the Lease expire on its next look, relabels, and the new member's watch delivers the
/// Probe to a queue that holds other Probes' reconciles (each `WORK` long).
const MOVE_SLACK: Duration = Duration::from_secs(8);

/// How long each reconcile works, and how many each replica runs at once. A reconcile must outlast a move (the
/// sharder's write, the new member's watch event and queue: a few hundred ms) by far, so that with
/// `CHURN_PER_SECOND` spec changes several Probes are mid-reconcile whenever the ring changes and a move that did not
/// wait for the old member (the drain handshake) shows as an overlap; the concurrency keeps the replicas well ahead
/// of the churn all the same (a waiting reconcile costs a timer, not a core).
const WORK: Duration = Duration::from_secs(1);
const CONCURRENCY: u16 = 32;
/// Each change costs one reconcile (the event of the probe's own child apply reconciles nothing); the replicas must
/// keep well ahead of that on a loaded 2-core machine, or moved Probes wait behind the backlog.
const CHURN_PER_SECOND: u64 = 8;

fn instances() -> usize {
    std::env::var("SHARDING_INSTANCES")
        .ok()
        .map(|n| n.parse().expect("SHARDING_INSTANCES is a number"))
        .unwrap_or(300)
}

/// The shard probe binary: `SHARD_PROBE_BIN`, else built by cargo now (its path from cargo's JSON messages).
fn probe_binary() -> PathBuf {
    if let Some(bin) = std::env::var_os("SHARD_PROBE_BIN") {
        return PathBuf::from(bin);
    }
    let out = Command::new(env!("CARGO"))
        .args([
            "build",
            "--quiet",
            "-p",
            "rkb-runtime",
            "--example",
            "shard_probe",
            "--message-format=json",
        ])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .expect("cargo runs");
    assert!(
        out.status.success(),
        "building the shard probe failed:\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
        .find_map(|m| m["executable"].as_str().map(PathBuf::from))
        .expect("cargo names the probe's executable")
}

/// Changes the Probes' spec round-robin, `CHURN_PER_SECOND` a second, until stopped: reconciles keep running while
/// Probes move. (A rate, not a wait: the replicas keep up with it, so moved Probes do not queue behind it.)
fn churn(client: Client, count: usize, stop: Arc<AtomicBool>) -> tokio::task::JoinHandle<usize> {
    tokio::spawn(async move {
        let api: Api<Probe> = Api::namespaced(client, NAMESPACE);
        let mut patches = 0;
        let mut pace = tokio::time::interval(Duration::from_millis(1000 / CHURN_PER_SECOND));
        while !stop.load(Ordering::SeqCst) {
            pace.tick().await;
            let name = format!("probe-{}", patches % count);
            let patch = serde_json::json!({ "spec": { "payload": patches.to_string() } });
            // A failed patch (the server busy) is only a missed change: churn goes on.
            let _ = api
                .patch(&name, &PatchParams::default(), &Patch::Merge(&patch))
                .await;
            patches += 1;
        }
        patches
    })
}

/// The run's directory (replicas' output, the reconcile log), kept when the test fails so it can be read.
struct KeptOnFailure(Option<tempfile::TempDir>);

impl KeptOnFailure {
    fn path(&self) -> PathBuf {
        self.0.as_ref().expect("not dropped").path().to_path_buf()
    }
}

impl Drop for KeptOnFailure {
    fn drop(&mut self) {
        if std::thread::panicking()
            && let Some(dir) = self.0.take()
        {
            eprintln!("kept {}", dir.keep().display());
        }
    }
}

/// Reads the log; fails the test on a line that does not parse.
fn log_lines(fleet: &Fleet) -> Vec<trace::Line> {
    trace::read(&fleet.log()).unwrap_or_else(|e| panic!("{e}"))
}

/// Every Probe key, `default/probe-<n>`.
fn all_keys(count: usize) -> BTreeSet<String> {
    (0..count)
        .map(|n| format!("{NAMESPACE}/probe-{n}"))
        .collect()
}

/// Each replica's cache holds about a third: within 40% of an even share (256 points per member keep consistent
/// hashing's spread well inside that at a few hundred objects).
fn assert_near_even(cached: &BTreeMap<String, usize>, count: usize) {
    let share = count as f64 / cached.len() as f64;
    for (name, n) in cached {
        assert!(
            (*n as f64) > share * 0.6 && (*n as f64) < share * 1.4,
            "{name} caches {n} of {count} Probes, not near {share:.0}: {cached:?}"
        );
    }
    assert_eq!(cached.values().sum::<usize>(), count, "{cached:?}");
}

/// The replicas' resident memory, for the record (a few hundred Probes move it by far less than the process's
/// base; the benchmark at 10,000 shows the split).
async fn report_rss(replicas: &[&Replica]) {
    for replica in replicas {
        let rss = replica
            .scrape()
            .await
            .ok()
            .and_then(|s| s.value("process_resident_memory_bytes", &[]))
            .unwrap_or(0.0);
        eprintln!("{}: RSS {:.1} MiB", replica.name, rss / 1048576.0);
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn replicas_share_probes_move_them_on_join_leave_and_kill_and_never_overlap() {
    let count = instances();
    let binary = probe_binary();
    let env = Environment::builder()
        .crd_yaml(Probe::crd_yaml())
        .start()
        .await
        .expect("envtest");
    let client = env.client();
    let tmp = KeptOnFailure(Some(tempfile::tempdir().unwrap()));
    let fleet = Fleet {
        binary,
        kubeconfig: env.kubeconfig_path().to_path_buf(),
        dir: tmp.path(),
        timing: TIMING,
        work: WORK,
        concurrency: CONCURRENCY,
    };
    eprintln!("outputs and the reconcile log: {}", fleet.dir.display());
    let mut replicas = Vec::new();
    for n in 0..3 {
        replicas.push(
            Replica::start(&fleet, &format!("probe-r{n}"))
                .await
                .unwrap(),
        );
    }
    harness::wait_leader(&client, Duration::from_secs(30))
        .await
        .unwrap();

    // Every Probe reconciled, each replica caching about a third.
    let started = Instant::now();
    harness::create_probes(&client, NAMESPACE, count)
        .await
        .unwrap();
    harness::wait_children(&client, NAMESPACE, count, Duration::from_secs(180))
        .await
        .unwrap();
    let refs: Vec<&Replica> = replicas.iter().collect();
    let cached = harness::wait_balanced(&client, NAMESPACE, &refs, Duration::from_secs(60))
        .await
        .unwrap();
    eprintln!(
        "{count} Probes reconciled in {:?}; cached: {cached:?}",
        started.elapsed()
    );
    let reconciled: BTreeSet<String> = trace::finished_since(&log_lines(&fleet), 0)
        .into_values()
        .flatten()
        .collect();
    assert_eq!(reconciled, all_keys(count), "Probes never reconciled");
    assert_near_even(&cached, count);
    report_rss(&refs).await;

    let stop = Arc::new(AtomicBool::new(false));
    let churning = churn(client.clone(), count, stop.clone());
    join(&fleet, &client, &mut replicas, count).await;
    leave(&fleet, &client, &mut replicas, count).await;
    kill(&fleet, &client, &mut replicas, count).await;
    stop.store(true, Ordering::SeqCst);
    let patches = churning.await.unwrap();

    let lines = log_lines(&fleet);
    let overlaps = trace::overlaps(&lines);
    assert!(
        overlaps.is_empty(),
        "{} overlapping reconciles of one Probe by two replicas (log: {}); the first:\n{}",
        overlaps.len(),
        fleet.log().display(),
        overlaps[..overlaps.len().min(10)].join("\n")
    );
    let moved = moved_keys(&lines);
    eprintln!(
        "{} log lines, {patches} spec changes, {moved} Probes reconciled by more than one replica, no overlap",
        lines.len()
    );
    assert!(moved > 0, "no Probe ever moved: the steps proved nothing");
}

/// How many Probes more than one replica reconciled.
fn moved_keys(lines: &[trace::Line]) -> usize {
    let mut by: BTreeMap<&str, BTreeSet<&str>> = BTreeMap::new();
    for line in lines.iter().filter(|l| l.event == trace::Event::Start) {
        by.entry(&line.key).or_default().insert(&line.replica);
    }
    by.values().filter(|replicas| replicas.len() > 1).count()
}

/// A 4th replica joins: the ring settles on 4 members, each caching about a quarter.
async fn join(fleet: &Fleet, client: &Client, replicas: &mut Vec<Replica>, count: usize) {
    let (before, from) = (owners(client).await, log_lines(fleet).len());
    replicas.push(Replica::start(fleet, "probe-r3").await.unwrap());
    let refs: Vec<&Replica> = replicas.iter().collect();
    let cached = harness::wait_balanced(client, NAMESPACE, &refs, Duration::from_secs(90))
        .await
        .unwrap();
    eprintln!("after the join: {cached:?}");
    assert_near_even(&cached, count);
    wait_moved_reconciled(fleet, client, &before, from, "the join").await;
}

/// Each Probe's replica, by its shard label.
async fn owners(client: &Client) -> BTreeMap<String, Option<String>> {
    harness::assignments(client, NAMESPACE).await.unwrap().0
}

/// Waits until every Probe whose replica changed since `before` was reconciled by its new replica after log line
/// `from`, so that the next step starts on a ring with no backlog of moves (at 3,000 Probes a move of a thousand
/// keeps the replicas' workers busy for many reconciles, which a later step's time bound would otherwise pay).
async fn wait_moved_reconciled(
    fleet: &Fleet,
    client: &Client,
    before: &BTreeMap<String, Option<String>>,
    from: usize,
    step: &str,
) {
    let now = owners(client).await;
    let moved: Vec<(String, String)> = now
        .into_iter()
        .filter(|(key, owner)| before.get(key) != Some(owner))
        .filter_map(|(key, owner)| Some((key, owner?)))
        .collect();
    let what = format!(
        "the {} Probes moved by {step} reconciled by their new replicas",
        moved.len()
    );
    eventually(&what, Duration::from_secs(180), || {
        let done = trace::finished_since(&log_lines(fleet), from);
        let left = moved
            .iter()
            .filter(|(key, owner)| !done.get(owner).is_some_and(|keys| keys.contains(key)))
            .count();
        async move { Ok::<_, std::convert::Infallible>((left == 0).then_some(())) }
    })
    .await
    .unwrap();
}

/// The index of a replica that does not lead (so its leaving does not move the sharder too).
async fn follower(client: &Client, replicas: &[Replica]) -> usize {
    let leader = harness::leader(client).await;
    replicas
        .iter()
        .position(|r| Some(&r.name) != leader.as_ref())
        .expect("a replica that does not lead")
}

/// A replica leaves gracefully: SIGTERM, exit 0, and the others take its Probes.
async fn leave(fleet: &Fleet, client: &Client, replicas: &mut Vec<Replica>, count: usize) {
    let (before, from) = (owners(client).await, log_lines(fleet).len());
    let mut leaving = replicas.remove(follower(client, replicas).await);
    leaving.signal("TERM").unwrap();
    let status = leaving.exit_status(Duration::from_secs(30)).await.unwrap();
    assert!(status.success(), "{} exited with {status}", leaving.name);
    let refs: Vec<&Replica> = replicas.iter().collect();
    let cached = harness::wait_balanced(client, NAMESPACE, &refs, Duration::from_secs(60))
        .await
        .unwrap();
    eprintln!("after {} left: {cached:?}", leaving.name);
    assert_eq!(cached.values().sum::<usize>(), count);
    wait_moved_reconciled(fleet, client, &before, from, "the leave").await;
}

/// A replica is SIGKILLed: every Probe it held is reconciled by another replica within the lease plus one
/// reconcile of each (`WORK` per round of the survivors' workers, and `MOVE_SLACK`), counted from the kill.
async fn kill(fleet: &Fleet, client: &Client, replicas: &mut Vec<Replica>, count: usize) {
    let mut victim = replicas.remove(follower(client, replicas).await);
    let (owners, _) = harness::assignments(client, NAMESPACE).await.unwrap();
    let held: BTreeSet<String> = owners
        .into_iter()
        .filter(|(_, owner)| owner.as_deref() == Some(victim.name.as_str()))
        .map(|(key, _)| key)
        .collect();
    assert!(!held.is_empty(), "{} held no Probe", victim.name);
    victim.kill().await.unwrap();
    let killed_at = Instant::now();
    trace::append_killed(&fleet.log(), &victim.name).unwrap();
    let from = log_lines(fleet).len();
    // One reconcile of each moved Probe, on the survivors' workers (at 3,000 Probes a third cannot start at once).
    let rounds = held
        .len()
        .div_ceil(replicas.len() * usize::from(CONCURRENCY));
    let bound = TIMING.lease + MOVE_SLACK + WORK * rounds as u32;
    let what = format!(
        "the {} Probes of {} to be reconciled elsewhere",
        held.len(),
        victim.name
    );
    let waiting = || {
        let done: BTreeSet<String> = trace::finished_since(&log_lines(fleet), from)
            .into_values()
            .flatten()
            .collect();
        held.difference(&done).cloned().collect::<Vec<_>>()
    };
    let in_time =
        eventually(&what, bound, || {
            let left = waiting();
            async move {
                Ok::<_, std::convert::Infallible>(left.is_empty().then(|| killed_at.elapsed()))
            }
        })
        .await;
    let moved = match in_time {
        Ok(moved) => moved,
        Err(late) => {
            // Slow or stuck? Look a while longer, and say where the Probes still waiting are assigned.
            let left = waiting();
            let (owners, draining) = harness::assignments(client, NAMESPACE).await.unwrap();
            let shown: Vec<String> = left
                .iter()
                .take(5)
                .map(|key| format!("{key} (labelled {:?})", owners.get(key).cloned().flatten()))
                .collect();
            let later = eventually(&what, Duration::from_secs(60), || {
                let left = waiting();
                async move {
                    Ok::<_, std::convert::Infallible>(left.is_empty().then(|| killed_at.elapsed()))
                }
            })
            .await;
            let mut caches = Vec::new();
            for replica in replicas.iter() {
                let scrape = replica.scrape().await.unwrap();
                let labelled = owners
                    .values()
                    .filter(|o| o.as_deref() == Some(&replica.name))
                    .count();
                caches.push(format!(
                    "{} caches {:?} of the {labelled} labelled with it, queue depth {:?}",
                    replica.name,
                    scrape.value("rkb_shard_objects", &[]),
                    scrape.value("workqueue_depth", &[]),
                ));
            }
            panic!(
                "{late}: {} still waiting, {draining} Probes draining, e.g. {shown:?}; {caches:?}; all moved: \
                 {later:?}",
                left.len()
            );
        }
    };
    eprintln!(
        "{}'s {} Probes moved {moved:?} after the kill (lease {:?}, bound {bound:?})",
        victim.name,
        held.len(),
        TIMING.lease
    );
    let refs: Vec<&Replica> = replicas.iter().collect();
    let cached = harness::wait_balanced(client, NAMESPACE, &refs, Duration::from_secs(60))
        .await
        .unwrap();
    assert_eq!(cached.values().sum::<usize>(), count);
}

/// A scaffolded manager is named `<project>.<domain>` (`rkb init`'s leader-election id), dots and all, and that
/// name is its ring's: the shard label's key (`shard.rkb.dev/<ring>`) and the Leases' names allow dots, so a
/// sharded scaffold must start and shard under it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_ring_named_like_a_scaffolded_manager_shards() {
    const RING: &str = "shard-probe.my.domain";
    let env = Environment::builder()
        .crd_yaml(Probe::crd_yaml())
        .start()
        .await
        .expect("envtest");
    let client = env.client();
    let tmp = KeptOnFailure(Some(tempfile::tempdir().unwrap()));
    let fleet = Fleet {
        binary: probe_binary(),
        kubeconfig: env.kubeconfig_path().to_path_buf(),
        dir: tmp.path(),
        timing: TIMING,
        work: Duration::ZERO,
        concurrency: 1,
    };
    let _replica = Replica::start_with(&fleet, "solo", &[&format!("--leader-election-id={RING}")])
        .await
        .unwrap();
    harness::create_probes(&client, NAMESPACE, 3).await.unwrap();
    harness::wait_children(&client, NAMESPACE, 3, Duration::from_secs(60))
        .await
        .unwrap();
    let label = rkb_runtime::shard::shard_label(RING);
    let probes: Api<Probe> = Api::namespaced(client.clone(), NAMESPACE);
    eventually(
        "the Probes labelled with the ring's only member",
        Duration::from_secs(30),
        || async {
            let listed = probes.list_metadata(&Default::default()).await?;
            let labelled = listed.items.iter().all(|p| {
                p.metadata
                    .labels
                    .as_ref()
                    .and_then(|l| l.get(&label))
                    .map(String::as_str)
                    == Some("solo")
            });
            Ok::<_, kube::Error>(labelled.then_some(()))
        },
    )
    .await
    .unwrap();
}
