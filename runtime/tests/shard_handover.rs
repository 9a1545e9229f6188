//! The shard mechanism (runtime/src/shard/) in one process: two `Manager`s with `--sharded` and different
//! `--shard-identity` against one envtest API server, each running the same `.sharded()` ConfigMap controller that
//! applies a child Secret. Objects get assigned and each replica reconciles only its own; a replica joining takes
//! its share over through the drain handshake; a replica that stops releases its Lease and its objects move at once
//! (long before the Lease could expire). Every reconcile is logged with its replica, start and end: no object is
//! ever reconciled by both replicas at once.

mod common;

use std::collections::BTreeMap;
use std::convert::Infallible;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use common::{config_map, create_config_map, touch_config_map};
use k8s_openapi::api::coordination::v1::Lease;
use k8s_openapi::api::core::v1::{ConfigMap, Secret};
use kube::api::{ListParams, ObjectMeta};
use kube::runtime::watcher;
use kube::{Api, Client, ResourceExt};
use rkb_envtest::{Environment, eventually};
use rkb_runtime::metrics::{Metrics, sample};
use rkb_runtime::{Action, BoxError, Context, Controller, Manager, ManagerOptions};

const RING: &str = "shard-test";
const SHARD_LABEL: &str = "shard.rkb.dev/shard-test";
const DRAIN_LABEL: &str = "drain.rkb.dev/shard-test";
const OBJECTS: usize = 24;

/// How long each reconcile works: with the objects changing all the time (`churn`), reconciles are in flight on
/// replica-a when the ring changes, so a move that did not wait for them (no drain handshake) shows as an overlap.
const WORK: Duration = Duration::from_secs(1);

/// One reconcile: which replica, which object, when it started and ended.
#[derive(Clone, Debug)]
struct Reconciled {
    replica: String,
    object: String,
    start: Instant,
    end: Instant,
}

type Log = Arc<Mutex<Vec<Reconciled>>>;

struct Replica {
    identity: String,
    task: tokio::task::JoinHandle<Result<(), rkb_runtime::Error>>,
    stop: tokio::sync::oneshot::Sender<()>,
    metrics: Metrics,
}

impl Replica {
    /// A graceful stop (SIGTERM's path): controllers drain, then the shard Lease is released.
    async fn stop(self) {
        let _ = self.stop.send(());
        self.task
            .await
            .expect("manager task")
            .expect("stops cleanly");
    }

    /// A kill: everything the manager runs is dropped at once; its Lease is neither renewed nor released.
    async fn kill(self) {
        self.task.abort();
        let _ = self.task.await;
    }
}

fn sharded_options(identity: &str, lease: Duration) -> ManagerOptions {
    ManagerOptions {
        sharded: true,
        shard_identity: Some(identity.into()),
        shard_lease_duration: lease,
        ..common::leader_options(RING, 3, 2, 300)
    }
}

/// A replica of the operator: a sharded ConfigMap controller (objects labelled test=shard) that applies one Secret
/// per ConfigMap with `apply_controlled` and owns them; each reconcile takes `WORK` and is logged.
async fn start(client: &Client, identity: &str, options: ManagerOptions, log: Log) -> Replica {
    let mgr = Manager::builder(RING)
        .client(client.clone())
        .identity(identity)
        .options(options)
        .build()
        .await
        .expect("build manager");
    let replica = identity.to_string();
    mgr.add(move |ctx: Context| async move {
        Controller::for_kind_with::<ConfigMap>(
            &ctx,
            watcher::Config::default().labels("test=shard"),
        )
        .sharded()
        .owns::<Secret>()
        .concurrency(OBJECTS as u16)
        .run(move |cm: Arc<ConfigMap>, ctx: Context| {
            let (log, replica) = (log.clone(), replica.clone());
            async move {
                let start = Instant::now();
                apply_child(&ctx, &cm).await?;
                tokio::time::sleep(WORK).await;
                let object = cm.name_any();
                let end = Instant::now();
                log.lock().unwrap().push(Reconciled {
                    replica,
                    object,
                    start,
                    end,
                });
                Ok::<_, BoxError>(Action::await_change())
            }
        })
        .await
    });
    let metrics = mgr.metrics().clone();
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    let task = tokio::spawn(mgr.run_until(async move {
        let _ = stopped.await;
    }));
    Replica {
        identity: identity.to_string(),
        task,
        stop,
        metrics,
    }
}

