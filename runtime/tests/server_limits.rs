//! Every listener's limits with real sockets (server.rs): clients that send a head slowly, sit idle, send a body
//! slowly or flood the port with connections are all closed by the server within the (shortened) limits, and a
//! flood beyond the connection cap costs no memory. No API server: the manager serves its listeners only.

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

#[test]
fn a_connection_flood_is_capped_before_the_tls_handshake() {
    limits::run(async {
        let served = serve(options()).await;
        // Connections that never start their handshake take every slot...
        let mut held = Vec::new();
        for _ in 0..MAX_CONNECTIONS {
            held.push(tcp(served.webhook).await);
        }
        // ...(the server has accepted them all once one beyond is turned away)...
        flood(served.webhook, 1).await;
        // ...and a flood beyond them is turned away as accepted, holding no memory.
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

        // The held ones are closed at the header deadline, and the listener serves again.
        for mut conn in held {
            let (_, took) = until_closed(&mut conn, HEAD + SLACK).await;
            assert!(took < HEAD + SLACK);
        }
        let mut conn = tls(served.webhook, &served.cert).await;
        send(
            &mut conn,
            b"GET /validate-test-rkb-dev-v1-gadget HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n",
        )
        .await;
        assert_eq!(status(&limits::read_response(&mut conn).await), 405);
        served.running.stop().await.unwrap();
    });
}
