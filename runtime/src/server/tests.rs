//! The listener's shared limits seen from inside: the head budget's accounting with real sockets, and the order of
//! evictions. runtime/tests/server_limits.rs checks both from a client's side, with the heap measured.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::time::Instant;

use super::connections::{Admission, Phase};
use super::head::FREE_HEAD;
use super::*;
use crate::context::Readiness;

fn limits(max_connections: usize) -> Limits {
    Limits {
        read_header_timeout: Duration::from_secs(60),
        idle_timeout: Duration::from_secs(60),
        max_header_bytes: 1 << 20,
        max_connections,
    }
}

/// A health listener on 127.0.0.1 with `shared`'s limits: its address, and the sender that stops it.
async fn health(shared: Shared) -> (std::net::SocketAddr, tokio::sync::oneshot::Sender<()>) {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    let endpoints = Endpoints::Health {
        readiness: Readiness::default(),
    };
    tokio::spawn(serve_shared(listener, None, endpoints, shared, async {
        let _ = stopped.await;
    }));
    (addr, stop)
}

/// A request head of `size` bytes, its end left out: `GET /healthz`, then 1 KiB header lines.
fn unfinished_head(size: usize) -> Vec<u8> {
    let mut head = b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n".to_vec();
    let line = format!("X-Fill: {}\r\n", "h".repeat(1014));
    while head.len() + line.len() <= size {
        head.extend_from_slice(line.as_bytes());
    }
    head.resize(size, b'h');
    head
}

/// Polls `done` until it holds, failing the test after 20 s with `what`.
async fn eventually(what: &str, mut done: impl FnMut() -> bool) {
    let deadline = Instant::now() + Duration::from_secs(20);
    while !done() {
        assert!(Instant::now() < deadline, "{what}: not within 20 s");
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn unfinished_large_heads_are_held_within_the_head_budget() {
    const CLIENTS: usize = 40;
    const HEAD: usize = 256 << 10;
    let shared = Shared::new(limits(256));
    let budget = shared.heads.clone();
    let (addr, _stop) = health(shared.clone()).await;

    // Each client sends most of a 256 KiB head and waits for the server to close: the refused ones get a 431.
    let head = Arc::new(unfinished_head(HEAD));
    let refused = Arc::new(AtomicUsize::new(0));
    let mut answers = JoinSet::new();
    let mut clients = Vec::new();
    for _ in 0..CLIENTS {
        let (head, refused) = (head.clone(), refused.clone());
        let (hold_tx, hold) = tokio::sync::oneshot::channel::<()>();
        clients.push(hold_tx);
        answers.spawn(async move {
            let mut conn = TcpStream::connect(addr).await.unwrap();
            // The server may refuse before it has read all of it.
            let _ = conn.write_all(&head).await;
            let mut received = Vec::new();
            tokio::select! {
                _ = conn.read_to_end(&mut received) => {}
                _ = hold => return None,
            }
            refused.fetch_add(1, Ordering::SeqCst);
            Some(String::from_utf8_lossy(&received).into_owned())
        });
    }

    // Settled: every client is refused, or the server has read its whole head and charged what is over 16 KiB.
    let charge = HEAD - FREE_HEAD;
    let used = || budget.bytes() - budget.available();
    eventually("every head read or refused", || {
        let used = used();
        used % charge == 0 && refused.load(Ordering::SeqCst) + used / charge == CLIENTS
    })
    .await;
    let held = used() / charge;
    println!(
        "{held} heads of 256 KiB held in a budget of {} bytes",
        budget.bytes()
    );
    assert!(
        (1..=budget.bytes() / charge).contains(&held),
        "{held} heads held"
    );

    // A normal request on a new connection is served meanwhile.
    let mut conn = TcpStream::connect(addr).await.unwrap();
    conn.write_all(b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
        .await
        .unwrap();
    let mut received = String::new();
    conn.read_to_string(&mut received).await.unwrap();
    assert!(received.starts_with("HTTP/1.1 200 OK\r\n"), "{received}");

    // The held clients leave: their charges come back.
    drop(clients);
    let mut refusals = Vec::new();
    while let Some(answer) = answers.join_next().await {
        refusals.extend(answer.unwrap());
    }
    assert_eq!(refusals.len(), CLIENTS - held);
    for refusal in refusals {
        assert!(
            refusal.starts_with("HTTP/1.1 431 Request Header Fields Too Large\r\n")
                && refusal.ends_with("\r\n\r\nrequest heads over 16384 bytes being read on this listener hold their budget of 4194304 bytes (--http-max-header-bytes or 4 MiB): retry later\n"),
            "{refusal}"
        );
    }
    eventually("the charges given back", || used() == 0).await;
}

#[test]
fn the_longest_waiting_connection_is_evicted_and_a_busy_one_never() {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_time()
        .start_paused(true)
        .build()
        .unwrap();
    runtime.block_on(async {
        let connections = Connections::new(3);
        let mut slots = Vec::new();
        for _ in 0..3 {
            let Admission::Free(slot) = connections.admit() else {
                panic!("under the cap")
            };
            slots.push(slot);
            tokio::time::advance(Duration::from_secs(1)).await;
        }
        // The oldest is mid-request, the second idle since its answer (after the third started), the third waits
        // for its head.
        assert!(slots[0].tracked.begin_request());
        assert!(slots[1].tracked.begin_request());
        slots[1].tracked.answered();

        let Admission::Evicted(fourth) = connections.admit() else {
            panic!("at the cap, a waiting connection makes room")
        };
        let phases = |slots: &[Slot]| -> Vec<Phase> {
            slots
                .iter()
                .map(|s| *s.tracked.watch_phase().borrow())
                .collect()
        };
        assert!(matches!(
            phases(&slots)[..],
            [Phase::Busy, Phase::Idle(_), Phase::Evicted]
        ));
        let Admission::Evicted(fifth) = connections.admit() else {
            panic!("the idle one makes room next")
        };
        assert!(matches!(
            phases(&slots)[..],
            [Phase::Busy, Phase::Evicted, Phase::Evicted]
        ));
        // An evicted connection whose head completes is not served.
        assert!(!slots[2].tracked.begin_request());
        assert_eq!(connections.count(), 3);

        // Every connection mid-request: the next one is turned away.
        assert!(fourth.tracked.begin_request() && fifth.tracked.begin_request());
        assert!(matches!(connections.admit(), Admission::Full));
        assert_eq!(connections.count(), 3);
    });
}
