//! Every listener's limits with real sockets (server.rs): clients that send a head slowly, sit idle, send a body
//! slowly or flood the port with connections are all closed by the server within the (shortened) limits; at the
//! connection cap the connection waiting longest makes room for a new one, and a flood while every connection is
//! mid-request costs no memory; unfinished large heads hold no more than the head budget. No API server: the
//! manager serves its listeners only.

mod common;
mod limits;

use std::time::Duration;

use common::quiet_options;
use limits::{HEAP, MIB, send, serve, status, tcp, tls, until_closed};
use rkb_runtime::ManagerOptions;
use tokio::io::{AsyncReadExt, AsyncWriteExt};

const HEAD: Duration = Duration::from_secs(1);
const IDLE: Duration = Duration::from_secs(2);
const BODY: Duration = Duration::from_secs(1);
const MAX_CONNECTIONS: usize = 32;
/// How late a close may come after its deadline on a loaded machine.
const SLACK: Duration = Duration::from_secs(3);

fn options() -> ManagerOptions {
    ManagerOptions {
        http_read_header_timeout: HEAD,
        http_idle_timeout: IDLE,
        http_read_body_timeout: BODY,
        http_max_header_bytes: 16 << 10,
        http_max_connections: MAX_CONNECTIONS,
        ..quiet_options()
    }
}

/// The server closed the connection at its deadline `limit`: not before it (less the time the client's connect
/// and handshake took to reach the server), and not long after.
fn closed_at(what: &str, took: Duration, limit: Duration) {
    assert!(
        took >= limit.mul_f64(0.9) && took < limit + SLACK,
        "{what}: closed after {took:?}, the limit is {limit:?}"
    );
}

const PARTIAL_HEAD: &[u8] = b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n";

#[test]
fn a_head_that_does_not_arrive_in_time_is_closed_on_every_listener() {
    limits::run(async {
        let served = serve(options()).await;

        let mut health = tcp(served.health).await;
        send(&mut health, PARTIAL_HEAD).await;
        let (received, took) = until_closed(&mut health, HEAD + SLACK).await;
        closed_at("health, partial head", took, HEAD);
        assert_eq!(received, "", "nothing is answered to half a head");

        for (name, addr) in [("metrics", served.metrics), ("webhook", served.webhook)] {
            let mut conn = tls(addr, &served.cert).await;
            send(&mut conn, PARTIAL_HEAD).await;
            let (_, took) = until_closed(&mut conn, HEAD + SLACK).await;
            closed_at(&format!("{name}, partial head over TLS"), took, HEAD);

            // A TLS handshake that never starts is held to the same deadline.
            let mut silent = tcp(addr).await;
            let (_, took) = until_closed(&mut silent, HEAD + SLACK).await;
            closed_at(&format!("{name}, no TLS handshake"), took, HEAD);
        }
        served.running.stop().await.unwrap();
    });
}

#[test]
fn an_idle_keep_alive_connection_is_closed_after_the_idle_timeout_not_the_head_one() {
    limits::run(async {
        let served = serve(options()).await;

        let requests = [
            ("health", "/healthz", 200),
            ("webhook", "/validate-test-rkb-dev-v1-gadget", 405),
        ];
        for (name, path, answer) in requests {
            // Connected only now: a connection that has sent nothing is held to the head deadline.
            let mut conn: limits::Conn = match name {
                "health" => Box::new(tcp(served.health).await),
                _ => tls(served.webhook, &served.cert).await,
            };
            let request = format!("GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n");
            send(&mut conn, request.as_bytes()).await;
            assert_eq!(status(&limits::read_response(&mut conn).await), answer);
            let (_, took) = until_closed(&mut conn, IDLE + SLACK).await;
            closed_at(&format!("{name}, idle after a request"), took, IDLE);
        }
        served.running.stop().await.unwrap();
    });
}

#[test]
fn a_body_that_does_not_arrive_in_time_is_answered_408() {
    limits::run(async {
        let served = serve(options()).await;
        let mut conn = tls(served.webhook, &served.cert).await;
        send(&mut conn, b"POST /validate-test-rkb-dev-v1-gadget HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 100\r\n\r\n{\"kind\":",).await;
        let (received, took) = until_closed(&mut conn, BODY + SLACK).await;
        closed_at("webhook, slow body", took, BODY);
        assert_eq!(status(&received), 408, "{received}");
        assert!(
            received.ends_with("the body did not arrive within 1s (--http-read-body-timeout)\n"),
            "{received}"
        );
        served.running.stop().await.unwrap();
    });
}

