//! client-go's `rest_client_*` metrics for the manager's kube client, from a tower layer around its HTTP service,
//! so kubebuilder's dashboards see the operator's API traffic:
//! - `rest_client_requests_total{code, host, method}`: every response by status code (`<error>` when no response
//!   came back), as controller-runtime registers it;
//! - `rest_client_request_duration_seconds{host, verb}`: request latency, with client-go's buckets.
//!
//! `host` is the API server's `host:port` from the client's configuration (requests inside the stack carry
//! relative URIs). A client handed to the manager ready-made (`ManagerBuilder::client`) is not instrumented.

use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll};
use std::time::Instant;

use http::{Request, Response};
use tower_layer::Layer;
use tower_service::Service;

use crate::metrics::Metrics;

/// Wraps a kube client's HTTP service so each request is counted and timed in `metrics`.
#[derive(Clone)]
pub(crate) struct RestMetricsLayer {
    metrics: Metrics,
    host: String,
}

impl RestMetricsLayer {
    pub(crate) fn new(metrics: Metrics, cluster_url: &http::Uri) -> Self {
        let host = match (cluster_url.host(), cluster_url.port_u16()) {
            (Some(h), Some(p)) => format!("{h}:{p}"),
            (Some(h), None) => h.to_string(),
            _ => String::new(),
        };
        Self { metrics, host }
    }
}

impl<S> Layer<S> for RestMetricsLayer {
    type Service = RestMetricsService<S>;

    fn layer(&self, inner: S) -> Self::Service {
        RestMetricsService {
            inner,
            layer: self.clone(),
        }
    }
}

pub(crate) struct RestMetricsService<S> {
    inner: S,
    layer: RestMetricsLayer,
}

impl<S, ReqBody, ResBody> Service<Request<ReqBody>> for RestMetricsService<S>
where
    S: Service<Request<ReqBody>, Response = Response<ResBody>>,
    S::Future: Send + 'static,
{
    type Response = S::Response;
    type Error = S::Error;
    type Future = Pin<Box<dyn Future<Output = Result<S::Response, S::Error>> + Send>>;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), Self::Error>> {
        self.inner.poll_ready(cx)
    }

    fn call(&mut self, request: Request<ReqBody>) -> Self::Future {
        let method = request.method().as_str().to_string();
        let layer = self.layer.clone();
        let started = Instant::now();
        let response = self.inner.call(request);
        Box::pin(async move {
            let result = response.await;
            let code = match &result {
                Ok(r) => r.status().as_u16().to_string(),
                Err(_) => "<error>".to_string(),
            };
            layer
                .metrics
                .rest_request(&code, &method, &layer.host, started.elapsed());
            result
        })
    }
}
