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

use std::convert::Infallible;
use std::net::SocketAddr;

use http::{Method, Request, Response, StatusCode, header};
use http_body_util::Full;
use hyper::body::{Bytes, Incoming};
use hyper_util::rt::TokioIo;
use tokio::io::{AsyncRead, AsyncWrite};
use tokio::net::{TcpListener, TcpStream};
use tokio::task::JoinSet;
use tokio_rustls::server::TlsStream;

use crate::context::Readiness;
use crate::metrics::{CONTENT_TYPE, Metrics, TEXT_CONTENT_TYPE, to_text_format, wants_openmetrics};
use crate::secure::{Authorizer, TlsListener};
use crate::webhook::Webhooks;
use http_body_util::{BodyExt, Limited};

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
    /// The admission webhooks, POST only, each on its path.
    Webhooks {
        webhooks: Webhooks,
        metrics: Metrics,
    },
}

/// The largest request body a webhook reads (the API server's own limit on an object is 3 MiB).
const MAX_WEBHOOK_BODY: usize = 8 << 20;

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
        if let Self::Webhooks { webhooks, metrics } = self {
            return webhook(webhooks, metrics, request).await;
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

/// One admission (or conversion) request: the body to its path's handler, the answer as JSON, counted.
async fn webhook(webhooks: &Webhooks, metrics: &Metrics, request: Request<Incoming>) -> Reply {
    let path = request.uri().path().to_string();
    let Some(handler) = webhooks.handler(&path) else {
        return text(StatusCode::NOT_FOUND, "404 page not found\n");
    };
    if request.method() != Method::POST {
        return text(StatusCode::METHOD_NOT_ALLOWED, "method not allowed\n");
    }
    let recording = metrics.webhook_request(&path);
    let body = match Limited::new(request.into_body(), MAX_WEBHOOK_BODY)
        .collect()
        .await
    {
        Ok(body) => body.to_bytes().to_vec(),
        Err(e) => {
            recording.finish(400);
            return text(
                StatusCode::BAD_REQUEST,
                format!("cannot read the body: {e}\n"),
            );
        }
    };
    let reply = match handler(body).await {
        Ok(review) => reply(StatusCode::OK, "application/json", review.to_string()),
        Err((status, message)) => text(status, format!("{message}\n")),
    };
    recording.finish(reply.status().as_u16());
    reply
}

/// A source of accepted connections: plain TCP, or TLS after the handshake.
pub(crate) trait Accept: Send + 'static {
    type Io: AsyncRead + AsyncWrite + Unpin + Send + 'static;
    fn accept(&mut self) -> impl Future<Output = std::io::Result<(Self::Io, SocketAddr)>> + Send;
}

impl Accept for TcpListener {
    type Io = TcpStream;
    fn accept(&mut self) -> impl Future<Output = std::io::Result<(TcpStream, SocketAddr)>> + Send {
        TcpListener::accept(self)
    }
}

impl Accept for TlsListener {
    type Io = TlsStream<TcpStream>;
    async fn accept(&mut self) -> std::io::Result<(TlsStream<TcpStream>, SocketAddr)> {
        Ok(self.next().await)
    }
}

/// Serves `endpoints` on `listener` until `stop` resolves, then lets open connections finish (module docs).
pub(crate) async fn serve(
    mut listener: impl Accept,
    endpoints: Endpoints,
    stop: impl Future<Output = ()> + Send + 'static,
) -> std::io::Result<()> {
    let (stopping_tx, stopping) = tokio::sync::watch::channel(false);
    let mut connections = JoinSet::new();
    let mut stop = std::pin::pin!(stop);
    loop {
        tokio::select! {
            () = &mut stop => break,
            accepted = listener.accept() => match accepted {
                Ok((io, _peer)) => {
                    connections.spawn(serve_connection(io, endpoints.clone(), stopping.clone()));
                }
                Err(e) => {
                    // Out of file descriptors and the like: back off rather than spin.
                    tracing::debug!(error = %e, "accept failed");
                    tokio::time::sleep(std::time::Duration::from_millis(50)).await;
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

async fn serve_connection(
    io: impl AsyncRead + AsyncWrite + Unpin + Send + 'static,
    endpoints: Endpoints,
    mut stopping: tokio::sync::watch::Receiver<bool>,
) {
    let service = hyper::service::service_fn(move |request| {
        let endpoints = endpoints.clone();
        async move { Ok::<_, Infallible>(endpoints.respond(request).await) }
    });
    let connection =
        hyper::server::conn::http1::Builder::new().serve_connection(TokioIo::new(io), service);
    let mut connection = std::pin::pin!(connection);
    tokio::select! {
        result = connection.as_mut() => {
            if let Err(e) = result {
                tracing::debug!(error = %e, "connection ended with an error");
            }
            return;
        }
        () = async { let _ = stopping.wait_for(|stop| *stop).await; } => connection.as_mut().graceful_shutdown(),
    }
    let _ = connection.await;
}