async fn apply_child(ctx: &Context, cm: &ConfigMap) -> Result<(), BoxError> {
    let secret = Secret {
        metadata: ObjectMeta {
            name: Some(format!("{}-child", cm.name_any())),
            namespace: cm.namespace(),
            ..ObjectMeta::default()
        },
        string_data: Some(BTreeMap::from([("from".to_string(), cm.name_any())])),
        ..Secret::default()
    };
    let api: Api<Secret> = ctx.api_in(&cm.namespace().unwrap_or_default());
    rkb_runtime::apply::apply_controlled(&api, &secret, cm, ctx.field_manager()).await?;
    Ok(())
}

/// name -> its shard label, for the test's ConfigMaps.
async fn assignments(client: &Client) -> BTreeMap<String, Option<String>> {
    let api: Api<ConfigMap> = Api::namespaced(client.clone(), "default");
    let list = api
        .list(&ListParams::default().labels("test=shard"))
        .await
        .expect("list");
    list.items
        .into_iter()
        .map(|cm| {
            let shard = cm.labels().get(SHARD_LABEL).cloned();
            (cm.name_any(), shard)
        })
        .collect()
}

/// Waits until every ConfigMap is labelled, none is draining, and the labels satisfy `settled`.
async fn wait_for_assignments(
    client: &Client,
    what: &str,
    settled: impl Fn(&BTreeMap<String, Option<String>>) -> bool,
) -> BTreeMap<String, String> {
    eventually(what, Duration::from_secs(60), || async {
        let api: Api<ConfigMap> = Api::namespaced(client.clone(), "default");
        let list = api
            .list(&ListParams::default().labels("test=shard"))
            .await?;
        let draining = list
            .items
            .iter()
            .any(|cm| cm.labels().contains_key(DRAIN_LABEL));
        let now = assignments(client).await;
        let done =
            now.len() == OBJECTS && now.values().all(Option::is_some) && !draining && settled(&now);
        Ok::<_, kube::Error>(done.then(|| now.into_iter().map(|(k, v)| (k, v.unwrap())).collect()))
    })
    .await
    .unwrap()
}

/// Waits until `replica` has reconciled each of `objects` after `since`.
async fn wait_for_reconciles(log: &Log, replica: &str, objects: &[&String], since: Instant) {
    eventually(
        &format!("{replica} reconciles its {} objects", objects.len()),
        Duration::from_secs(60),
        || async {
            let log = log.lock().unwrap();
            let done = objects.iter().all(|object| {
                log.iter()
                    .any(|r| r.replica == replica && &&r.object == object && r.start >= since)
            });
            Ok::<_, Infallible>(done.then_some(()))
        },
    )
    .await
    .unwrap();
}

/// The objects two replicas reconciled at overlapping times: must be none.
fn overlaps(log: &Log) -> Vec<String> {
    let log = log.lock().unwrap();
    let mut found = Vec::new();
    for (i, a) in log.iter().enumerate() {
        for b in &log[i + 1..] {
            if a.object == b.object && a.replica != b.replica && a.start < b.end && b.start < a.end
            {
                found.push(format!("{} by {} and {}", a.object, a.replica, b.replica));
            }
        }
    }
    found
}

