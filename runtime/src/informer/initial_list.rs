//! How a watch gets its initial state: a streaming list where the API server supports it, a list otherwise.
//!
//! A list (kube's default `ListWatch`) makes kube-apiserver build the whole answer in memory, page by page, before
//! the watch starts. A streaming list (WatchList, kube's `Config::streaming_lists()`, client-go's
//! WatchListClient) asks for the initial state as events of the watch itself (`sendInitialEvents=true`), ended by
//! a bookmark; the server sends objects as it reads them, from its watch cache.
//!
//! Off unless the manager is built with
//! [`ManagerBuilder::streaming_lists(true)`](crate::ManagerBuilder::streaming_lists): a streaming list is
//! authorized as `watch` alone, so the `list` verb that kubebuilder's RBAC markers grant would go unused and
//! rkb's least-privilege tests (the audit log against the roles) would flag it; and see the assumptions below.
//!
//! Contract of [`initial_sync`], which every watch the manager's controllers run goes through (scope_watch.rs),
//! when on:
//! - it asks for a streaming list first, at the start and at each relist (after a 410 Gone the watcher starts
//!   over with one);
//! - a server that refuses one (422 Invalid on `sendInitialEvents` or `resourceVersionMatch`: the WatchList
//!   feature gate is off, as on Kubernetes before 1.32 unless turned on) makes that watch list and watch from
//!   then on, and the manager remembers it ([`StreamingLists`]): its watches started later list at once, and the
//!   fallback is logged once per manager, as a warning;
//! - any other error is the watch's, yielded unchanged (watch_retry.rs retries it).
//!
//! Assumed: the server knows the parameters (Kubernetes 1.27 or later; an older one ignores them, sends the
//! objects but never the bookmark that ends the initial state, and the cache would never sync), and serves watches
//! from its watch cache, as kube-apiserver does unless started with `--watch-cache=false`. Without the cache a
//! streaming list is read from etcd, and the bookmark that ends it waits for etcd's next progress notification
//! (observed on envtest: up to tens of seconds after a relist): a manager talking to such a server lists.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use futures::stream::{self, BoxStream};
use futures::{Stream, StreamExt};
use kube::runtime::watcher::{self, Event, watcher};
use kube::{Api, Resource};
use serde::de::DeserializeOwned;

/// Whether the manager's watches ask for streaming lists: unless the manager was told not to, or the API server
/// has refused one. Shared by the manager's watches.
#[derive(Debug, Default)]
pub(crate) struct StreamingLists {
    refused: AtomicBool,
}

impl StreamingLists {
    /// Watches that never ask for a streaming list (the default of
    /// [`ManagerBuilder::streaming_lists`](crate::ManagerBuilder::streaming_lists)).
    pub(crate) fn off() -> Self {
        Self {
            refused: AtomicBool::new(true),
        }
    }

    /// Whether watches list instead: told so, or a watch has seen the server refuse a streaming list.
    pub(crate) fn refused(&self) -> bool {
        self.refused.load(Ordering::Acquire)
    }

    /// Records the refusal `error`; the first one is logged.
    fn refuse(&self, error: &watcher::Error) {
        if !self.refused.swap(true, Ordering::AcqRel) {
            tracing::warn!(
                %error,
                "the API server refuses streaming lists (WatchList): watches list, then watch"
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
    let streaming: Events<K> = watcher(api.clone(), config.clone().streaming_lists()).boxed();
    let state = (streaming, Some((api, config)), lists);
    stream::unfold(state, |(mut events, mut fallback, lists)| async move {
        loop {
            let event = events.next().await?;
            if let Err(error) = &event
                && refuses_streaming(error)
                && let Some((api, config)) = fallback.take()
            {
                lists.refuse(error);
                events = watcher(api, config).boxed();
                continue;
            }
            return Some((event, (events, fallback, lists)));
        }
    })
    .boxed()
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
