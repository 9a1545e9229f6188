//! Two managers with leader election against a real API server: exactly one reconciles; killing it hands over
//! within the lease duration; a graceful stop hands over at once.

mod common;

use std::convert::Infallible;
use std::sync::Arc;
use std::time::{Duration, Instant};

use common::{config_map, create_config_map, leader_options};
use k8s_openapi::api::coordination::v1::Lease;
use k8s_openapi::api::core::v1::ConfigMap;
use kube::runtime::watcher;
use kube::{Api, Client, ResourceExt};
use rkb_envtest::{Environment, eventually};
use rkb_runtime::metrics::{Metrics, sample};
use rkb_runtime::{Action, BoxError, Context, Controller, Manager, ManagerOptions};
use tokio::sync::{mpsc, oneshot};
use tokio::task::JoinHandle;

/// (manager identity, object name, when)
type Seen = (String, String, Instant);

struct Running {
    identity: String,
    task: JoinHandle<Result<(), rkb_runtime::Error>>,
    stop: Option<oneshot::Sender<()>>,
    metrics: Metrics,
    health: Option<std::net::SocketAddr>,
}

async fn start(
    client: &Client,
    identity: &str,
    options: ManagerOptions,
    label: &str,
    seen: mpsc::UnboundedSender<Seen>,
) -> Running {
    let mgr = Manager::builder("rkb-test")
        .client(client.clone())
        .identity(identity)
        .options(options)
        .build()
        .await
        .expect("build manager");
    let (id, selector) = (identity.to_string(), format!("test={label}"));
    mgr.add(move |ctx: Context| async move {
        Controller::for_kind_with::<ConfigMap>(&ctx, watcher::Config::default().labels(&selector))
            .run(move |cm: Arc<ConfigMap>, _ctx| {
                let (seen, id) = (seen.clone(), id.clone());
                async move {
                    let _ = seen.send((id, cm.name_any(), Instant::now()));
                    Ok::<_, BoxError>(Action::await_change())
                }
            })
            .await
    });
    let metrics = mgr.metrics().clone();
    let health = mgr.health_addr();
    let (stop_tx, stop_rx) = oneshot::channel::<()>();
    let task = tokio::spawn(mgr.run_until(async move {
        let _ = stop_rx.await;
    }));
    Running {
        identity: identity.to_string(),
        task,
        stop: Some(stop_tx),
        metrics,
        health,
    }
}

async fn holder(client: &Client, lease: &str) -> Option<String> {
    let api: Api<Lease> = Api::namespaced(client.clone(), "default");
    api.get_opt(lease)
        .await
        .ok()
        .flatten()?
        .spec?
        .holder_identity
}

fn leader_status(m: &Metrics, lease: &str) -> Option<f64> {
    sample(
        &m.encode(),
        "leader_election_master_status",
        &[("name", lease)],
    )
}

/// Waits for the first reconcile and returns who did it.
async fn first_reconciler(seen: &mut mpsc::UnboundedReceiver<Seen>) -> Seen {
    tokio::time::timeout(Duration::from_secs(30), seen.recv())
        .await
        .expect("no manager reconciled within 30s")
        .expect("channel open")
}

/// Asserts nothing but `identity` reconciles for `d`.
async fn only(seen: &mut mpsc::UnboundedReceiver<Seen>, identity: &str, d: Duration) {
    let deadline = tokio::time::Instant::now() + d;
    while let Ok(Some((who, name, _))) = tokio::time::timeout_at(deadline, seen.recv()).await {
        assert_eq!(
            who, identity,
            "{who} reconciled {name} while {identity} leads"
        );
    }
}

