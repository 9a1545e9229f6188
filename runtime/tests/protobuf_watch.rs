//! Metadata watches through `rkb_runtime::client::ProtobufWatchLayer` (the manager's client has it) against a real
//! kube-apiserver: protobuf is what the server sends, and what kube decodes from the transcoded JSON equals what
//! it decodes from the server's own JSON (but for managed fields' fieldsV1, left out), for objects with every
//! metadata field set, for the bookmark that ends a streaming list, and for an ERROR event (410 Gone).

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use futures::{StreamExt, TryStreamExt};
use k8s_openapi::api::core::v1::ConfigMap;
use k8s_openapi::apimachinery::pkg::apis::meta::v1::OwnerReference;
use kube::api::{
    DeleteParams, PartialObjectMeta, Patch, PatchParams, PostParams, WatchEvent, WatchParams,
};
use kube::{Api, Client, ResourceExt};
use rkb_envtest::{Environment, eventually};
use rkb_runtime::client::ProtobufWatchLayer;

const NAMESPACE: &str = "default";
const FINALIZER: &str = "rkb.test/hold";

/// The Content-Type of each response kube-apiserver sent, seen beneath the protobuf layer.
#[derive(Clone, Default)]
struct ContentTypes(Arc<Mutex<Vec<String>>>);

impl ContentTypes {
    fn seen(&self) -> Vec<String> {
        self.0.lock().unwrap().clone()
    }
}

impl<S> tower_layer::Layer<S> for ContentTypes {
    type Service = RecordContentTypes<S>;

    fn layer(&self, inner: S) -> Self::Service {
        RecordContentTypes {
            inner,
            seen: self.clone(),
        }
    }
}

struct RecordContentTypes<S> {
    inner: S,
    seen: ContentTypes,
}

impl<S, B, R> tower_service::Service<http::Request<B>> for RecordContentTypes<S>
where
    S: tower_service::Service<http::Request<B>, Response = http::Response<R>>,
    S::Future: Send + 'static,
{
    type Response = S::Response;
    type Error = S::Error;
    type Future = futures::future::BoxFuture<'static, Result<S::Response, S::Error>>;

    fn poll_ready(
        &mut self,
        cx: &mut std::task::Context<'_>,
    ) -> std::task::Poll<Result<(), S::Error>> {
        self.inner.poll_ready(cx)
    }

    fn call(&mut self, request: http::Request<B>) -> Self::Future {
        let seen = self.seen.clone();
        let response = self.inner.call(request);
        Box::pin(async move {
            let response = response.await?;
            let content_type = response.headers().get(http::header::CONTENT_TYPE);
            let content_type = content_type
                .and_then(|t| t.to_str().ok())
                .unwrap_or_default();
            seen.0.lock().unwrap().push(content_type.to_string());
            Ok(response)
        })
    }
}

/// A client of `env` with the protobuf layer, over a recorder of what the server sent.
fn protobuf_client(env: &Environment) -> (Client, ContentTypes) {
    let seen = ContentTypes::default();
    let client = kube::client::ClientBuilder::try_from(env.config().clone())
        .expect("client")
        .with_layer(&seen)
        .with_layer(&ProtobufWatchLayer)
        .build();
    (client, seen)
}

/// A watch event as compared across the two clients.
#[derive(Clone, Debug, PartialEq)]
enum Seen {
    Added(Box<kube::api::ObjectMeta>),
    Bookmark(String, BTreeMap<String, String>),
    Error(u16, String, String),
    Other(String),
}

/// The resourceVersion of the bookmark that ends `events`.
fn bookmark_version(events: &[Seen]) -> u64 {
    match events.last() {
        Some(Seen::Bookmark(version, _)) => version.parse().expect("a resourceVersion is a number"),
        other => panic!("the events end in a bookmark, not {other:?}"),
    }
}

/// `event` with a bookmark's resourceVersion left out.
fn without_version(event: &Seen) -> Seen {
    match event {
        Seen::Bookmark(_, annotations) => Seen::Bookmark(String::new(), annotations.clone()),
        other => other.clone(),
    }
}

/// `event` with its managed fields' fieldsV1 left out; the JSON watch has it for every entry.
fn without_fields_v1(event: &Seen) -> Seen {
    let mut event = event.clone();
    if let Seen::Added(meta) = &mut event {
        for entry in meta.managed_fields.iter_mut().flatten() {
            assert!(
                entry.fields_v1.take().is_some(),
                "the JSON watch sends fieldsV1"
            );
        }
    }
    event
}

