//! The manager's HTTP endpoints: /metrics on --metrics-bind-address, /healthz and /readyz on
//! --health-probe-bind-address, the admission webhooks (POST) on --webhook-port.
//!
//! Served with hyper's HTTP/1 connections directly: kube already compiles hyper, and three fixed routes need no
//! web framework (one would add seconds to every operator's build). Contract:
//! - GET and HEAD are answered (POST on webhook paths); other methods get 405, other paths 404.
//! - /metrics is OpenMetrics when the scraper's Accept header asks for it (Prometheus does), else Prometheus'
//!   text format 0.0.4 (what controller-runtime serves).
//! - On stop, the listener closes and every open connection finishes its request in flight, then closes
//!   (keep-alive connections close at once); `serve` returns when all are done.
//!
//! Limits, on every listener (plain and secure metrics, health probes, webhooks), so that no client can hold the
//! manager's memory or connections for long; defaults as controller-runtime's Go `http.Server`, each tuned by its
//! `--http-*` flag:
//! - Connections: at most `--http-max-connections` (1024) per listener, counted from the TCP accept, before any
//!   TLS work. At the cap, the connection that has waited longest without a request in progress (in its TLS
//!   handshake, its head, or idle since its last answer) is closed to admit the new one; a connection mid-request
//!   is never closed for this. Only when all are mid-request is the new one closed as accepted. Either is warned
//!   about at most once a minute. So a client that completes its handshake and head before C − B newer
//!   connections arrive (C the cap, B the connections mid-request) is served, whatever a flood does
//!   (`server/connections.rs`).
//! - Head: the TLS handshake, and then the request line and headers, must arrive within
//!   `--http-read-header-timeout` (32 s) of the connection's start; a later request's head within that time of its
//!   first byte. Otherwise the connection is closed.
//! - Idle: a keep-alive connection waits at most `--http-idle-timeout` (90 s) for its next request's first byte;
//!   an answer the client does not read counts as idle time too. Then it is closed.
//! - Size: a request line and headers over `--http-max-header-bytes` (1 MiB) get 431 and the connection closes.
//! - Heads in progress: the first 16 KiB of each head are free; the bytes beyond are charged as they arrive to a
//!   budget of the listener's (`--http-max-header-bytes` or 4 MiB, whichever is larger), held until the
//!   connection closes, which it does after its answer. A head that does not fit gets 431 and the connection
//!   closes (`server/head.rs`).
//! - Bodies: only the webhooks read one, within `--http-read-body-timeout` and their own limits (408, 413, 429:
//!   see [`crate::webhook`]). The other endpoints answer without reading a body, and hyper closes a connection
//!   whose body was left unread.
//!
//! The deadlines are kept here rather than by hyper's `header_read_timeout`: hyper starts that timer as soon as
//! it waits for a head, so it would also cut keep-alive connections after the header timeout; Go waits the idle
//! timeout for the next request's first byte, then the header timeout for the rest, and so does this module.
//! Worst case held in request heads per listener: the head budget plus `--http-max-connections` × 32 KiB (16 KiB
//! free, 16 KiB read ahead), 36 MiB at the defaults, next to a connection's buffers and TLS state (about 30 KiB
//! each); before the budget, 1024 unfinished 1 MiB heads could hold 1 GiB.

mod connections;
mod head;

use std::convert::Infallible;
use std::io;
use std::pin::Pin;
use std::sync::Arc;
use std::time::Duration;

use http::{Method, Request, Response, StatusCode, header};
use http_body_util::Full;
use hyper::body::{Bytes, Incoming};
use hyper_util::rt::TokioIo;
use tokio::io::{AsyncRead, AsyncWrite};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::watch;
use tokio::task::JoinSet;
use tokio_rustls::TlsAcceptor;

