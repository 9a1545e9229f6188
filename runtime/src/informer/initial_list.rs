//! How a watch gets its initial state: a streaming list where the API server supports it, a list otherwise.
//!
//! A list (kube's default `ListWatch`) makes kube-apiserver build the whole answer in memory, page by page, before
//! the watch starts. A streaming list (WatchList, kube's `Config::streaming_lists()`, client-go's
//! WatchListClient) asks for the initial state as events of the watch itself (`sendInitialEvents=true`), ended by
//! a bookmark; the server sends objects as it reads them, from its watch cache.
//!
//! On by default; [`ManagerBuilder::streaming_lists(false)`](crate::ManagerBuilder::streaming_lists) makes every
//! watch list, then watch. The API server authorizes a streaming list as `watch` alone; the role still needs
//! `list` (kubebuilder's get;list;watch) for the fallback below, and rkb-envtest's privilege report counts a
//! streaming list as a use of `list` (the same read).
//!
//! Contract of [`initial_sync`], which every watch the manager's controllers run goes through (scope_watch.rs):
//! - it asks for a streaming list first, at the start and at each relist (after a 410 Gone the watcher starts
//!   over with one);
//! - a server that refuses one (422 Invalid on `sendInitialEvents` or `resourceVersionMatch`: the WatchList
//!   feature gate is off, as on Kubernetes before 1.32 unless turned on) makes that watch list and watch from
//!   then on;
//! - so does a streaming list whose initial state stalls: once the server has answered the watch, no event for
//!   [`STALLED_AFTER`] before the bookmark that ends the initial state (an error stops that clock until the
//!   server answers the watch's next request). A server without a watch cache
//!   (kube-apiserver `--watch-cache=false`) reads a streaming list from etcd, and sends that bookmark only at
//!   etcd's next progress notification (seen on envtest: tens of seconds, or never before the watch times out).
//!   A server with its cache sends the objects as fast as the client reads them and the bookmark right after
//!   them, so a healthy streaming list, however long, is never idle that long;
//! - after either, the manager remembers it ([`StreamingLists`]): its watches started later list at once, and
//!   the fallback is logged once per manager, as a warning naming the reason. The objects a stalled streaming
//!   list had sent are sent again by the list (its `Init` starts the store's state over);
//! - any other error is the watch's, yielded unchanged (watch_retry.rs retries it; time spent backing off
//!   between polls does not count as a stall).
//!
//! Assumed: the server knows the parameters (Kubernetes 1.27 or later; an older one ignores them and sends the
//! objects but never the bookmark: the stall rule above makes such a watch list).

use std::fmt::Display;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use futures::stream::{self, BoxStream};
use futures::{Stream, StreamExt};
use kube::runtime::watcher::{self, Event, watcher};
use kube::{Api, Resource};
use serde::de::DeserializeOwned;

/// How long a streaming list's initial state may go without an event, once the server has answered the watch,
/// before the watch gives up on it and lists (module docs).
pub(crate) const STALLED_AFTER: Duration = Duration::from_secs(10);

/// Whether the manager's watches ask for streaming lists: unless the manager was told not to, or the API server
/// has refused or stalled one. Shared by the manager's watches.
#[derive(Debug, Default)]
pub(crate) struct StreamingLists {
    refused: AtomicBool,
}

impl StreamingLists {
    /// Watches that never ask for a streaming list
    /// ([`ManagerBuilder::streaming_lists(false)`](crate::ManagerBuilder::streaming_lists)).
    pub(crate) fn off() -> Self {
        Self {
            refused: AtomicBool::new(true),
        }
    }

    /// Whether watches list instead: told so, or a watch has seen the server refuse or stall a streaming list.
    pub(crate) fn refused(&self) -> bool {
        self.refused.load(Ordering::Acquire)
    }

    /// Records that a watch gave up on streaming lists because of `reason`; the first one is logged.
    fn refuse(&self, reason: &dyn Display) {
        if !self.refused.swap(true, Ordering::AcqRel) {
            tracing::warn!(
                %reason,
                "streaming lists (WatchList) do not work with this API server: watches list, then watch"
            );
        }
    }
}

type Events<K> = BoxStream<'static, Result<Event<K>, watcher::Error>>;

/// kube-runtime's watcher of `api` with `config`, getting its initial state as the module docs say.
pub(crate) fn initial_sync<K>(
    api: Api<K>,
    config: watcher::Config,
    lists: Arc<StreamingLists>,
) -> impl Stream<Item = Result<Event<K>, watcher::Error>> + Send + 'static
where
    K: Resource + Clone + DeserializeOwned + std::fmt::Debug + Send + 'static,
{
    if lists.refused() {
        return watcher(api, config).boxed();
    }
    let streaming = watcher(api.clone(), config.clone().streaming_lists()).boxed();
    with_fallback(
        streaming,
        Box::new(move || watcher(api, config).boxed()),
        lists,
    )
}

