//! How the manager's watches retry: on the API server's clock during an outage, on their own otherwise.
//!
//! kube-runtime's default watch backoff doubles from 0.8 s to 30 s, one schedule per watch. Through a 5 s outage a
//! watch fails three or four times and its next try is then up to 6.4 s away, so controllers and child indexes
//! came back seconds after the server did, each on its own schedule, with a warning per attempt.
//!
//! Contract, for every watch the manager runs through [`retrying`] (a controller's triggers, the child index):
//! - an error that says the API server cannot be reached (no connection, a transport failure: the
//!   [`crate::outage`] rule) marks the server down, which starts the manager's one prober, and the watch then
//!   waits for the prober's answer instead of a delay of its own: every watch resumes within one
//!   [`crate::outage::PROBE_INTERVAL`] of the server answering, and sends nothing while it does not;
//! - once the manager shuts down (or is gone) there is no prober to wait for (it ends at once, which would let
//!   the watch retry in a loop): such an error then waits as kube-runtime's default backoff says, for a watch
//!   that outlives its manager (an informer given its context);
//! - 410 Gone (the watch's resourceVersion was compacted away) is retried at once and not yielded (a debug line):
//!   kube's watcher then lists again, which is the protocol, not a failure for the caller to report;
//! - any other error (403, a 5xx from a server that answers) waits as kube-runtime's default backoff says;
//! - an event resets the backoff.
//!
//! Other errors are still yielded, so the caller logs each one: one line per failure of the watch, not per
//! attempt.

use std::time::Duration;

use futures::{Stream, StreamExt};
use kube::runtime::utils::Backoff;
use kube::runtime::watcher;

use crate::Context;

/// What a watch waits for before asking the API server again.
enum Pause {
    None,
    /// The manager's prober to get an answer.
    ServerBack,
    For(Duration),
}

/// `events` (a kube-runtime watcher stream) retried as the module docs say.
pub(crate) fn retrying<S, T>(
    events: S,
    ctx: &Context,
) -> impl Stream<Item = Result<T, watcher::Error>> + Send + 'static
where
    S: Stream<Item = Result<T, watcher::Error>> + Send + 'static,
    T: Send + 'static,
{
    let state = (
        Box::pin(events),
        watcher::DefaultBackoff::default(),
        Pause::None,
    );
    let ctx = ctx.clone();
    futures::stream::unfold(state, move |(mut events, mut backoff, pause)| {
        let ctx = ctx.clone();
        async move {
            match pause {
                Pause::None => {}
                Pause::ServerBack => {
                    ctx.outage().wait().await;
                    tracing::debug!("watch: the API server answers, watching again");
                }
                Pause::For(delay) => {
                    tracing::debug!(?delay, "watch: retrying after its backoff");
                    tokio::time::sleep(delay).await;
                }
            }
            let event = loop {
                match events.next().await? {
                    Err(e) if is_gone(&e) => tracing::debug!("watch expired, listing again"),
                    event => break event,
                }
            };
            let pause = match &event {
                Ok(_) => {
                    backoff.reset();
                    Pause::None
                }
                Err(e) if is_unavailable(e) && prober_can_run(&ctx) => {
                    ctx.outage().begin(&ctx.client(), ctx.shutdown_receiver());
                    Pause::ServerBack
                }
                Err(_) => Pause::For(backoff.next().unwrap_or(Duration::from_secs(30))),
            };
            Some((event, (events, backoff, pause)))
        }
    })
}

/// Whether the manager can still probe the API server: not once it shuts down or is dropped.
fn prober_can_run(ctx: &Context) -> bool {
    let shutdown = ctx.shutdown_receiver();
    !*shutdown.borrow() && shutdown.has_changed().is_ok()
}

/// 410 Gone: the watch must start again from a fresh list.
fn is_gone(error: &watcher::Error) -> bool {
    matches!(error, watcher::Error::WatchError(status) if status.code == 410)
}

fn is_unavailable(error: &watcher::Error) -> bool {
    match error {
        watcher::Error::InitialListFailed(e)
        | watcher::Error::WatchStartFailed(e)
        | watcher::Error::WatchFailed(e) => crate::outage::is_unavailable(e),
        watcher::Error::WatchError(_) | watcher::Error::NoResourceVersion => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use kube::core::Status;

    #[test]
    fn transport_failures_wait_for_the_server_and_gone_relists_at_once() {
        let transport = || kube::Error::Service("connection refused".into());
        assert!(is_unavailable(&watcher::Error::WatchStartFailed(
            transport()
        )));
        assert!(is_unavailable(&watcher::Error::InitialListFailed(
            transport()
        )));
        assert!(is_unavailable(&watcher::Error::WatchFailed(transport())));
        let status = |code| Box::new(Status::failure("x", "y").with_code(code));
        let gone = watcher::Error::WatchError(status(410));
        assert!(is_gone(&gone) && !is_unavailable(&gone));
        let refused = watcher::Error::InitialListFailed(kube::Error::Api(status(403)));
        assert!(!is_gone(&refused) && !is_unavailable(&refused));
    }
}
