//! A listener's open connections: where each is in its requests (which decides its deadline and whether it may be
//! evicted), and the `--http-max-connections` cap with eviction (the Limits of [`super`]).
//!
//! Contract:
//! - Each connection is in one [`Phase`]: waiting for a head (the TLS handshake included), busy with a request,
//!   idle between requests, or evicted. Only the service moves it to busy and back; a byte that arrives ends idle.
//! - At the cap, a new connection takes the place of the one that has waited longest (in its handshake, its head,
//!   or idle since its last answer): that one is evicted, which closes it. A busy connection is never evicted: the
//!   move to busy and the eviction are made under the phase's lock, so a request whose head was taken is answered.
//!   Only when every connection is busy is the new one closed as accepted, before any TLS work.
//!
//! Why the longest waiting goes first: it is the one closest to its own deadline, and a client that connects and
//! sends its request at once stays young until its head is read. So a client whose handshake and head arrive before
//! C − B newer connections do (C the cap, B the connections mid-request) is served, however many connections a
//! flood opens; before this, a flood of C idle connections locked every client out for up to the header timeout.

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

use tokio::sync::watch;
use tokio::time::Instant;

use super::Limits;

/// Where a connection is in its requests, which decides the deadline it is held to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Phase {
    /// Waiting for a request's head: since the connection started (its TLS handshake included), or since the first
    /// byte after an idle spell.
    Head(Instant),
    /// A request is being answered; its own limits apply (the webhooks' body deadline).
    Busy,
    /// Between requests, since the last answer was made.
    Idle(Instant),
    /// Closed to admit a newer connection (module docs).
    Evicted,
}

/// One connection's state, shared by its task, its I/O, its service and the listener's registry.
pub(super) struct Tracked {
    phase: watch::Sender<Phase>,
    /// An answer was made that has not been flushed yet: hyper writes it after the service returns, so nothing
    /// else may be written to the connection meanwhile.
    answer_unsent: AtomicBool,
    /// A head of this connection drew on the listener's head budget, which it holds until it closes (`head.rs`):
    /// its answer closes it.
    charged: AtomicBool,
}

impl Tracked {
    fn new() -> Self {
        Self {
            phase: watch::Sender::new(Phase::Head(Instant::now())),
            answer_unsent: AtomicBool::new(false),
            charged: AtomicBool::new(false),
        }
    }

    pub(super) fn watch_phase(&self) -> watch::Receiver<Phase> {
        self.phase.subscribe()
    }

    /// A request's head was read: busy, unless the connection was evicted first (then false).
    pub(super) fn begin_request(&self) -> bool {
        let mut evicted = false;
        self.phase.send_if_modified(|phase| {
            evicted = *phase == Phase::Evicted;
            *phase = if evicted { Phase::Evicted } else { Phase::Busy };
            !evicted
        });
        !evicted
    }

    /// The request's answer is made (hyper is about to write it): idle from now.
    pub(super) fn answered(&self) {
        self.answer_unsent.store(true, Ordering::Release);
        self.phase.send_if_modified(|phase| match phase {
            Phase::Busy => {
                *phase = Phase::Idle(Instant::now());
                true
            }
            Phase::Head(_) | Phase::Idle(_) | Phase::Evicted => false,
        });
    }

    /// Everything written so far has been flushed.
    pub(super) fn flushed(&self) {
        self.answer_unsent.store(false, Ordering::Release);
    }

    pub(super) fn answer_unsent(&self) -> bool {
        self.answer_unsent.load(Ordering::Acquire)
    }

    /// Bytes arrived: an idle connection starts its next head now. Whether it is reading a head (after this).
    pub(super) fn bytes_arrived(&self) -> HeadRead {
        let mut started = false;
        self.phase.send_if_modified(|phase| {
            if let Phase::Idle(_) = phase {
                *phase = Phase::Head(Instant::now());
                started = true;
            }
            started
        });
        match *self.phase.borrow() {
            Phase::Head(_) if started => HeadRead::Started,
            Phase::Head(_) => HeadRead::Continued,
            Phase::Busy | Phase::Idle(_) | Phase::Evicted => HeadRead::NotAHead,
        }
    }

    pub(super) fn mark_charged(&self) {
        self.charged.store(true, Ordering::Release);
    }

    pub(super) fn charged(&self) -> bool {
        self.charged.load(Ordering::Acquire)
    }

    /// Since when it has waited, when it waits for a head or idles; None when busy or evicted.
    fn waiting_since(&self) -> Option<Instant> {
        match *self.phase.borrow() {
            Phase::Head(since) | Phase::Idle(since) => Some(since),
            Phase::Busy | Phase::Evicted => None,
        }
    }

    /// Evicts it unless it is busy: whether it was.
    fn evict(&self) -> bool {
        self.phase.send_if_modified(|phase| match phase {
            Phase::Head(_) | Phase::Idle(_) => {
                *phase = Phase::Evicted;
                true
            }
            Phase::Busy | Phase::Evicted => false,
        })
    }
}

