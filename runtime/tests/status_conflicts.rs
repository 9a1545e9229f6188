//! 409 Conflict on the real control plane: a controller that writes Update-style (a PUT carrying the
//! resourceVersion it read, like kubebuilder's `r.Status().Update(ctx, obj)`) while something else keeps changing
//! its objects. Its conflicting writes are retried until every object's status and child match the latest spec:
//! nothing is lost, every conflict is counted as a reconcile error, and a conflict that never clears is retried
//! with backoff, not in a loop.

mod common;

use std::collections::HashSet;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use common::quiet_options;
use k8s_openapi::api::core::v1::ConfigMap;
use kube::api::{ListParams, ObjectMeta, Patch, PatchParams, PostParams};
use kube::{Api, Client, ResourceExt};
use rkb_envtest::{Environment, eventually};
use rkb_runtime::client::ResourceClient;
use rkb_runtime::metrics::{Metrics, sample};
use rkb_runtime::{Action, BoxError, Context, Controller, LogFormat, Manager, TypeMeta, logging};
use serde::{Deserialize, Serialize};
use serde_json::json;
use tracing::Level;
use tracing_subscriber::filter::Targets;

/// Objects that converge (plus one, STUCK, that never can).
const OBJECTS: i64 = 20;
/// Rounds of spec and metadata changes made while the controller runs.
const ROUNDS: i64 = 3;
/// Its child write always carries a resourceVersion it read once: a conflict that never clears.
const STUCK: &str = "stuck";
/// The failure in a row from which the manager logs a conflict as an error (controller.rs).
const PERSISTENT_CONFLICT: usize = 8;
/// The line the manager logs for a conflict it retries (controller.rs).
const RETRYING: &str = "conflict: the object changed since it was read; reconciling again";

const CRD: &str = r#"
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: sprockets.test.rkb.dev
spec:
  group: test.rkb.dev
  names: {kind: Sprocket, listKind: SprocketList, plural: sprockets, singular: sprocket}
  scope: Namespaced
  versions:
    - name: v1
      served: true
      storage: true
      subresources: {status: {}}
      schema:
        openAPIV3Schema:
          type: object
          properties:
            spec:
              type: object
              properties: {size: {type: integer}}
            status:
              type: object
              properties:
                observedGeneration: {type: integer, format: int64}
                doubled: {type: integer}
"#;

#[derive(Clone, Debug, Default, Serialize, Deserialize)]
struct Sprocket {
    #[serde(flatten)]
    type_meta: TypeMeta,
    #[serde(default)]
    metadata: ObjectMeta,
    #[serde(default)]
    spec: SprocketSpec,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    status: Option<SprocketStatus>,
}