use crate::context::Readiness;
use crate::metrics::{CONTENT_TYPE, Metrics, TEXT_CONTENT_TYPE, to_text_format, wants_openmetrics};
use crate::options::ManagerOptions;
use crate::secure::Authorizer;
use crate::webhook::{Intake, Webhooks};
use connections::{Admission, Connections, Occasional, Slot, Tracked, overdue};
use head::{ConnectionIo, HeadBudget};

/// What one listener serves.
#[derive(Clone)]
pub(crate) enum Endpoints {
    /// /metrics, checked by `auth` when metrics are secure.
    Metrics {
        metrics: Metrics,
        auth: Option<Box<Authorizer>>,
    },
    /// /healthz and /readyz.
    Health { readiness: Readiness },
    /// The admission webhooks, POST only, each on its path; their bodies read through `intake`.
    Webhooks {
        webhooks: Webhooks,
        metrics: Metrics,
        intake: Intake,
    },
}

/// The limits every listener holds its connections to (module docs; the `--http-*` flags).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Limits {
    pub(crate) read_header_timeout: Duration,
    pub(crate) idle_timeout: Duration,
    pub(crate) max_header_bytes: usize,
    pub(crate) max_connections: usize,
}

impl Limits {
    pub(crate) fn from_options(options: &ManagerOptions) -> Self {
        Self {
            read_header_timeout: options.http_read_header_timeout,
            idle_timeout: options.http_idle_timeout,
            max_header_bytes: options.http_max_header_bytes,
            max_connections: options.http_max_connections,
        }
    }
}

/// hyper's smallest read buffer; a smaller header limit is enforced by `max_header_size` alone.
const MIN_READ_BUFFER: usize = 8192;

type Reply = Response<Full<Bytes>>;

fn reply(status: StatusCode, content_type: &str, body: String) -> Reply {
    let mut response = Response::new(Full::new(Bytes::from(body)));
    *response.status_mut() = status;
    if let Ok(value) = header::HeaderValue::from_str(content_type) {
        response.headers_mut().insert(header::CONTENT_TYPE, value);
    }
    response
}

fn text(status: StatusCode, body: impl Into<String>) -> Reply {
    reply(status, "text/plain; charset=utf-8", body.into())
}

impl Endpoints {
    async fn respond(&self, request: Request<Incoming>) -> Reply {
        if let Self::Webhooks {
            webhooks,
            metrics,
            intake,
        } = self
        {
            return webhook(webhooks, metrics, intake, request).await;
        }
        let (method, path) = (request.method(), request.uri().path());
        let known = match self {
            Self::Metrics { .. } => path == "/metrics",
            Self::Health { .. } => path == "/healthz" || path == "/readyz",
            Self::Webhooks { .. } => false,
        };
        if !known {
            return text(StatusCode::NOT_FOUND, "404 page not found\n");
        }
        if method != Method::GET && method != Method::HEAD {
            return text(StatusCode::METHOD_NOT_ALLOWED, "method not allowed\n");
        }
        match self {
            Self::Metrics { metrics, auth } => {
                if let Some(auth) = auth {
                    let verb = method.as_str().to_ascii_lowercase();
                    if let Err((status, message)) = auth.check(request.headers(), &verb, path).await
                    {
                        return text(status, message);
                    }
                }
                let accept = request
                    .headers()
                    .get(header::ACCEPT)
                    .and_then(|v| v.to_str().ok());
                if wants_openmetrics(accept) {
                    reply(StatusCode::OK, CONTENT_TYPE, metrics.encode())
                } else {
                    reply(
                        StatusCode::OK,
                        TEXT_CONTENT_TYPE,
                        to_text_format(&metrics.encode()),
                    )
                }
            }
            // Liveness: the process answers, which is all controller-runtime's default ping checks.
            Self::Health { .. } if path == "/healthz" => text(StatusCode::OK, "ok"),
            Self::Health { readiness } => match readiness.check() {
                Ok(()) => text(StatusCode::OK, "ok"),
                Err(waiting) => text(
                    StatusCode::SERVICE_UNAVAILABLE,
                    format!("caches not synced: {}\n", waiting.join(", ")),
                ),
            },
            Self::Webhooks { .. } => unreachable!("answered above"),
        }
    }
}