/// `streaming`'s events until it is refused or stalls, `fallback`'s from then on (module docs).
fn with_fallback<K: Send + 'static>(
    streaming: Events<K>,
    fallback: Fallback<K>,
    lists: Arc<StreamingLists>,
) -> Events<K> {
    let streaming = Streaming {
        events: streaming,
        fallback: Some(fallback),
        syncing: false,
        lists,
    };
    stream::unfold(streaming, |mut streaming| async move {
        let event = streaming.next().await?;
        Some((event, streaming))
    })
    .boxed()
}

/// Starts the watch that lists, then watches.
type Fallback<K> = Box<dyn FnOnce() -> Events<K> + Send>;

/// A watch asking for streaming lists until it falls back (module docs).
struct Streaming<K> {
    events: Events<K>,
    /// The watch to list and watch with instead; None once the watch has fallen back.
    fallback: Option<Fallback<K>>,
    /// Whether a streaming list's initial state is under way (from its `Init` to its `InitDone`).
    syncing: bool,
    lists: Arc<StreamingLists>,
}

impl<K: Send + 'static> Streaming<K> {
    /// The watch's next event; None when it ends.
    async fn next(&mut self) -> Option<Result<Event<K>, watcher::Error>> {
        loop {
            let event = if self.syncing && self.fallback.is_some() {
                match tokio::time::timeout(STALLED_AFTER, self.events.next()).await {
                    Ok(event) => event?,
                    Err(_) => {
                        self.fall_back(&format_args!(
                            "a streaming list sent no event for {STALLED_AFTER:?} before the end of its \
                             initial state (an API server without its watch cache?)"
                        ));
                        continue;
                    }
                }
            } else {
                self.events.next().await?
            };
            match &event {
                Err(error) if self.fallback.is_some() && refuses_streaming(error) => {
                    self.fall_back(error);
                    continue;
                }
                Ok(Event::Init | Event::InitApply(_)) => self.syncing = true,
                // After an error the watcher makes a new request: the server's answer (an Init, or the initial
                // state going on) starts the clock again, so a slow or unreachable server is no stalled list.
                Ok(Event::InitDone) | Err(_) => self.syncing = false,
                _ => {}
            }
            return Some(event);
        }
    }

    /// Makes this watch list and watch from now on, and the manager's later ones (module docs).
    fn fall_back(&mut self, reason: &dyn Display) {
        if let Some(fallback) = self.fallback.take() {
            self.lists.refuse(reason);
            self.events = fallback();
            self.syncing = false;
        }
    }
}

