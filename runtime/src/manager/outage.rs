//! API server outages: a reconcile that fails because the API server cannot answer is not the object's fault, and
//! retrying it per object only adds load where the server is already gone.
//!
//! Expected flow, inside every [`crate::Controller`] of a manager:
//! 1. a reconcile fails with an error whose chain holds a `kube::Error` saying the server could not be reached: no
//!    connection, a transport failure or a timeout;
//! 2. the failure is not charged to the object's backoff nor to the controller's overall rate limit; the manager
//!    marks the API server down (one warning), and one prober asks it `GET /readyz` every [`PROBE_INTERVAL`];
//! 3. reconciles wait before running while it is down; the failed ones are queued again after [`RETRY_AFTER`]
//!    and wait too;
//! 4. when the prober gets an answer (one info line), every waiting reconcile runs at once: queued work resumes
//!    at full speed instead of at the pace a drained rate limiter would allow.
//!
//! Guarantees: while the API server is down, no reconcile starts: only those already running fail, so at most one
//! failure per object (runtime/tests/outage.rs counts them). What the manager still sends is the prober's request;
//! the watches of its controllers and child index, and informers given its context, wait for the prober too
//! (watch_retry.rs). Work resumes within one [`PROBE_INTERVAL`] of the server answering.
//!
//! Caveats: an error is recognised by the first `kube::Error` of its `source()` chain, whatever type the reconciler
//! returns (failure.rs): its own error enum, `anyhow::Error`, the runtime's errors. HTTP statuses (429, 5xx) are not an
//! outage here, though the server may be overloaded: they come from a server that answers, possibly about one API group
//! only (an unavailable aggregated API answers 503), so pausing every controller on them would let one object's failure
//! stall all the others, and `/readyz` would reopen the gate at once (a retry loop without backoff). They keep
//! per-object backoff. Before a reconcile sees one, kube-client (5.x, `Config::default_retry`, on in the manager's
//! client) has already retried a 429, 503 or 504 up to 15 times: after the server's `Retry-After` when it sends one
//! (API Priority and Fairness does), else 5 ms doubling.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use kube::Client;
use tokio::sync::watch;

/// How often the prober asks a down API server whether it answers again.
pub const PROBE_INTERVAL: Duration = Duration::from_millis(500);

/// When a reconcile that failed on the outage is queued again (it then waits until the server answers).
pub const RETRY_AFTER: Duration = Duration::from_millis(200);

/// Whether `error`, or the first `kube::Error` of its `source()` chain, says the API server could not be reached:
/// how the manager tells an outage (module docs), and how an operator can, e.g. to skip writing a failure into a
/// status while no write can succeed. For an `anyhow::Error`, pass `error.as_ref()`.
pub fn is_unavailable(error: &(dyn std::error::Error + 'static)) -> bool {
    crate::failure::kube_error_in(error).is_some_and(crate::failure::kube_unavailable)
}

/// The manager's view of the API server: up, or down with a prober running. Cheap to clone.
#[derive(Clone)]
pub(crate) struct Outage {
    state: Arc<State>,
}

struct State {
    down: watch::Sender<bool>,
    probing: AtomicBool,
}

impl Default for Outage {
    fn default() -> Self {
        Outage {
            state: Arc::new(State {
                down: watch::Sender::new(false),
                probing: AtomicBool::new(false),
            }),
        }
    }
}

impl Outage {
    /// Marks the API server down, and starts the prober unless one runs.
    pub(crate) fn begin(&self, client: &Client, shutdown: watch::Receiver<bool>) {
        self.state.down.send_replace(true);
        if self.state.probing.swap(true, Ordering::SeqCst) {
            return;
        }
        tracing::warn!(
            retry_every = ?PROBE_INTERVAL,
            "the API server does not answer: reconciles wait until it does"
        );
        let (state, client) = (self.state.clone(), client.clone());
        tokio::spawn(async move {
            let answers = probe(&client);
            tokio::select! {
                () = answers => tracing::info!("the API server answers again: reconciles resume"),
                () = async {
                    let mut shutdown = shutdown;
                    crate::leader::wait_true(&mut shutdown).await;
                } => {}
            }
            state.down.send_replace(false);
            state.probing.store(false, Ordering::SeqCst);
        });
    }

    /// Returns at once while the API server is up; while it is down, when it answers again.
    pub(crate) async fn wait(&self) {
        let mut down = self.state.down.subscribe();
        let _ = down.wait_for(|down| !*down).await;
    }
}

/// How long one probe may wait for its answer. A probe can stall on a connection that a starting kube-apiserver
/// has accepted (its listener is bound well before it serves) or on one lost with the old process; the client's
/// own timeouts are minutes, which would hold every reconcile back long after the server answers.
const PROBE_TIMEOUT: Duration = Duration::from_secs(2);

/// Returns once the API server is ready: `GET /readyz` answers 200, or refuses the manager (401, 403, 404: a
/// cluster whose RBAC does not grant it the public health endpoints is up enough to say so).
///
/// Why not `/version`: a starting kube-apiserver answers it seconds before it can serve what controllers ask
/// (its caches and custom resources are not ready; such requests wait or fail with 503). Reconciles let through
/// then stalled behind a request that took 5 s, one round in three of the outage benchmark.
async fn probe(client: &Client) {
    loop {
        tokio::time::sleep(PROBE_INTERVAL).await;
        let request = http::Request::get("/readyz")
            .body(Vec::new())
            .expect("a GET of a fixed path is a valid request");
        match tokio::time::timeout(PROBE_TIMEOUT, client.request_text(request)).await {
            Ok(Ok(_)) => return,
            Ok(Err(kube::Error::Api(status))) if status.code < 500 => return,
            Ok(Err(error)) => tracing::debug!(%error, "probe: not ready yet"),
            Err(_) => tracing::debug!(timeout = ?PROBE_TIMEOUT, "probe: no answer in time"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use kube::core::Status;

    fn api(code: u16) -> kube::Error {
        kube::Error::Api(Box::new(Status::failure("x", "y").with_code(code)))
    }

    #[test]
    fn unavailable_servers_are_told_from_refusals_through_every_wrapper() {
        let transport = || kube::Error::Service("connection refused".into());
        assert!(is_unavailable(&transport()));
        // Answers, even 429 and 503: the server is there (an aggregated API may be what is down).
        for code in [400, 403, 404, 409, 422, 429, 500, 503] {
            assert!(!is_unavailable(&api(code)), "{code}");
        }
        assert!(is_unavailable(&crate::Error::Kube(transport())));
        assert!(is_unavailable(&crate::client::Error::Kube(transport())));
        assert!(!is_unavailable(&crate::client::Error::Kube(api(503))));
        let boxed: crate::BoxError = Box::new(crate::Error::Kube(transport()));
        assert!(is_unavailable(&*boxed));
        let wrapped = anyhow::Error::new(transport()).context("applying the Deployment");
        assert!(is_unavailable(wrapped.as_ref()));
        assert!(!is_unavailable(&std::fmt::Error));
    }
}