/// One admission (or conversion) request: the body, read within the intake's limits, to its path's handler; the
/// answer as JSON, counted. The body's share of the in-flight budget is held until the answer is made.
async fn webhook(
    webhooks: &Webhooks,
    metrics: &Metrics,
    intake: &Intake,
    request: Request<Incoming>,
) -> Reply {
    let path = request.uri().path().to_string();
    let Some(handler) = webhooks.handler(&path) else {
        return text(StatusCode::NOT_FOUND, "404 page not found\n");
    };
    if request.method() != Method::POST {
        return text(StatusCode::METHOD_NOT_ALLOWED, "method not allowed\n");
    }
    let recording = metrics.webhook_request(&path);
    let reply = match intake.read(request.into_body()).await {
        Err((status, message)) => text(status, format!("{message}\n")),
        Ok(body) => {
            let (bytes, share) = body.into_parts();
            let answer = match handler(bytes).await {
                Ok(review) => reply(StatusCode::OK, "application/json", review),
                Err((status, message)) => text(status, format!("{message}\n")),
            };
            drop(share);
            answer
        }
    };
    recording.finish(reply.status().as_u16());
    reply
}

/// What a listener's connections share: the cap on them and the budget of their heads.
#[derive(Clone)]
struct Shared {
    limits: Limits,
    connections: Arc<Connections>,
    heads: Arc<HeadBudget>,
}

impl Shared {
    fn new(limits: Limits) -> Self {
        Self {
            limits,
            connections: Connections::new(limits.max_connections),
            heads: HeadBudget::new(limits),
        }
    }
}

/// Serves `endpoints` on `listener` (over TLS with `tls`) within `limits` until `stop` resolves, then lets open
/// connections finish (module docs).
pub(crate) async fn serve(
    listener: TcpListener,
    tls: Option<rustls::ServerConfig>,
    endpoints: Endpoints,
    limits: Limits,
    stop: impl Future<Output = ()> + Send + 'static,
) -> io::Result<()> {
    serve_shared(listener, tls, endpoints, Shared::new(limits), stop).await
}

async fn serve_shared(
    listener: TcpListener,
    tls: Option<rustls::ServerConfig>,
    endpoints: Endpoints,
    shared: Shared,
    stop: impl Future<Output = ()> + Send + 'static,
) -> io::Result<()> {
    let tls = tls.map(|config| TlsAcceptor::from(Arc::new(config)));
    let mut evicted = Occasional::new(
        "a listener holds --http-max-connections connections: the ones waiting longest are closed to admit new ones",
    );
    let mut turned_away = Occasional::new(
        "a listener holds --http-max-connections connections, all mid-request: new ones are closed as accepted",
    );
    let (stopping_tx, stopping) = watch::channel(false);
    let mut connections = JoinSet::new();
    let mut stop = std::pin::pin!(stop);
    loop {
        tokio::select! {
            () = &mut stop => break,
            accepted = listener.accept() => match accepted {
                Ok((tcp, _peer)) => {
                    let slot = match shared.connections.admit() {
                        Admission::Free(slot) => slot,
                        Admission::Evicted(slot) => {
                            evicted.note(&shared.limits);
                            slot
                        }
                        // Dropping the socket closes it: a flood costs a file descriptor for a moment, no TLS work.
                        Admission::Full => {
                            turned_away.note(&shared.limits);
                            continue;
                        }
                    };
                    let connection = Connection {
                        endpoints: endpoints.clone(),
                        shared: shared.clone(),
                        stopping: stopping.clone(),
                    };
                    connections.spawn(connection.run(tcp, tls.clone(), slot));
                }
                Err(e) => {
                    // Out of file descriptors and the like: back off rather than spin.
                    tracing::debug!(error = %e, "accept failed");
                    tokio::time::sleep(Duration::from_millis(50)).await;
                }
            },
            Some(_) = connections.join_next(), if !connections.is_empty() => {}
        }
    }
    drop(listener);
    let _ = stopping_tx.send(true);
    while connections.join_next().await.is_some() {}
    Ok(())
}

