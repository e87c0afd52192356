//! Prometheus metrics: requests by route and status, latency, GraphQL operations, rate-limit rejections.
use axum::extract::{MatchedPath, Request};
use axum::middleware::Next;
use axum::response::Response;
use metrics_exporter_prometheus::{Matcher, PrometheusBuilder, PrometheusHandle};
use std::sync::OnceLock;
use std::time::Instant;

static HANDLE: OnceLock<Option<PrometheusHandle>> = OnceLock::new();

/// The process-wide recorder (installed on first use; shared by every router in the process).
pub fn handle() -> Option<&'static PrometheusHandle> {
    HANDLE
        .get_or_init(|| {
            let buckets = [
                0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0,
            ];
            PrometheusBuilder::new()
                .set_buckets_for_metric(
                    Matcher::Full("http_request_duration_seconds".into()),
                    &buckets,
                )
                .ok()
                .and_then(|b| b.install_recorder().ok())
        })
        .as_ref()
}

/// Route-level middleware: count and time every matched request.
pub async fn track(req: Request, next: Next) -> Response {
    let route = req
        .extensions()
        .get::<MatchedPath>()
        .map(|p| p.as_str().to_string())
        .unwrap_or_else(|| "unmatched".to_string());
    let method = req.method().to_string();
    let started = Instant::now();
    let response = next.run(req).await;
    let status = response.status().as_u16().to_string();
    metrics::counter!("http_requests_total", "method" => method.clone(), "route" => route.clone(), "status" => status)
        .increment(1);
    metrics::histogram!("http_request_duration_seconds", "method" => method, "route" => route)
        .record(started.elapsed().as_secs_f64());
    response
}

/// Count one GraphQL operation by name.
pub fn graphql_operation(name: Option<&str>) {
    metrics::counter!("graphql_operations_total", "operation" => name.unwrap_or("anonymous").to_string()).increment(1);
}

/// Count one rate-limit rejection.
pub fn rate_limited() {
    metrics::counter!("rate_limit_rejections_total").increment(1);
}