fn seen(event: WatchEvent<PartialObjectMeta<ConfigMap>>) -> Seen {
    match event {
        WatchEvent::Added(obj) => Seen::Added(Box::new(obj.metadata)),
        WatchEvent::Bookmark(b) => {
            Seen::Bookmark(b.metadata.resource_version, b.metadata.annotations)
        }
        WatchEvent::Error(e) => Seen::Error(e.code, e.reason, e.message),
        other => Seen::Other(format!("{other:?}")),
    }
}

/// The events of a metadata watch of the namespace's ConfigMaps with `params` from `version`, up to and including
/// the first bookmark or error.
async fn watch_until_bookmark(client: Client, params: &WatchParams, version: &str) -> Vec<Seen> {
    let api: Api<ConfigMap> = Api::namespaced(client, NAMESPACE);
    let events = api.watch_metadata(params, version).await.expect("watch");
    let mut events = std::pin::pin!(events.map_ok(seen));
    let mut all = Vec::new();
    while let Some(event) = tokio::time::timeout(Duration::from_secs(30), events.next())
        .await
        .expect("an event within 30 s")
    {
        let event = event.expect("a watch event");
        let last = matches!(event, Seen::Bookmark(..) | Seen::Error(..));
        all.push(event);
        if last {
            break;
        }
    }
    all
}

/// ConfigMaps with every metadata field a watch carries: labels, annotations (one not ASCII), an owner reference,
/// a finalizer, generateName, managed fields of two managers (an apply and an update), and a deletion timestamp
/// and grace period (deleted while the finalizer holds it).
async fn objects_with_every_field(client: &Client) {
    let api: Api<ConfigMap> = Api::namespaced(client.clone(), NAMESPACE);
    let owner = api
        .create(&PostParams::default(), &named("owner"))
        .await
        .expect("create the owner");
    let mut full = named("full");
    full.metadata.labels = Some(BTreeMap::from([("app".into(), "web".into())]));
    full.metadata.annotations = Some(BTreeMap::from([(
        "note".into(),
        "héllo ✓ \"quoted\"".into(),
    )]));
    full.metadata.finalizers = Some(vec![FINALIZER.into()]);
    full.metadata.owner_references = Some(vec![OwnerReference {
        api_version: "v1".into(),
        kind: "ConfigMap".into(),
        name: "owner".into(),
        uid: owner.uid().expect("uid"),
        controller: Some(true),
        block_owner_deletion: Some(false),
    }]);
    full.data = Some(BTreeMap::from([("k".into(), "v".into())]));
    let apply = PatchParams::apply("rkb-applier");
    api.patch("full", &apply, &Patch::Apply(&full))
        .await
        .expect("apply");
    let update = serde_json::json!({"data": {"other": "x"}});
    let merge = PatchParams {
        field_manager: Some("rkb-updater".into()),
        ..PatchParams::default()
    };
    api.patch("full", &merge, &Patch::Merge(&update))
        .await
        .expect("update");
    api.delete("full", &DeleteParams::default())
        .await
        .expect("delete: the finalizer keeps it");
    let mut generated = ConfigMap::default();
    generated.metadata.generate_name = Some("generated-".into());
    api.create(&PostParams::default(), &generated)
        .await
        .expect("create with generateName");
}