/// What a connection's task needs besides its socket.
struct Connection {
    endpoints: Endpoints,
    shared: Shared,
    stopping: watch::Receiver<bool>,
}

impl Connection {
    /// Serves one accepted connection while it holds `slot`, one of the listener's --http-max-connections.
    async fn run(mut self, tcp: TcpStream, tls: Option<TlsAcceptor>, slot: Slot) {
        let tracked = slot.tracked.clone();
        // The deadlines of its phases, and its eviction, from the accept on: the TLS handshake is held to the
        // header deadline, as Go's http.Server does when only ReadHeaderTimeout is set.
        let overdue = overdue(tracked.watch_phase(), self.shared.limits);
        let mut overdue = std::pin::pin!(overdue);
        let Some(acceptor) = tls else {
            return self.serve_http(tcp, tracked, overdue).await;
        };
        let handshaken = tokio::select! {
            handshaken = acceptor.accept(tcp) => handshaken,
            why = overdue.as_mut() => {
                tracing::debug!(why, "connection closed in its TLS handshake");
                return;
            }
            _ = self.stopping.wait_for(|stop| *stop) => return,
        };
        match handshaken {
            Ok(stream) => self.serve_http(stream, tracked, overdue).await,
            Err(e) => tracing::debug!(error = %e, "TLS handshake failed"),
        }
    }

    /// HTTP/1.1 on `io` until the client leaves, `overdue` resolves (module docs) or the server stops.
    async fn serve_http(
        self,
        io: impl AsyncRead + AsyncWrite + Unpin + Send + 'static,
        tracked: Arc<Tracked>,
        mut overdue: Pin<&mut impl Future<Output = &'static str>>,
    ) {
        let Self {
            endpoints,
            shared,
            mut stopping,
        } = self;
        let io = ConnectionIo::new(io, tracked.clone(), shared.heads.clone());
        let service = hyper::service::service_fn(move |request| {
            let (endpoints, tracked) = (endpoints.clone(), tracked.clone());
            let admitted = tracked.begin_request();
            async move {
                let mut reply = if admitted {
                    endpoints.respond(request).await
                } else {
                    // Evicted as its head completed: the connection is closing anyway.
                    text(
                        StatusCode::SERVICE_UNAVAILABLE,
                        "the listener holds --http-max-connections connections\n",
                    )
                };
                // A connection that holds head budget gives it back by closing (head.rs).
                if !admitted || tracked.charged() {
                    reply.headers_mut().insert(
                        header::CONNECTION,
                        header::HeaderValue::from_static("close"),
                    );
                }
                tracked.answered();
                Ok::<_, Infallible>(reply)
            }
        });
        let limits = shared.limits;
        let connection = hyper::server::conn::http1::Builder::new()
            // Replaced by the deadlines of `overdue` (module docs).
            .header_read_timeout(None)
            .max_header_size(limits.max_header_bytes)
            .max_buf_size(limits.max_header_bytes.max(MIN_READ_BUFFER))
            .serve_connection(TokioIo::new(io), service);
        let mut connection = std::pin::pin!(connection);
        tokio::select! {
            result = connection.as_mut() => {
                if let Err(e) = result {
                    tracing::debug!(error = %e, "connection ended with an error");
                }
                return;
            }
            why = overdue.as_mut() => {
                tracing::debug!(why, "connection closed");
                return;
            }
            _ = stopping.wait_for(|stop| *stop) => connection.as_mut().graceful_shutdown(),
        }
        tokio::select! {
            _ = connection => {}
            why = overdue => tracing::debug!(why, "connection closed"),
        }
    }
}

#[cfg(test)]
mod tests;