#[derive(Clone, Debug, Default, Serialize, Deserialize)]
struct SprocketSpec {
    #[serde(default)]
    size: i64,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
struct SprocketStatus {
    observed_generation: i64,
    doubled: i64,
}

test_resource!(Sprocket, "Sprocket", "sprockets", "v1");

fn type_meta() -> TypeMeta {
    TypeMeta {
        api_version: "test.rkb.dev/v1".into(),
        kind: "Sprocket".into(),
    }
}

/// The status a Sprocket must end with: computed from its latest spec.
fn desired(s: &Sprocket) -> SprocketStatus {
    SprocketStatus {
        observed_generation: s.metadata.generation.unwrap_or_default(),
        doubled: 2 * s.spec.size,
    }
}

/// The manager's log, as an operator started with `--log-format json` prints it.
#[derive(Clone, Default)]
struct Log(Arc<Mutex<Vec<u8>>>);

impl std::io::Write for Log {
    fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
        self.0.lock().unwrap().extend_from_slice(bytes);
        Ok(bytes.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

impl Log {
    /// Captures every event of this test binary (its only test) at info and above.
    fn install() -> Self {
        let log = Log::default();
        let writer = log.clone();
        let filter = Targets::new().with_default(Level::INFO);
        let subscriber =
            logging::subscriber(LogFormat::Json, filter, false, move || writer.clone());
        tracing::subscriber::set_global_default(subscriber).expect("the only subscriber");
        log
    }

    /// The lines the runtime logged at `level` (INFO, ERROR, ...); not the kube client's, which logs the
    /// envtest's polls of a starting API server.
    fn at(&self, level: &str) -> Vec<serde_json::Value> {
        let bytes = self.0.lock().unwrap().clone();
        String::from_utf8(bytes)
            .unwrap()
            .lines()
            .map(|line| serde_json::from_str::<serde_json::Value>(line).expect("a JSON line"))
            .filter(|line| line["level"] == level)
            .filter(|line| {
                line["target"]
                    .as_str()
                    .is_some_and(|t| t.starts_with("rkb_runtime"))
            })
            .collect()
    }
}

/// Whether `s` holds the other writer's last change (keep_changing's last round ends with it).
fn is_final(s: &Sprocket) -> bool {
    s.spec.size >= 100 * ROUNDS
}

/// What the reconciler did, and the other writer's client.
struct Probe {
    other: Client,
    /// Objects whose first status write, and whose first child write at their final state, had the other writer
    /// step in before them.
    status_interfered: Mutex<HashSet<String>>,
    child_interfered: Mutex<HashSet<String>>,
    status_writes: AtomicUsize,
    child_writes: AtomicUsize,
    conflicts: AtomicUsize,
    /// The resourceVersion STUCK's child was first read at, which its writes keep sending.
    stuck_version: Mutex<Option<String>>,
    stuck_attempts: AtomicUsize,
}

impl Probe {
    fn new(other: Client) -> Self {
        Probe {
            other,
            status_interfered: Mutex::default(),
            child_interfered: Mutex::default(),
            status_writes: AtomicUsize::new(0),
            child_writes: AtomicUsize::new(0),
            conflicts: AtomicUsize::new(0),
            stuck_version: Mutex::default(),
            stuck_attempts: AtomicUsize::new(0),
        }
    }

    /// Whether this is the first time `name` is in `set` (the other writer steps in only then).
    fn first(set: &Mutex<HashSet<String>>, name: &str) -> bool {
        set.lock().unwrap().insert(name.to_string())
    }

    /// Counts a conflict, and hands the error on for the manager to handle.
    fn checked<T>(&self, done: Result<T, rkb_runtime::client::Error>) -> Result<T, BoxError> {
        if done.as_ref().is_err_and(|e| e.is_conflict()) {
            self.conflicts.fetch_add(1, Ordering::SeqCst);
        }
        Ok(done?)
    }

    /// Changes an annotation of `name` in `api` as another client: the reconciler's next write is stale.
    async fn step_in<K>(&self, api: Api<K>, name: &str)
    where
        K: kube::Resource + Clone + serde::de::DeserializeOwned + std::fmt::Debug,
    {
        let patch = json!({"metadata": {"annotations": {"rkb.test/other": name}}});
        api.patch(name, &PatchParams::default(), &Patch::Merge(&patch))
            .await
            .expect("the other writer's patch");
    }
}

/// Writes the status (PUT with the cached resourceVersion), then in a pass of its own the child `<name>-size`
/// (data.size = spec.size; GET then PUT). Both Update-style, so both conflict when the object changed since it
/// was read.
async fn reconcile(s: Arc<Sprocket>, ctx: Context, probe: Arc<Probe>) -> Result<Action, BoxError> {
    let (name, ns) = (s.name_any(), s.namespace().ok_or("namespaced")?);
    let status = desired(&s);
    if s.status.as_ref() != Some(&status) {
        if Probe::first(&probe.status_interfered, &name) {
            let sprockets = Api::<Sprocket>::namespaced(probe.other.clone(), &ns);
            probe.step_in(sprockets, &name).await;
        }
        let mut updated = (*s).clone();
        updated.type_meta = type_meta();
        updated.status = Some(status);
        probe.status_writes.fetch_add(1, Ordering::SeqCst);
        let sprockets = ResourceClient::<Sprocket>::namespaced(ctx.client(), &ns);
        probe.checked(
            sprockets
                .update_status(&updated, &PostParams::default())
                .await,
        )?;
        // The write's watch event reconciles the object again, for the child.
        return Ok(Action::await_change());
    }
    let children = ResourceClient::<ConfigMap>::namespaced(ctx.client(), &ns);
    let child_name = format!("{name}-size");
    let mut child = children.get(&child_name).await?;
    let size = s.spec.size.to_string();
    if child.data.as_ref().and_then(|d| d.get("size")) == Some(&size) {
        return Ok(Action::await_change());
    }
    if name == STUCK {
        probe.stuck_attempts.fetch_add(1, Ordering::SeqCst);
        let mut first = probe.stuck_version.lock().unwrap();
        let stale = first.get_or_insert(child.resource_version().unwrap());
        child.metadata.resource_version = Some(stale.clone());
    }
    // The other writer steps in once, at the object's final spec with its status written (STUCK: at once). Nothing
    // writes the object after that, so only the manager's retry can bring the pass back.
    if (name == STUCK || is_final(&s)) && Probe::first(&probe.child_interfered, &name) {
        let configmaps = Api::<ConfigMap>::namespaced(probe.other.clone(), &ns);
        probe.step_in(configmaps, &child_name).await;
    }
    child
        .data
        .get_or_insert_default()
        .insert("size".into(), size);
    probe.child_writes.fetch_add(1, Ordering::SeqCst);
    probe.checked(children.update(&child, &PostParams::default()).await)?;
    Ok(Action::await_change())
}

async fn create(client: &Client, name: &str, size: i64) {
    let sprocket = Sprocket {
        type_meta: type_meta(),
        metadata: ObjectMeta {
            name: Some(name.into()),
            ..ObjectMeta::default()
        },
        spec: SprocketSpec { size },
        status: None,
    };
    Api::<Sprocket>::namespaced(client.clone(), "default")
        .create(&PostParams::default(), &sprocket)
        .await
        .expect("create Sprocket");
    let child = ConfigMap {
        metadata: ObjectMeta {
            name: Some(format!("{name}-size")),
            ..ObjectMeta::default()
        },
        ..ConfigMap::default()
    };
    Api::<ConfigMap>::namespaced(client.clone(), "default")
        .create(&PostParams::default(), &child)
        .await
        .expect("create child");
}

/// The other writer's rounds: each object's annotations (a new version only), then its spec (a new generation,
/// the last change of each object).
async fn keep_changing(client: Client) {
    let api = Api::<Sprocket>::namespaced(client, "default");
    for round in 1..=ROUNDS {
        for i in 0..OBJECTS {
            let name = format!("s-{i}");
            let meta = json!({"metadata": {"annotations": {"rkb.test/round": round.to_string()}}});
            let spec = json!({"spec": {"size": i + 100 * round}});
            for patch in [meta, spec] {
                api.patch(&name, &PatchParams::default(), &Patch::Merge(&patch))
                    .await
                    .expect("the other writer's change");
            }
        }
    }
}

/// Whether every object converged: its status from its latest spec (at the other writer's last round), and its
/// child in step, but STUCK's, which can never be written.
async fn converged(client: &Client) -> Result<Option<()>, String> {
    let sprockets = Api::<Sprocket>::namespaced(client.clone(), "default");
    let children = Api::<ConfigMap>::namespaced(client.clone(), "default");
    let mut behind = Vec::new();
    let text = |e: kube::Error| e.to_string();
    for s in sprockets.list(&ListParams::default()).await.map_err(text)? {
        let name = s.name_any();
        let child = children.get(&format!("{name}-size")).await.map_err(text)?;
        let size = child.data.as_ref().and_then(|d| d.get("size").cloned());
        let child_in_step =
            name == STUCK || (is_final(&s) && size == Some(s.spec.size.to_string()));
        if s.status != Some(desired(&s)) || !child_in_step {
            behind.push(name);
        }
    }
    match behind.len() {
        0 => Ok(Some(())),
        n => Err(format!("{n} objects behind: {behind:?}")),
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn conflicting_writes_are_retried_until_every_status_is_correct() -> anyhow::Result<()> {
    let log = Log::install();
    let env = Environment::start().await?;
    env.install_crds_yaml(CRD).await?;
    let client = env.client();
    for i in 0..OBJECTS {
        create(&client, &format!("s-{i}"), i).await;
    }
    create(&client, STUCK, 1).await;

    let probe = Arc::new(Probe::new(client.clone()));
    let mgr = Manager::builder("rkb-conflict-test")
        .client(client.clone())
        .options(quiet_options())
        .build()
        .await?;
    let metrics = mgr.metrics().clone();
    let recorder = probe.clone();
    mgr.add(move |ctx: Context| async move {
        Controller::for_kind::<Sprocket>(&ctx)
            .concurrency(4)
            .run(move |s, ctx| reconcile(s, ctx, recorder.clone()))
            .await
    });
    let started = Instant::now();
    let running = mgr.spawn();
    keep_changing(client.clone()).await;
    eventually(
        "every status and child from the latest spec",
        Duration::from_secs(20),
        || converged(&client),
    )
    .await?;
    let took = started.elapsed();
    // STUCK's conflict outlasts PERSISTENT_CONFLICT failures in a row (about 1.3 s of backoff) before the stop.
    eventually(
        "STUCK retried past PERSISTENT_CONFLICT",
        Duration::from_secs(10),
        || {
            let n = probe.stuck_attempts.load(Ordering::SeqCst);
            async move { Ok::<_, String>((n > PERSISTENT_CONFLICT).then_some(())) }
        },
    )
    .await?;
    running.stop().await?;
    let ran = started.elapsed();

    let (status_writes, child_writes) = (
        probe.status_writes.load(Ordering::SeqCst),
        probe.child_writes.load(Ordering::SeqCst),
    );
    let conflicts = probe.conflicts.load(Ordering::SeqCst);
    let stuck = probe.stuck_attempts.load(Ordering::SeqCst);
    let (reconciles, counted_errors) = reconcile_counts(&metrics);
    eprintln!(
        "converged in {took:?}: {reconciles} reconciles, {status_writes} status and {child_writes} child writes, \
         {conflicts} conflicts, {stuck} attempts of {STUCK}"
    );

    // Every object's first status write (STUCK's too) and its child write at the final state conflicted (the
    // other writer stepped in), and STUCK's child writes always do: conflicts happened, and every one is a
    // reconcile error as controller-runtime counts it.
    let least = 2 * OBJECTS as usize + 1 + stuck;
    assert!(conflicts >= least, "{conflicts} conflicts < {least}");
    assert_eq!(counted_errors, conflicts as f64, "reconcile errors counted");

    // No hot loop. The least work: a status write and a child write per generation an object is reconciled at
    // (at most ROUNDS + 1), plus the retries of the conflicts the other writer caused (one per write it made,
    // ROUNDS * 2 + 2 per object, a few more where the watch had not caught up). 3x that covers the races; a
    // loop makes thousands.
    let per_object = (ROUNDS + 1) * 2 + ROUNDS * 2 + 2;
    let budget = 3 * (OBJECTS * per_object) as usize;
    assert!(
        status_writes + child_writes <= budget,
        "{status_writes} + {child_writes} writes > {budget}"
    );
    assert!(
        reconciles <= budget as f64,
        "{reconciles} reconciles > {budget}"
    );

    // The conflict that never clears is still retried (not dropped), on a doubling backoff from 5 ms: about
    // log2(elapsed / 5 ms) attempts, 12 in 10 s, not a loop.
    let backoff_bound = 3 + (ran.as_millis() as f64 / 5.0).log2().ceil() as usize;
    assert!(
        (3..=backoff_bound).contains(&stuck),
        "{stuck} attempts of {STUCK} in {ran:?}, at most {backoff_bound}"
    );

    assert_logged(&log, conflicts, stuck);
    Ok(())
}

/// One log line per conflict, at info: an expected race, not a failure of the object. Only STUCK's conflict, once
/// it has lasted PERSISTENT_CONFLICT failures in a row (of its `stuck` attempts), is an error.
fn assert_logged(log: &Log, conflicts: usize, stuck: usize) {
    let (infos, errors) = (log.at("INFO"), log.at("ERROR"));
    let retrying: Vec<_> = infos.iter().filter(|l| l["message"] == RETRYING).collect();
    let at_once = retrying
        .iter()
        .filter(|l| l.get("retry_in").is_none())
        .count();
    eprintln!(
        "{} conflicts retried at once (the cache held a newer version), {} after backoff; {} errors logged",
        at_once,
        retrying.len() - at_once,
        errors.len()
    );
    let persisting = stuck - (PERSISTENT_CONFLICT - 1);
    assert_eq!(
        retrying.len() + persisting,
        conflicts,
        "one line per conflict"
    );
    assert_eq!(errors.len(), persisting, "errors logged: {errors:#?}");
    for line in &errors {
        assert_eq!(
            line["message"], "reconciler error: the conflict persists",
            "{line}"
        );
        assert_eq!(line["span"]["object"], format!("default/{STUCK}"), "{line}");
    }
}

/// The manager's count of the controller's reconciles, and of its reconcile errors.
fn reconcile_counts(metrics: &Metrics) -> (f64, f64) {
    let text = metrics.encode();
    let controller = ("controller", "sprocket");
    let series = |result: &str| {
        let labels = [controller, ("result", result)];
        sample(&text, "controller_runtime_reconcile_total", &labels).unwrap_or_default()
    };
    let reconciles = series("success") + series("error") + series("requeue_after");
    let errors = sample(
        &text,
        "controller_runtime_reconcile_errors_total",
        &[controller],
    );
    (reconciles, errors.unwrap_or_default())
}