fn pick(a: Running, b: Running, leader: &str) -> (Running, Running) {
    if a.identity == leader { (a, b) } else { (b, a) }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn one_leader_reconciles_and_a_killed_leader_is_replaced_within_the_lease_duration() {
    let env = Environment::start().await.expect("envtest");
    let client = env.client();
    let lease = "kill-test";
    let lease_duration = Duration::from_secs(3);
    let (tx, mut seen) = mpsc::unbounded_channel();
    create_config_map(&client, &config_map("kill-a", &[("test", "kill")])).await;

    let options = ManagerOptions {
        health_probe_bind_address: "127.0.0.1:0".into(),
        ..leader_options(lease, 3, 2, 300)
    };
    let a = start(&client, "mgr-a", options.clone(), "kill", tx.clone()).await;
    let b = start(&client, "mgr-b", options, "kill", tx.clone()).await;

    let (leader_id, name, _) = first_reconciler(&mut seen).await;
    assert_eq!(name, "kill-a");
    let (leader, follower) = pick(a, b, &leader_id);
    only(&mut seen, &leader_id, Duration::from_secs(2)).await;
    assert_eq!(
        holder(&client, lease).await.as_deref(),
        Some(leader_id.as_str())
    );
    assert_eq!(leader_status(&leader.metrics, lease), Some(1.0));
    assert_eq!(leader_status(&follower.metrics, lease), Some(0.0));
    // The follower's caches sync although it does not reconcile, so it is ready (a rollout can proceed).
    for m in [&leader, &follower] {
        let addr = m.health.expect("health listener");
        eventually(
            "/readyz of both replicas",
            Duration::from_secs(10),
            || async move {
                Ok::<_, Infallible>(
                    (common::http_get(addr, "/readyz").await.0 == 200).then_some(()),
                )
            },
        )
        .await
        .unwrap();
    }

    // Kill the leader: no release, its lease just stops being renewed.
    leader.task.abort();
    let killed = Instant::now();
    let _ = leader.task.await;

    // The follower's reconcile of kill-a was waiting for leadership; it runs as soon as the follower leads.
    let (who, name, at) = tokio::time::timeout(Duration::from_secs(15), seen.recv())
        .await
        .expect("follower never reconciled")
        .expect("channel open");
    assert_eq!(
        (who.as_str(), name.as_str()),
        (follower.identity.as_str(), "kill-a")
    );
    let took = at - killed;
    eprintln!("takeover after kill: {took:?} (lease duration {lease_duration:?}, retry 300ms)");
    // Within the lease duration of the last renewal the follower saw, plus one poll (retry period + jitter).
    assert!(
        took <= lease_duration + Duration::from_millis(1500),
        "takeover took {took:?}, lease duration is {lease_duration:?}"
    );
    assert_eq!(
        holder(&client, lease).await.as_deref(),
        Some(follower.identity.as_str())
    );
    assert_eq!(leader_status(&follower.metrics, lease), Some(1.0));

    // And it keeps reconciling changes as the leader.
    create_config_map(&client, &config_map("kill-b", &[("test", "kill")])).await;
    let (who, name, _) = first_reconciler(&mut seen).await;
    assert_eq!(
        (who.as_str(), name.as_str()),
        (follower.identity.as_str(), "kill-b")
    );
    follower.task.abort();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_graceful_stop_releases_the_lease_and_hands_over_at_once() {
    let env = Environment::start().await.expect("envtest");
    let client = env.client();
    let lease = "stop-test";
    // A long lease: handing over by expiry would take 20 s; a release must be seen within a poll or two.
    let (tx, mut seen) = mpsc::unbounded_channel();
    create_config_map(&client, &config_map("stop-a", &[("test", "stop")])).await;

    let a = start(
        &client,
        "mgr-a",
        leader_options(lease, 20, 15, 300),
        "stop",
        tx.clone(),
    )
    .await;
    let b = start(
        &client,
        "mgr-b",
        leader_options(lease, 20, 15, 300),
        "stop",
        tx.clone(),
    )
    .await;

    let (leader_id, _, _) = first_reconciler(&mut seen).await;
    let (mut leader, follower) = pick(a, b, &leader_id);
    only(&mut seen, &leader_id, Duration::from_secs(1)).await;

    let stopped = Instant::now();
    let _ = leader.stop.take().expect("stop sender").send(());
    leader
        .task
        .await
        .expect("leader task")
        .expect("graceful stop returns Ok");
    assert_eq!(leader_status(&leader.metrics, lease), Some(0.0));

    let (who, name, at) = tokio::time::timeout(Duration::from_secs(10), seen.recv())
        .await
        .expect("follower never reconciled")
        .expect("channel open");
    assert_eq!(
        (who.as_str(), name.as_str()),
        (follower.identity.as_str(), "stop-a")
    );
    let took = at - stopped;
    eprintln!("handover after graceful stop: {took:?} (lease duration 20s, retry 300ms)");
    assert!(
        took < Duration::from_secs(3),
        "handover after a graceful stop took {took:?}"
    );
    eventually("lease held by the follower", Duration::from_secs(5), || {
        let client = client.clone();
        let id = follower.identity.clone();
        async move {
            Ok::<_, Infallible>(
                (holder(&client, lease).await.as_deref() == Some(id.as_str())).then_some(()),
            )
        }
    })
    .await
    .unwrap();
    follower.task.abort();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_leader_whose_lease_is_taken_stops_at_once_with_an_error() {
    let env = Environment::start().await.expect("envtest");
    let client = env.client();
    let lease = "lost-test";
    let (tx, mut seen) = mpsc::unbounded_channel();
    create_config_map(&client, &config_map("lost-a", &[("test", "lost")])).await;
    let a = start(
        &client,
        "mgr-a",
        leader_options(lease, 10, 8, 300),
        "lost",
        tx,
    )
    .await;
    first_reconciler(&mut seen).await;

    // Someone else writes the lease (as a partitioned leader's successor would): the next renewal sees it.
    let leases: Api<Lease> = Api::namespaced(client.clone(), "default");
    let mut taken = leases.get(lease).await.unwrap();
    let spec = taken.spec.as_mut().unwrap();
    spec.holder_identity = Some("intruder".into());
    spec.renew_time = Some(k8s_openapi::apimachinery::pkg::apis::meta::v1::MicroTime(
        k8s_openapi::jiff::Timestamp::now(),
    ));
    leases
        .replace(lease, &kube::api::PostParams::default(), &taken)
        .await
        .unwrap();

    let ended = tokio::time::timeout(Duration::from_secs(5), a.task)
        .await
        .expect("the manager kept running without the lease")
        .expect("manager task");
    assert!(
        matches!(ended, Err(rkb_runtime::Error::LeadershipLost(ref m)) if m.contains("intruder")),
        "{ended:?}"
    );
    assert_eq!(leader_status(&a.metrics, lease), Some(0.0));
    assert_eq!(holder(&client, lease).await.as_deref(), Some("intruder"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_leader_that_cannot_renew_within_the_deadline_gives_up_with_an_error() {
    let env = Environment::start().await.expect("envtest");
    let admin = env.client();
    let lease = "unrenewable-test";
    // The manager's own user: its Lease rights live in a Role whose binding is taken away below.
    let client = env
        .client_with_rbac(
            "renewer",
            r#"
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata: {name: config-map-reader}
rules:
- {apiGroups: [""], resources: [configmaps], verbs: [get, list, watch]}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: Role
metadata: {name: lease-holder, namespace: default}
rules:
- {apiGroups: [coordination.k8s.io], resources: [leases], verbs: [get, create, update]}
"#,
        )
        .await
        .expect("client with RBAC");
    let (tx, mut seen) = mpsc::unbounded_channel();
    create_config_map(&admin, &config_map("renew-a", &[("test", "renew")])).await;
    let renew_deadline = Duration::from_secs(2);
    let a = start(
        &client,
        "mgr-a",
        leader_options(lease, 4, renew_deadline.as_secs(), 300),
        "renew",
        tx,
    )
    .await;
    first_reconciler(&mut seen).await;

    // Renewals now fail (403) while nobody else holds the lease.
    let cut = Instant::now();
    Api::<k8s_openapi::api::rbac::v1::RoleBinding>::namespaced(admin.clone(), "default")
        .delete("renewer-lease-holder", &Default::default())
        .await
        .unwrap();
    let ended = tokio::time::timeout(Duration::from_secs(15), a.task)
        .await
        .expect("the manager kept running without renewing its lease")
        .expect("manager task");
    assert!(
        matches!(ended, Err(rkb_runtime::Error::LeadershipLost(ref m)) if m.contains("failed to renew within")),
        "{ended:?}"
    );
    // It held on for the renew deadline: a failed renewal alone is retried, not fatal.
    assert!(
        cut.elapsed() >= renew_deadline,
        "gave up after {:?}",
        cut.elapsed()
    );
    assert_eq!(leader_status(&a.metrics, lease), Some(0.0));
    assert_eq!(holder(&admin, lease).await.as_deref(), Some("mgr-a"));
}
