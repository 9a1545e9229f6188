//! Storage-version migration against a real API server and etcd: Doohickeys are stored as v1, the CRD's storage moves
//! to v2 (both served, identical schemas, `conversion: None`), and the migrator rewrites them. What etcd holds is read
//! with etcd's own API (its v3 JSON gateway), not through the API server, which would convert whatever it reads.
//! Before the migration the API server refuses to drop v1 from the CRD; after it, storedVersions is [v2] and v1 goes.

mod common;

use std::time::Duration;

use base64::Engine;
use base64::engine::general_purpose::STANDARD as BASE64;
use common::{create_namespace, leader_options, quiet_options};
use k8s_openapi::apiextensions_apiserver::pkg::apis::apiextensions::v1::CustomResourceDefinition;
use kube::api::{ApiResource, DynamicObject, PostParams};
use kube::{Api, Client};
use rkb_envtest::{Environment, eventually};
use rkb_runtime::metrics::{Metrics, sample};
use rkb_runtime::storage_migration::StorageMigration;
use rkb_runtime::{Manager, ManagerOptions};
use serde_json::{Value, json};

const CRD: &str = "doohickeys.test.rkb.dev";
const ETCD_PREFIX: &str = "/registry/test.rkb.dev/doohickeys/";
const TIMEOUT: Duration = Duration::from_secs(60);

/// What the module docs' `+kubebuilder:rbac` lines grant, for Doohickeys.
const MIGRATOR_ROLE: &str = "
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata:
  name: doohickey-migrator
rules:
- apiGroups: [apiextensions.k8s.io]
  resources: [customresourcedefinitions]
  verbs: [get]
- apiGroups: [apiextensions.k8s.io]
  resources: [customresourcedefinitions/status]
  verbs: [patch]
- apiGroups: [test.rkb.dev]
  resources: [doohickeys]
  verbs: [get, list, update]
";

/// The Doohickey CRD serving `versions` (all with the same schema), the one named `storage` storing.
fn doohickey_crd(versions: &[&str], storage: &str) -> CustomResourceDefinition {
    let schema = json!({"openAPIV3Schema": {"type": "object", "properties": {
        "spec": {"type": "object", "properties": {"size": {"type": "integer"}}},
    }}});
    let versions: Vec<Value> = versions
        .iter()
        .map(|v| json!({"name": v, "served": true, "storage": *v == storage, "schema": schema}))
        .collect();
    serde_json::from_value(json!({
        "apiVersion": "apiextensions.k8s.io/v1",
        "kind": "CustomResourceDefinition",
        "metadata": {"name": CRD},
        "spec": {
            "group": "test.rkb.dev",
            "names": {
                "kind": "Doohickey", "listKind": "DoohickeyList", "plural": "doohickeys", "singular": "doohickey",
            },
            "scope": "Namespaced",
            "versions": versions,
        },
    }))
    .expect("a CRD")
}

/// Replaces the CRD's versions as `doohickey_crd` makes them (keeping the status the server keeps anyway).
async fn set_versions(
    client: &Client,
    versions: &[&str],
    storage: &str,
) -> Result<CustomResourceDefinition, kube::Error> {
    let api = Api::<CustomResourceDefinition>::all(client.clone());
    let mut crd = api.get(CRD).await?;
    crd.spec.versions = doohickey_crd(versions, storage).spec.versions;
    api.replace(CRD, &PostParams::default(), &crd).await
}

async fn stored_versions(client: &Client) -> Vec<String> {
    let crd = Api::<CustomResourceDefinition>::all(client.clone())
        .get(CRD)
        .await
        .expect("read the CRD");
    crd.status
        .and_then(|s| s.stored_versions)
        .unwrap_or_default()
}

/// Installs the CRD with v1 storing and creates `per_namespace` Doohickeys in each of `namespaces`, named
/// `d-<size>`, through v1.
async fn doohickeys_stored_as_v1(env: &Environment, namespaces: &[&str], per_namespace: usize) {
    env.install_crds([doohickey_crd(&["v1"], "v1")])
        .await
        .expect("install the CRD");
    let client = env.client();
    let v1 = ApiResource {
        group: "test.rkb.dev".into(),
        version: "v1".into(),
        api_version: "test.rkb.dev/v1".into(),
        kind: "Doohickey".into(),
        plural: "doohickeys".into(),
    };
    let mut size = 0;
    for ns in namespaces {
        if *ns != "default" {
            create_namespace(&client, ns).await;
        }
        let api = Api::<DynamicObject>::namespaced_with(client.clone(), ns, &v1);
        for _ in 0..per_namespace {
            let obj = DynamicObject::new(&format!("d-{size}"), &v1)
                .within(ns)
                .data(json!({"spec": {"size": size}}));
            api.create(&PostParams::default(), &obj)
                .await
                .expect("create a Doohickey");
            size += 1;
        }
    }
}