fn named(name: &str) -> ConfigMap {
    let mut cm = ConfigMap::default();
    cm.metadata.name = Some(name.into());
    cm
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_metadata_watch_is_protobuf_on_the_wire_and_decodes_as_its_json_does() {
    let env = Environment::start().await.expect("envtest");
    objects_with_every_field(&env.client()).await;
    let (client, content_types) = protobuf_client(&env);

    let streaming = WatchParams::streaming_lists();
    let json = watch_until_bookmark(env.client(), &streaming, "").await;
    let protobuf = watch_until_bookmark(client.clone(), &streaming, "").await;

    // Equal, but for managed fields' fieldsV1, which the protobuf layer leaves out, and the bookmark's
    // resourceVersion: the cache's latest, which kube-apiserver's own Lease renewals move on between the watches.
    let (json_version, protobuf_version) = (bookmark_version(&json), bookmark_version(&protobuf));
    assert!(
        protobuf_version >= json_version,
        "{protobuf_version} >= {json_version}"
    );
    let json_without_fields_v1: Vec<Seen> = json.iter().map(without_fields_v1).collect();
    assert_eq!(
        protobuf.iter().map(without_version).collect::<Vec<_>>(),
        json_without_fields_v1
            .iter()
            .map(without_version)
            .collect::<Vec<_>>()
    );
    let full = json.iter().find_map(|event| match event {
        Seen::Added(meta) if meta.name.as_deref() == Some("full") => Some(meta),
        _ => None,
    });
    let full = full.expect("the watch sent the ConfigMap with every field");
    assert!(
        full.deletion_timestamp.is_some()
            && full.managed_fields.as_ref().is_some_and(|m| m.len() == 2)
    );
    assert!(
        matches!(json.last(), Some(Seen::Bookmark(_, a)) if a.contains_key("k8s.io/initial-events-end")),
        "the streaming list ends in its bookmark: {json:?}"
    );
    assert_eq!(
        content_types.seen(),
        vec!["application/vnd.kubernetes.protobuf;stream=watch".to_string()]
    );

    // Anything else goes out as it was: a get, a list of metadata.
    let api: Api<ConfigMap> = Api::namespaced(client, NAMESPACE);
    api.get("owner").await.expect("get");
    api.list_metadata(&Default::default())
        .await
        .expect("list metadata");
    assert_eq!(
        content_types.seen()[1..],
        ["application/json", "application/json"]
    );

    let api: Api<ConfigMap> = Api::namespaced(env.client(), NAMESPACE);
    let release = serde_json::json!({"metadata": {"finalizers": null}});
    api.patch("full", &PatchParams::default(), &Patch::Merge(&release))
        .await
        .expect("release the finalizer");
    env.stop().await.expect("stop envtest");
}

/// A watch from a compacted resourceVersion: without a watch cache, kube-apiserver answers 200 and sends the 410
/// as an ERROR event in the stream, which kube's watcher must read to list again.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_410_in_a_protobuf_watch_reads_as_its_json_does() {
    let env = Environment::builder()
        .apiserver_arg("--watch-cache=false")
        .apiserver_arg("--etcd-compaction-interval=1s")
        .start()
        .await
        .expect("envtest");
    let api: Api<ConfigMap> = Api::namespaced(env.client(), NAMESPACE);
    let old = api
        .create(&PostParams::default(), &named("old"))
        .await
        .expect("create");
    let old = old.resource_version().expect("resourceVersion");
    let writes = std::sync::atomic::AtomicUsize::new(0);
    // Writes move the revision on until compaction passes `old` and a watch from it is refused.
    let json = eventually(
        "a watch from a compacted resourceVersion is refused",
        Duration::from_secs(60),
        || async {
            let write = writes.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            api.create(&PostParams::default(), &named(&format!("filler-{write}")))
                .await?;
            let first = first_event(env.client(), &old).await;
            Ok::<_, kube::Error>(matches!(first, Seen::Error(410, ..)).then_some(first))
        },
    )
    .await
    .expect("compaction within 60 s");
    let (client, content_types) = protobuf_client(&env);
    let protobuf = first_event(client, &old).await;

    assert_eq!(without_digits(protobuf), without_digits(json));
    assert_eq!(
        content_types.seen(),
        vec!["application/vnd.kubernetes.protobuf;stream=watch".to_string()]
    );
    env.stop().await.expect("stop envtest");
}

/// The first event of a metadata watch of the namespace's ConfigMaps from `version`: the ERROR of a compacted
/// one, else the ADDED of a write since.
async fn first_event(client: Client, version: &str) -> Seen {
    let api: Api<ConfigMap> = Api::namespaced(client, NAMESPACE);
    let params = WatchParams::default().timeout(20);
    let events = api.watch_metadata(&params, version).await.expect("watch");
    let mut events = std::pin::pin!(events);
    let first = tokio::time::timeout(Duration::from_secs(30), events.next()).await;
    seen(
        first
            .expect("an event within 30 s")
            .expect("an event")
            .expect("a watch event"),
    )
}

/// `event` with its message's numbers left out: a 410's message names etcd's compacted revision, which compaction
/// moves on between two watches.
fn without_digits(event: Seen) -> Seen {
    match event {
        Seen::Error(code, reason, message) => Seen::Error(
            code,
            reason,
            message.replace(|c: char| c.is_ascii_digit(), ""),
        ),
        other => other,
    }
}