/// Whether `error` is a server's refusal of the streaming list's parameters.
fn refuses_streaming(error: &watcher::Error) -> bool {
    const PARAMETERS: [&str; 2] = ["sendInitialEvents", "resourceVersionMatch"];
    let watcher::Error::WatchStartFailed(kube::Error::Api(status)) = error else {
        return false;
    };
    let on_parameter = status
        .details
        .iter()
        .flat_map(|details| &details.causes)
        .any(|cause| PARAMETERS.contains(&cause.field.as_str()));
    matches!(status.code, 400 | 422)
        && (on_parameter || PARAMETERS.iter().any(|p| status.message.contains(p)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use k8s_openapi::api::core::v1::ConfigMap;
    use kube::ResourceExt;
    use kube::core::Status;

    /// A watch start refused with `code` and a cause on `field`, as kube-apiserver 1.35 answers a streaming list
    /// with `--feature-gates=WatchList=false`.
    fn refused(code: u16, field: &str) -> watcher::Error {
        let status: Status = serde_json::from_value(serde_json::json!({
            "status": "Failure",
            "code": code,
            "reason": "Invalid",
            "message": "ListOptions.meta.k8s.io \"\" is invalid: sendInitialEvents: Forbidden: sendInitialEvents is forbidden for watch unless the WatchList feature gate is enabled",
            "details": {"group": "meta.k8s.io", "kind": "ListOptions", "causes": [{
                "reason": "FieldValueForbidden",
                "message": "Forbidden: sendInitialEvents is forbidden for watch unless the WatchList feature gate is enabled",
                "field": field,
            }]},
        }))
        .unwrap();
        watcher::Error::WatchStartFailed(kube::Error::Api(Box::new(status)))
    }

    fn cm(name: &str) -> ConfigMap {
        let mut cm = ConfigMap::default();
        cm.metadata.name = Some(name.into());
        cm
    }

    /// What a watch yields, as `Init`, `InitApply name`, `InitDone`, `Apply name`.
    fn told(events: &[Result<Event<ConfigMap>, watcher::Error>]) -> Vec<String> {
        events
            .iter()
            .map(|event| match event {
                Ok(Event::Init) => "Init".to_string(),
                Ok(Event::InitApply(cm)) => format!("InitApply {}", cm.name_any()),
                Ok(Event::InitDone) => "InitDone".to_string(),
                Ok(Event::Apply(cm)) => format!("Apply {}", cm.name_any()),
                Ok(Event::Delete(cm)) => format!("Delete {}", cm.name_any()),
                Err(error) => format!("Err {error}"),
            })
            .collect()
    }

    /// A streaming list that sends `a` and then nothing (as kube-apiserver without its watch cache holds back the
    /// bookmark), and the list that replaces it.
    fn stalling_after_a() -> (Events<ConfigMap>, Fallback<ConfigMap>) {
        let streaming = stream::iter([Ok(Event::Init), Ok(Event::InitApply(cm("a")))])
            .chain(stream::pending())
            .boxed();
        let listed = [
            Ok(Event::Init),
            Ok(Event::InitApply(cm("a"))),
            Ok(Event::InitApply(cm("b"))),
            Ok(Event::InitDone),
            Ok(Event::Apply(cm("b"))),
        ];
        (streaming, Box::new(move || stream::iter(listed).boxed()))
    }

    #[tokio::test(start_paused = true)]
    async fn a_streaming_list_silent_before_its_end_falls_back_to_a_list_and_is_remembered() {
        let lists = Arc::new(StreamingLists::default());
        let (streaming, fallback) = stalling_after_a();
        let started = tokio::time::Instant::now();
        let events: Vec<_> = with_fallback(streaming, fallback, lists.clone())
            .collect()
            .await;
        assert_eq!(
            told(&events),
            [
                "Init",
                "InitApply a",
                "Init",
                "InitApply a",
                "InitApply b",
                "InitDone",
                "Apply b"
            ]
        );
        assert_eq!(started.elapsed(), STALLED_AFTER);
        assert!(lists.refused(), "the manager's later watches list at once");
    }

    #[tokio::test(start_paused = true)]
    async fn a_watch_quiet_after_its_initial_state_keeps_streaming() {
        let lists = Arc::new(StreamingLists::default());
        // The initial state ends, then nothing changes for a long time: that is no stall.
        let streaming = stream::iter([Ok(Event::Init), Ok(Event::InitDone)])
            .chain(
                stream::once(async {
                    tokio::time::sleep(STALLED_AFTER * 3).await;
                    Ok(Event::Apply(cm("late")))
                })
                .boxed(),
            )
            .boxed();
        let (_, fallback) = stalling_after_a();
        let events: Vec<_> = with_fallback(streaming, fallback, lists.clone())
            .collect()
            .await;
        assert_eq!(told(&events), ["Init", "InitDone", "Apply late"]);
        assert!(!lists.refused());
    }

    #[tokio::test(start_paused = true)]
    async fn waiting_on_a_server_after_an_error_is_no_stall() {
        let lists = Arc::new(StreamingLists::default());
        // The watch fails mid-list; the server takes long to answer the next request, then streams on.
        let failed = Status::failure("etcdserver: leader changed", "InternalError").with_code(500);
        let streaming = stream::iter([
            Ok(Event::Init),
            Err(watcher::Error::WatchError(Box::new(failed))),
        ])
        .chain(
            stream::once(async {
                tokio::time::sleep(STALLED_AFTER * 3).await;
                Ok(Event::InitApply(cm("a")))
            })
            .boxed(),
        )
        .chain(stream::iter([Ok(Event::InitDone)]))
        .boxed();
        let (_, fallback) = stalling_after_a();
        let events: Vec<_> = with_fallback(streaming, fallback, lists.clone())
            .collect()
            .await;
        assert_eq!(events.len(), 4, "{:?}", told(&events));
        assert!(!lists.refused());
    }

    #[test]
    fn a_refusal_is_a_422_on_the_streaming_parameters() {
        assert!(refuses_streaming(&refused(422, "sendInitialEvents")));
        assert!(refuses_streaming(&refused(422, "resourceVersionMatch")));
        assert!(!refuses_streaming(&refused(403, "sendInitialEvents")));
        let gone = Status::failure("too old resource version", "Expired").with_code(410);
        assert!(!refuses_streaming(&watcher::Error::WatchError(Box::new(
            gone
        ))));
    }
}