/// Every Doohickey as etcd stores it, by key: a range read of `ETCD_PREFIX` on etcd's v3 JSON gateway.
async fn etcd_doohickeys(etcd: &str) -> Vec<(String, Value)> {
    // The key range [prefix, prefix with its last byte + 1): every key under the prefix.
    let end = ETCD_PREFIX.replace("doohickeys/", "doohickeys0");
    let body =
        json!({"key": BASE64.encode(ETCD_PREFIX), "range_end": BASE64.encode(end)}).to_string();
    let addr = etcd.trim_start_matches("http://").to_string();
    // HTTP/1.0, so the answer is not chunked.
    let response = tokio::task::spawn_blocking(move || {
        use std::io::{Read, Write};
        let mut stream = std::net::TcpStream::connect(&addr).expect("connect to etcd");
        stream
            .set_read_timeout(Some(Duration::from_secs(10)))
            .expect("timeout");
        let request = format!(
            "POST /v3/kv/range HTTP/1.0\r\nHost: {addr}\r\nContent-Type: application/json\r\n\
             Content-Length: {}\r\nConnection: close\r\n\r\n{body}",
            body.len()
        );
        stream.write_all(request.as_bytes()).expect("write");
        let mut response = String::new();
        stream.read_to_string(&mut response).expect("read");
        response
    })
    .await
    .expect("etcd request");
    let (head, body) = response.split_once("\r\n\r\n").expect("an HTTP response");
    assert!(head.split(' ').nth(1) == Some("200"), "{response}");
    let range: Value = serde_json::from_str(body).expect("etcd answers JSON");
    let kvs = range["kvs"].as_array().cloned().unwrap_or_default();
    kvs.iter()
        .map(|kv| {
            let decode = |field: &str| {
                BASE64
                    .decode(kv[field].as_str().expect(field))
                    .expect(field)
            };
            let key = String::from_utf8(decode("key")).expect("a UTF-8 key");
            let value = serde_json::from_slice(&decode("value")).expect("a JSON object");
            (key, value)
        })
        .collect()
}

/// How many objects etcd holds in each version: (v1, v2).
async fn etcd_versions(etcd: &str) -> (usize, usize) {
    let stored = etcd_doohickeys(etcd).await;
    let count = |v: &str| stored.iter().filter(|(_, o)| o["apiVersion"] == v).count();
    let counts = (count("test.rkb.dev/v1"), count("test.rkb.dev/v2"));
    assert_eq!(counts.0 + counts.1, stored.len(), "{stored:?}");
    counts
}

/// Every object is in etcd as v2 with the spec it was created with (`d-<size>` has size `<size>`).
async fn assert_all_v2_and_intact(etcd: &str, expected: usize) {
    let stored = etcd_doohickeys(etcd).await;
    assert_eq!(stored.len(), expected, "{stored:?}");
    for (key, obj) in &stored {
        assert_eq!(obj["apiVersion"], "test.rkb.dev/v2", "{key}: {obj}");
        let name = obj["metadata"]["name"].as_str().expect("a name");
        let size: i64 = name.trim_start_matches("d-").parse().expect("d-<size>");
        assert_eq!(obj["spec"]["size"], size, "{key}: {obj}");
    }
}

/// A manager running the migrator of the Doohickey CRD; returns it with its metrics.
async fn migrating_manager(
    client: Client,
    options: ManagerOptions,
    identity: &str,
    writes_per_second: f64,
) -> (rkb_runtime::RunningManager, Metrics) {
    let mgr = Manager::builder("rkb-storage-migration-test")
        .client(client)
        .options(options)
        .identity(identity)
        .build()
        .await
        .expect("build manager");
    mgr.add(move |ctx| {
        StorageMigration::new(&ctx)
            .crd(CRD)
            .page_size(10)
            .writes_per_second(writes_per_second)
            // Nothing else writes Doohickeys here, so no write in v1 can be in flight once discovery reports v2.
            .settle(Duration::ZERO)
            .run()
    });
    let metrics = mgr.metrics().clone();
    (mgr.spawn(), metrics)
}