#[test]
fn a_head_over_the_size_limit_is_answered_431() {
    limits::run(async {
        let served = serve(options()).await;
        let mut health = tcp(served.health).await;
        let head = format!(
            "GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Padding: {}\r\n\r\n",
            "p".repeat(20 << 10)
        );
        // The server may answer and close before it has read all of it.
        let _ = health.write_all(head.as_bytes()).await;
        let (received, _) = until_closed(&mut health, SLACK).await;
        assert_eq!(status(&received), 431, "{received}");

        let mut small = tcp(served.health).await;
        let head = format!(
            "GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\nX-Padding: {}\r\n\r\n",
            "p".repeat(12 << 10)
        );
        send(&mut small, head.as_bytes()).await;
        let (received, _) = until_closed(&mut small, SLACK).await;
        assert_eq!(status(&received), 200, "a head under the limit is served");
        served.running.stop().await.unwrap();
    });
}

/// Opens `count` connections to `addr` one after the other; each must be closed by the server at once.
async fn flood(addr: std::net::SocketAddr, count: usize) {
    for _ in 0..count {
        let mut conn = tcp(addr).await;
        let mut byte = [0u8; 1];
        let closed = tokio::time::timeout(HEAD / 2, conn.read(&mut byte)).await;
        assert!(
            matches!(closed, Ok(Ok(0) | Err(_))),
            "a connection over the cap was not closed at once: {closed:?}"
        );
    }
}

/// Whether the server has left `conn` open so far: a read that would wait (tried once, without waiting).
async fn still_open(conn: &mut (impl AsyncReadExt + Unpin)) -> bool {
    let mut byte = [0u8; 1];
    tokio::time::timeout(Duration::ZERO, conn.read(&mut byte))
        .await
        .is_err()
}

/// Long limits for the tests that hold connections while they look at them: only the cap may close them.
fn holding_options() -> ManagerOptions {
    ManagerOptions {
        http_read_header_timeout: Duration::from_secs(60),
        http_idle_timeout: Duration::from_secs(60),
        http_read_body_timeout: Duration::from_secs(60),
        ..options()
    }
}

/// A webhook request whose body has not all arrived: mid-request once the server asked for its body.
async fn mid_request(served: &limits::Served) -> limits::Conn {
    let mut conn = tls(served.webhook, &served.cert).await;
    send(&mut conn, b"POST /validate-test-rkb-dev-v1-gadget HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 100\r\nExpect: 100-continue\r\n\r\n").await;
    assert_eq!(status(&limits::read_response(&mut conn).await), 100);
    send(&mut conn, b"{\"kind\":").await;
    conn
}

const GET_WEBHOOK: &[u8] =
    b"GET /validate-test-rkb-dev-v1-gadget HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n";

#[test]
fn at_the_cap_the_longest_waiting_connection_makes_room_for_a_prompt_client() {
    limits::run(async {
        let served = serve(holding_options()).await;
        // A flood of connections that never start their TLS handshake takes every slot.
        let mut waiting = Vec::new();
        for _ in 0..MAX_CONNECTIONS {
            waiting.push(tcp(served.webhook).await);
        }
        // A client that sends its request at once is served, each time in place of the oldest of the flood.
        let mut prompt = Vec::new();
        for oldest in 0..2 {
            let mut client = tls(served.webhook, &served.cert).await;
            send(&mut client, GET_WEBHOOK).await;
            assert_eq!(status(&limits::read_response(&mut client).await), 405);
            until_closed(&mut waiting[oldest], SLACK).await;
            for (i, conn) in waiting.iter_mut().enumerate().skip(oldest + 1) {
                assert!(
                    still_open(conn).await,
                    "connection {i} was evicted before connection {oldest}"
                );
            }
            prompt.push(client);
        }
        // More of the flood evicts the rest of it, oldest first, before the prompt clients, idle since their
        // answers...
        let mut late = Vec::new();
        for conn in waiting.iter_mut().skip(2) {
            late.push(tcp(served.webhook).await);
            until_closed(conn, SLACK).await;
        }
        for client in &mut prompt {
            assert!(
                still_open(client).await,
                "an idle client was evicted before older waiting connections"
            );
        }
        // ...and then the client idle the longest goes first: the other one still has its connection.
        late.push(tcp(served.webhook).await);
        until_closed(&mut prompt[0], SLACK).await;
        send(&mut prompt[1], GET_WEBHOOK).await;
        assert_eq!(status(&limits::read_response(&mut prompt[1]).await), 405);
        served.running.stop().await.unwrap();
    });
}

