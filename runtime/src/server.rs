//! The manager's HTTP endpoints: /metrics on --metrics-bind-address, /healthz and /readyz on
//! --health-probe-bind-address.

use axum::Router;
use axum::http::{StatusCode, header};
use axum::response::IntoResponse;
use axum::routing::get;

use crate::context::Readiness;
use crate::metrics::{CONTENT_TYPE, Metrics};

pub(crate) fn metrics_router(metrics: Metrics) -> Router {
    Router::new().route(
        "/metrics",
        get(move || {
            let metrics = metrics.clone();
            async move { ([(header::CONTENT_TYPE, CONTENT_TYPE)], metrics.encode()) }
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