/// What a read of a connection's bytes belonged to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum HeadRead {
    /// The first bytes of a head after an idle spell.
    Started,
    /// More of the head in progress (the first head's bytes included).
    Continued,
    /// A body, or bytes read ahead while a request is answered.
    NotAHead,
}

/// The open connections of one listener, at most `max` (module docs).
pub(super) struct Connections {
    max: usize,
    open: Mutex<Open>,
}

#[derive(Default)]
struct Open {
    by_id: HashMap<u64, Arc<Tracked>>,
    next_id: u64,
}

/// How a new connection was admitted.
pub(super) enum Admission {
    /// Under the cap.
    Free(Slot),
    /// At the cap, in place of the connection that had waited longest.
    Evicted(Slot),
    /// Every open connection is busy: the new one is closed.
    Full,
}

impl Connections {
    pub(super) fn new(max: usize) -> Arc<Self> {
        Arc::new(Self {
            max,
            open: Mutex::default(),
        })
    }

    fn lock(&self) -> MutexGuard<'_, Open> {
        self.open.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Admits a connection just accepted (module docs).
    pub(super) fn admit(self: &Arc<Self>) -> Admission {
        let mut open = self.lock();
        let evicted = open.by_id.len() >= self.max;
        if evicted && !open.evict_longest_waiting() {
            return Admission::Full;
        }
        let id = open.next_id;
        open.next_id += 1;
        let tracked = Arc::new(Tracked::new());
        open.by_id.insert(id, tracked.clone());
        let slot = Slot {
            connections: self.clone(),
            id,
            tracked,
        };
        if evicted {
            Admission::Evicted(slot)
        } else {
            Admission::Free(slot)
        }
    }

    #[cfg(test)]
    pub(super) fn count(&self) -> usize {
        self.lock().by_id.len()
    }
}

impl Open {
    /// Evicts the connection that has waited longest, and forgets it (its task closes it at once): false when
    /// every connection is busy.
    fn evict_longest_waiting(&mut self) -> bool {
        loop {
            let oldest = self
                .by_id
                .iter()
                .filter_map(|(&id, tracked)| tracked.waiting_since().map(|since| (since, id)))
                .min();
            let Some((_, id)) = oldest else {
                return false;
            };
            let tracked = self.by_id.remove(&id).expect("listed just now");
            if tracked.evict() {
                return true;
            }
            // It began a request since it was listed: keep it and look again.
            self.by_id.insert(id, tracked);
        }
    }
}

/// A connection's place among the listener's open connections, given back when its task ends.
pub(super) struct Slot {
    connections: Arc<Connections>,
    id: u64,
    pub(super) tracked: Arc<Tracked>,
}

impl Drop for Slot {
    fn drop(&mut self) {
        self.connections.lock().by_id.remove(&self.id);
    }
}

/// Resolves, with the reason, once the connection has stayed in its phase longer than `limits` allow, or at once
/// when it is evicted.
pub(super) async fn overdue(mut phase: watch::Receiver<Phase>, limits: Limits) -> &'static str {
    loop {
        let deadline = match *phase.borrow_and_update() {
            Phase::Head(since) => Some((
                since + limits.read_header_timeout,
                "no request head within --http-read-header-timeout",
            )),
            Phase::Idle(since) => {
                Some((since + limits.idle_timeout, "idle for --http-idle-timeout"))
            }
            Phase::Busy => None,
            Phase::Evicted => {
                return "evicted to admit a new connection (--http-max-connections)";
            }
        };
        let expired = async {
            match deadline {
                Some((at, why)) => {
                    tokio::time::sleep_until(at).await;
                    why
                }
                None => std::future::pending().await,
            }
        };
        tokio::select! {
            why = expired => return why,
            changed = phase.changed() => {
                // The sender lives as long as the connection: no change will come, nor a deadline.
                if changed.is_err() {
                    return std::future::pending().await;
                }
            }
        }
    }
}

/// Something that happens to connections, warned about at most once a minute with how often it happened since.
pub(super) struct Occasional {
    what: &'static str,
    since_report: u64,
    last_report: Option<Instant>,
}

impl Occasional {
    pub(super) const fn new(what: &'static str) -> Self {
        Self {
            what,
            since_report: 0,
            last_report: None,
        }
    }

    pub(super) fn note(&mut self, limits: &Limits) {
        self.since_report += 1;
        let due = self
            .last_report
            .is_none_or(|at| at.elapsed() >= Duration::from_secs(60));
        if due {
            tracing::warn!(
                connections = self.since_report,
                max_connections = limits.max_connections,
                max_header_bytes = limits.max_header_bytes,
                "{}",
                self.what
            );
            self.since_report = 0;
            self.last_report = Some(Instant::now());
        }
    }
}