#[test]
fn with_every_connection_mid_request_a_flood_is_closed_before_the_tls_handshake() {
    limits::run(async {
        let served = serve(holding_options()).await;
        // Requests whose bodies are still arriving take every slot; none of them may be evicted...
        let mut busy = Vec::new();
        for _ in 0..MAX_CONNECTIONS {
            busy.push(mid_request(&served).await);
        }
        // ...so a flood beyond them is turned away as accepted, holding no memory.
        HEAP.reset_peak_usage();
        let before = HEAP.current_usage();
        flood(served.webhook, 1000).await;
        let grew = HEAP.peak_usage().saturating_sub(before);
        println!(
            "1000 connections over the cap: the heap's peak grew {:.3} MiB",
            grew as f64 / MIB as f64
        );
        assert!(
            grew < MIB / 4,
            "a flood over the cap grew the heap by {grew} bytes"
        );

        // Once one of them has its answer, it idles, and a new client takes its place.
        let mut answered = busy.remove(0);
        send(&mut answered, &[b' '; 92]).await;
        assert_eq!(status(&limits::read_response(&mut answered).await), 400);
        let mut conn = tls(served.webhook, &served.cert).await;
        send(&mut conn, GET_WEBHOOK).await;
        assert_eq!(status(&limits::read_response(&mut conn).await), 405);
        until_closed(&mut answered, SLACK).await;
        for conn in &mut busy {
            assert!(
                still_open(conn).await,
                "a connection mid-request was evicted"
            );
        }
        // Stopping waits for requests in flight: these leave first.
        drop(busy);
        served.running.stop().await.unwrap();
    });
}

#[test]
fn unfinished_large_heads_hold_no_more_than_the_head_budget() {
    const CLIENTS: usize = 64;
    const HEAD_SIZE: usize = 512 << 10;
    // The default --http-max-header-bytes (1 MiB), so the budget is its 4 MiB minimum.
    limits::run(async {
        let served = serve(ManagerOptions {
            http_max_header_bytes: MIB,
            // Room for every client: none is evicted, each is either held or refused.
            http_max_connections: 1024,
            ..holding_options()
        })
        .await;
        let line = format!("X-Fill: {}\r\n", "h".repeat(1014));
        let head = format!(
            "GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n{}",
            line.repeat(HEAD_SIZE / line.len())
        );
        let head = std::sync::Arc::new(head.into_bytes());

        HEAP.reset_peak_usage();
        let before = HEAP.current_usage();
        let mut clients = tokio::task::JoinSet::new();
        let (leave, left) = tokio::sync::watch::channel(false);
        for _ in 0..CLIENTS {
            let (head, mut left) = (head.clone(), left.clone());
            let mut conn = tcp(served.health).await;
            clients.spawn(async move {
                // The server may refuse before it has read all of it.
                let _ = conn.write_all(&head).await;
                tokio::select! {
                    (received, _) = until_closed(&mut conn, Duration::from_secs(60)) => Some(received),
                    _ = left.wait_for(|left| *left) => None,
                }
            });
        }
        // Heads of 512 KiB, of which 16 KiB are free: at most 8 fit the budget, the others are refused.
        let most_held = 4 * MIB / (HEAD_SIZE - (16 << 10));
        let mut refusals = Vec::new();
        while refusals.len() < CLIENTS - most_held {
            let answer = tokio::time::timeout(Duration::from_secs(20), clients.join_next())
                .await
                .unwrap_or_else(|_| {
                    panic!(
                        "only {} of {CLIENTS} unfinished heads refused within 20 s",
                        refusals.len()
                    )
                });
            refusals.extend(answer.unwrap().unwrap());
        }
        let grew = HEAP.peak_usage().saturating_sub(before);
        println!(
            "{CLIENTS} unfinished heads of 512 KiB: {} refused, the heap's peak grew {:.1} MiB",
            refusals.len(),
            grew as f64 / MIB as f64
        );
        for refusal in &refusals {
            assert_eq!(status(refusal), 431, "{refusal}");
        }
        // The budget's 4 MiB, allocated in buffers of up to twice what they hold, and 32 KiB a connection.
        assert!(grew < 12 * MIB, "the heads grew the heap by {grew} bytes");

        // A normal request on a new connection is served meanwhile.
        let mut conn = tcp(served.health).await;
        send(
            &mut conn,
            b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n",
        )
        .await;
        let (received, _) = until_closed(&mut conn, SLACK).await;
        assert_eq!(status(&received), 200, "{received}");
        let _ = leave.send(true);
        while clients.join_next().await.is_some() {}
        served.running.stop().await.unwrap();
    });
}