/// Reconciles of `object` by anyone but `owner` at or after `since`.
fn strays(log: &Log, owners: &BTreeMap<String, String>, since: Instant) -> Vec<String> {
    log.lock()
        .unwrap()
        .iter()
        .filter(|r| r.start >= since && owners.get(&r.object) != Some(&r.replica))
        .map(|r| {
            format!(
                "{} reconciled {} (assigned to {:?})",
                r.replica,
                r.object,
                owners.get(&r.object)
            )
        })
        .collect()
}

fn count(m: &Metrics, name: &str, labels: &[(&str, &str)]) -> f64 {
    sample(&m.encode(), name, labels).unwrap_or(0.0)
}

async fn touch_all(client: &Client, round: &str) -> Instant {
    let since = Instant::now();
    for i in 0..OBJECTS {
        touch_config_map(client, &format!("cm-{i:02}"), round).await;
    }
    since
}

/// Changes every object, over and over, until the task is aborted.
fn churn(client: &Client) -> tokio::task::JoinHandle<()> {
    let client = client.clone();
    tokio::spawn(async move {
        for round in 0.. {
            touch_all(&client, &format!("churn-{round}")).await;
        }
    })
}

async fn child_shard(client: &Client, owner: &str) -> Option<String> {
    let api: Api<Secret> = Api::namespaced(client.clone(), "default");
    api.get_opt(&format!("{owner}-child"))
        .await
        .ok()??
        .labels()
        .get(SHARD_LABEL)
        .cloned()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn objects_are_split_a_join_drains_its_share_over_and_a_leaving_replica_hands_over_at_once() {
    let env = Environment::start().await.expect("envtest");
    let client = env.client();
    let log: Log = Arc::default();
    for i in 0..OBJECTS {
        create_config_map(
            &client,
            &config_map(&format!("cm-{i:02}"), &[("test", "shard")]),
        )
        .await;
    }
    // A long shard lease: a move within the test's deadlines cannot be its expiry, only a drain or a release.
    let lease = Duration::from_secs(30);

    let a = one_replica_gets_everything(&client, &log, lease).await;
    let (b, split) = a_joining_replica_gets_its_share_by_drains(&client, &log, &a, lease).await;
    each_replica_caches_and_reconciles_its_own(&client, &log, [&a, &b], &split).await;
    let on_b: Vec<&String> = split.keys().filter(|k| split[*k] == "replica-b").collect();
    a_stopped_replica_hands_over_at_once(&client, &log, &a, b, &on_b, lease).await;

    assert_eq!(
        overlaps(&log),
        Vec::<String>::new(),
        "objects reconciled by two replicas at once"
    );
    a.stop().await;
}

/// One replica: it leads, runs the sharder, and gets everything; children take its label.
async fn one_replica_gets_everything(client: &Client, log: &Log, lease: Duration) -> Replica {
    let a = start(
        client,
        "replica-a",
        sharded_options("replica-a", lease),
        log.clone(),
    )
    .await;
    let all_a = wait_for_assignments(client, "all objects assigned to replica-a", |now| {
        now.values().all(|s| s.as_deref() == Some("replica-a"))
    })
    .await;
    let names: Vec<String> = all_a.into_keys().collect();
    wait_for_reconciles(
        log,
        "replica-a",
        &names.iter().collect::<Vec<_>>(),
        Instant::now() - Duration::from_secs(600),
    )
    .await;
    assert_eq!(
        child_shard(client, "cm-00").await.as_deref(),
        Some("replica-a"),
        "the child takes its owner's shard"
    );
    let member_lease: Api<Lease> = Api::namespaced(client.clone(), "default");
    let held = member_lease
        .get(&format!("{RING}-shard-replica-a"))
        .await
        .expect("replica-a's shard lease");
    assert_eq!(
        held.labels().get("shard.rkb.dev/ring").map(String::as_str),
        Some(RING)
    );
    a
}

/// A second replica joins while every object keeps changing: the sharder drains its share from replica-a, then
/// assigns it, and no object is reconciled by both meanwhile. Returns the new replica and the split.
async fn a_joining_replica_gets_its_share_by_drains(
    client: &Client,
    log: &Log,
    a: &Replica,
    lease: Duration,
) -> (Replica, BTreeMap<String, String>) {
    let churning = churn(client);
    let b = start(
        client,
        "replica-b",
        sharded_options("replica-b", lease),
        log.clone(),
    )
    .await;
    let split = wait_for_assignments(
        client,
        "objects split between replica-a and replica-b",
        |now| {
            now.values().any(|s| s.as_deref() == Some("replica-b"))
                && now.values().any(|s| s.as_deref() == Some("replica-a"))
        },
    )
    .await;
    churning.abort();
    let _ = churning.await;
    let on_b: Vec<&String> = split.keys().filter(|k| split[*k] == "replica-b").collect();
    eprintln!(
        "after the join: {} on replica-a, {} on replica-b",
        split.len() - on_b.len(),
        on_b.len()
    );
    wait_for_reconciles(
        log,
        "replica-b",
        &on_b,
        Instant::now() - Duration::from_secs(600),
    )
    .await;
    assert_eq!(
        overlaps(log),
        Vec::<String>::new(),
        "objects reconciled by both replicas at once during the join"
    );
    let ring = [("ring", RING)];
    assert_eq!(
        count(&a.metrics, "rkb_shard_drains_total", &ring),
        on_b.len() as f64
    );
    assert_eq!(
        count(
            &a.metrics,
            "rkb_shard_moves_total",
            &[("ring", RING), ("reason", "drain")]
        ),
        on_b.len() as f64
    );
    assert_eq!(count(&a.metrics, "rkb_shard_members", &ring), 2.0);
    assert_eq!(
        child_shard(client, on_b[0]).await.as_deref(),
        Some("replica-b"),
        "the child follows its owner"
    );
    (b, split)
}

/// Each replica's shard cache holds its share, and a change to every object is reconciled by its replica only.
async fn each_replica_caches_and_reconciles_its_own(
    client: &Client,
    log: &Log,
    replicas: [&Replica; 2],
    split: &BTreeMap<String, String>,
) {
    for replica in replicas {
        let share: Vec<&String> = split
            .keys()
            .filter(|k| split[*k] == replica.identity)
            .collect();
        let labels = [("ring", RING), ("shard", replica.identity.as_str())];
        assert_eq!(
            count(&replica.metrics, "rkb_shard_objects", &labels),
            share.len() as f64,
            "{}",
            replica.identity
        );
    }
    let since = touch_all(client, "second").await;
    for replica in replicas {
        let share: Vec<&String> = split
            .keys()
            .filter(|k| split[*k] == replica.identity)
            .collect();
        wait_for_reconciles(log, &replica.identity, &share, since).await;
    }
    assert_eq!(strays(log, split, since), Vec::<String>::new());
}

/// replica-b stops: it releases its Lease, and its objects (`on_b`) come back to replica-a long before the lease
/// could expire; then replica-a reconciles every object, and only it does.
async fn a_stopped_replica_hands_over_at_once(
    client: &Client,
    log: &Log,
    a: &Replica,
    b: Replica,
    on_b: &[&String],
    lease: Duration,
) {
    let stopped = Instant::now();
    b.stop().await;
    let back = wait_for_assignments(client, "replica-b's objects back on replica-a", |now| {
        now.values().all(|s| s.as_deref() == Some("replica-a"))
    })
    .await;
    wait_for_reconciles(log, "replica-a", on_b, stopped).await;
    let took = stopped.elapsed();
    eprintln!("handover after a graceful stop: {took:?} (shard lease {lease:?})");
    assert!(
        took < lease / 2,
        "the released objects took {took:?} to move"
    );
    assert_eq!(
        count(
            &a.metrics,
            "rkb_shard_moves_total",
            &[("ring", RING), ("reason", "dead")]
        ),
        on_b.len() as f64
    );
    let member_lease: Api<Lease> = Api::namespaced(client.clone(), "default");
    assert!(
        member_lease
            .get_opt(&format!("{RING}-shard-replica-b"))
            .await
            .unwrap()
            .is_none(),
        "released"
    );
    let since = touch_all(client, "third").await;
    wait_for_reconciles(log, "replica-a", &back.keys().collect::<Vec<_>>(), since).await;
    assert_eq!(strays(log, &back, since), Vec::<String>::new());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn without_sharded_nothing_changes_and_a_killed_replica_s_objects_move_within_the_lease_duration()
 {
    let env = Environment::start().await.expect("envtest");
    let client = env.client();
    let log: Log = Arc::default();
    for i in 0..OBJECTS {
        create_config_map(
            &client,
            &config_map(&format!("cm-{i:02}"), &[("test", "shard")]),
        )
        .await;
    }
    let everything: Vec<String> = (0..OBJECTS).map(|i| format!("cm-{i:02}")).collect();
    let everything: Vec<&String> = everything.iter().collect();

    // The same `.sharded()` controller in a manager without --sharded: it reconciles every object, writes no label
    // and holds no shard Lease.
    let plain = start(
        &client,
        "plain",
        common::leader_options(RING, 3, 2, 300),
        log.clone(),
    )
    .await;
    wait_for_reconciles(
        &log,
        "plain",
        &everything,
        Instant::now() - Duration::from_secs(600),
    )
    .await;
    assert!(
        assignments(&client).await.values().all(Option::is_none),
        "labels written without --sharded"
    );
    let leases: Api<Lease> = Api::namespaced(client.clone(), "default");
    let shard_leases = leases
        .list(&ListParams::default().labels(&format!("shard.rkb.dev/ring={RING}")))
        .await
        .unwrap();
    assert!(
        shard_leases.items.is_empty(),
        "a shard Lease without --sharded"
    );
    assert_eq!(child_shard(&client, "cm-00").await, None);
    plain.stop().await;

    // Two sharded replicas with a 3 s shard lease; then replica-b is killed.
    let lease = Duration::from_secs(3);
    let a = start(
        &client,
        "replica-a",
        sharded_options("replica-a", lease),
        log.clone(),
    )
    .await;
    wait_for_assignments(&client, "all objects on replica-a", |now| {
        now.values().all(|s| s.as_deref() == Some("replica-a"))
    })
    .await;
    let b = start(
        &client,
        "replica-b",
        sharded_options("replica-b", lease),
        log.clone(),
    )
    .await;
    let split = wait_for_assignments(&client, "objects split between the replicas", |now| {
        now.values().any(|s| s.as_deref() == Some("replica-b"))
    })
    .await;
    let on_b: Vec<&String> = split.keys().filter(|k| split[*k] == "replica-b").collect();
    wait_for_reconciles(
        &log,
        "replica-b",
        &on_b,
        Instant::now() - Duration::from_secs(600),
    )
    .await;

    let killed = Instant::now();
    b.kill().await;
    wait_for_assignments(&client, "replica-b's objects on replica-a", |now| {
        now.values().all(|s| s.as_deref() == Some("replica-a"))
    })
    .await;
    wait_for_reconciles(&log, "replica-a", &on_b, killed).await;
    let took = killed.elapsed();
    eprintln!("handover after a kill: {took:?} (shard lease {lease:?})");
    // Not before the Lease expired (nothing released it), and within it plus a pass and one reconcile.
    assert!(
        took >= lease - Duration::from_millis(500),
        "moved after {took:?}, before the lease expired"
    );
    assert!(
        took <= lease + Duration::from_secs(2) + WORK,
        "moved after {took:?}"
    );
    assert_eq!(
        count(
            &a.metrics,
            "rkb_shard_moves_total",
            &[("ring", RING), ("reason", "dead")]
        ),
        on_b.len() as f64
    );
    assert_eq!(overlaps(&log), Vec::<String>::new());
    a.stop().await;
}