fn objects(metrics: &Metrics, outcome: &str) -> u64 {
    let text = metrics.encode();
    let series = [("resource", CRD), ("outcome", outcome)];
    sample(&text, "storage_migration_objects_total", &series).unwrap_or(0.0) as u64
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_leader_migrates_every_object_and_the_old_version_can_then_be_removed() {
    let env = Environment::start().await.expect("envtest");
    let client = env.client();
    let etcd = env.etcd_url().to_string();
    doohickeys_stored_as_v1(&env, &["default", "other"], 13).await;
    assert_eq!(etcd_versions(&etcd).await, (26, 0));

    set_versions(&client, &["v1", "v2"], "v2")
        .await
        .expect("move storage to v2");
    assert_eq!(stored_versions(&client).await, ["v1", "v2"]);
    // Why a migration is needed: the API server keeps v1 while objects may be stored in it.
    let refused = set_versions(&client, &["v2"], "v2")
        .await
        .expect_err("v1 is still a stored version");
    let kube::Error::Api(status) = refused else {
        panic!("{refused:?}")
    };
    assert!(
        status.is_invalid()
            && status
                .message
                .contains("must remain in spec.versions until a storage migration"),
        "{status:?}"
    );

    // Two replicas under leader election: only the leader migrates.
    let options = leader_options("rkb-storage-migration", 15, 10, 200);
    let (first, first_metrics) =
        migrating_manager(client.clone(), options.clone(), "replica-a", 50.0).await;
    let (second, second_metrics) =
        migrating_manager(client.clone(), options, "replica-b", 50.0).await;
    eventually("storedVersions is [v2]", TIMEOUT, || async {
        Ok::<_, kube::Error>((stored_versions(&client).await == ["v2"]).then_some(()))
    })
    .await
    .expect("the migration finishes");

    assert_all_v2_and_intact(&etcd, 26).await;
    // The leader wrote every object once; the follower wrote nothing, not even a no-op.
    let writes = |m: &Metrics| (objects(m, "rewritten"), objects(m, "unchanged"));
    let mut by_replica = [writes(&first_metrics), writes(&second_metrics)];
    by_replica.sort();
    assert_eq!(by_replica, [(0, 0), (26, 0)]);
    set_versions(&client, &["v2"], "v2")
        .await
        .expect("v1 can be removed now");

    first.stop().await.expect("first replica stops");
    second.stop().await.expect("second replica stops");
    env.stop().await.expect("stop envtest");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_interrupted_migration_resumes_and_loses_nothing() {
    const TOTAL: usize = 40;
    let env = Environment::start().await.expect("envtest");
    let client = env.client();
    let etcd = env.etcd_url().to_string();
    doohickeys_stored_as_v1(&env, &["default"], TOTAL).await;
    set_versions(&client, &["v1", "v2"], "v2")
        .await
        .expect("move storage to v2");

    // The migrator holds only the permissions its docs ask for.
    let migrator = env
        .client_with_rbac("doohickey-migrator", MIGRATOR_ROLE)
        .await
        .expect("a client with the migrator's role");
    // Stopped (as the manager stops on SIGTERM) once a quarter of the objects are rewritten.
    let (running, metrics) =
        migrating_manager(migrator.clone(), quiet_options(), "first", 20.0).await;
    eventually("10 objects rewritten", TIMEOUT, || async {
        Ok::<_, String>((objects(&metrics, "rewritten") >= 10).then_some(()))
    })
    .await
    .expect("the migration progresses");
    running.stop().await.expect("the manager stops");
    let done_before = objects(&metrics, "rewritten") as usize;
    assert!(done_before < TOTAL, "stopped too late to test a restart");
    assert_eq!(
        etcd_versions(&etcd).await,
        (TOTAL - done_before, done_before)
    );
    assert_eq!(stored_versions(&client).await, ["v1", "v2"]);

    // Restarted: it finishes; what the first run wrote costs no etcd write the second time.
    let (running, metrics) = migrating_manager(migrator, quiet_options(), "second", 50.0).await;
    eventually("storedVersions is [v2]", TIMEOUT, || async {
        Ok::<_, kube::Error>((stored_versions(&client).await == ["v2"]).then_some(()))
    })
    .await
    .expect("the restarted migration finishes");
    assert_all_v2_and_intact(&etcd, TOTAL).await;
    assert_eq!(
        (
            objects(&metrics, "rewritten"),
            objects(&metrics, "unchanged")
        ),
        ((TOTAL - done_before) as u64, done_before as u64)
    );
    running.stop().await.expect("the manager stops");
    env.stop().await.expect("stop envtest");
}

#[tokio::test]
async fn a_second_migrator_of_one_manager_does_not_duplicate_the_metric_families() {
    // Nothing listens there: the migrators are only built, never run.
    let offline = kube::Config::new("http://127.0.0.1:9".parse().expect("a URL"));
    let mgr = Manager::builder("rkb-storage-migration-test")
        .client(Client::try_from(offline).expect("a client"))
        .build()
        .await
        .expect("build manager");
    let ctx = mgr.context();
    let _first = StorageMigration::new(&ctx).crd(CRD);
    let _second = StorageMigration::new(&ctx).crd("gizmos.test.rkb.dev");
    let text = mgr.metrics().encode();
    let declared = "# TYPE storage_migration_objects counter";
    assert_eq!(text.matches(declared).count(), 1, "{text}");
}
