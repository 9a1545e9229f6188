//! The manager's HTTP endpoints: /metrics on --metrics-bind-address, /healthz and /readyz on
//! --health-probe-bind-address.

use axum::Router;
use axum::http::{HeaderMap, Method, StatusCode, Uri, header};
use axum::response::IntoResponse;
use axum::routing::get;

use crate::context::Readiness;
use crate::metrics::{CONTENT_TYPE, Metrics};
use crate::secure::{Authorizer, TlsListener};

pub(crate) fn metrics_router(metrics: Metrics, auth: Option<Authorizer>) -> Router {
    Router::new().route(
        "/metrics",
        get(move |method: Method, uri: Uri, headers: HeaderMap| {
            let (metrics, auth) = (metrics.clone(), auth.clone());
            async move {
                if let Some(auth) = auth {
                    let verb = method.as_str().to_ascii_lowercase();
                    if let Err(denied) = auth.check(&headers, &verb, uri.path()).await {
                        return denied.into_response();
                    }
                }
                ([(header::CONTENT_TYPE, CONTENT_TYPE)], metrics.encode()).into_response()
            }
        }),
    )
}

pub(crate) fn health_router(readiness: Readiness) -> Router {
    Router::new()
        // Liveness: the process answers, which is all controller-runtime's default ping checks.
        .route("/healthz", get(|| async { "ok" }))
        .route(
            "/readyz",
            get(move || {
                let readiness = readiness.clone();
                async move {
                    match readiness.check() {
                        Ok(()) => (StatusCode::OK, "ok".to_string()).into_response(),
                        Err(waiting) => (
                            StatusCode::SERVICE_UNAVAILABLE,
                            format!("caches not synced: {}\n", waiting.join(", ")),
                        )
                            .into_response(),
                    }
                }
            }),
        )
}

pub(crate) async fn serve(
    listener: tokio::net::TcpListener,
    router: Router,
    stop: impl Future<Output = ()> + Send + 'static,
) -> std::io::Result<()> {
    axum::serve(listener, router)
        .with_graceful_shutdown(stop)
        .await
}

pub(crate) async fn serve_tls(
    listener: TlsListener,
    router: Router,
    stop: impl Future<Output = ()> + Send + 'static,
) -> std::io::Result<()> {
    axum::serve(listener, router)
        .with_graceful_shutdown(stop)
        .await
}
