//! Prometheus metrics: requests by route and status, latency, GraphQL operations, rate-limit rejections.
use crate::FastMap;
use axum::extract::{MatchedPath, Request};
use axum::http::{Method, StatusCode};
use axum::middleware::Next;
use axum::response::Response;
use metrics_exporter_prometheus::{Matcher, PrometheusBuilder, PrometheusHandle};
use std::collections::HashSet;
use std::sync::{Mutex, OnceLock, RwLock};
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

/// The counter and histogram of one (route, method, status).
#[derive(Clone)]
struct RouteMetrics {
    requests: metrics::Counter,
    duration: metrics::Histogram,
}

/// Registered once per (route, method, status) rather than per request: registering builds the labels
/// and looks them up in the recorder, a few thousand instructions every time. Routes are the router's
/// templates and statuses are few, so the map stays small.
static ROUTES: OnceLock<RwLock<ByRoute>> = OnceLock::new();

/// Route template → (method, status) → its metrics.
type ByRoute = FastMap<String, FastMap<(Method, u16), RouteMetrics>>;

fn route_metrics(route: &str, method: &Method, status: StatusCode) -> RouteMetrics {
    let routes = ROUTES.get_or_init(RwLock::default);
    let key = (method.clone(), status.as_u16());
    let known = routes
        .read()
        .ok()
        .and_then(|map| map.get(route)?.get(&key).cloned());
    if let Some(known) = known {
        return known;
    }
    let (method_label, route_label) = (method.to_string(), route.to_string());
    let made = RouteMetrics {
        requests: metrics::counter!("http_requests_total", "method" => method_label.clone(), "route" => route_label.clone(), "status" => status.as_u16().to_string()),
        duration: metrics::histogram!("http_request_duration_seconds", "method" => method_label, "route" => route_label),
    };
    if let Ok(mut map) = routes.write() {
        map.entry(route.to_string())
            .or_default()
            .insert(key, made.clone());
    }
    made
}

/// Route-level middleware: count and time every matched request.
pub async fn track(req: Request, next: Next) -> Response {
    let route = req.extensions().get::<MatchedPath>().cloned();
    let method = req.method().clone();
    let started = Instant::now();
    let response = next.run(req).await;
    let route = route.as_ref().map_or("unmatched", MatchedPath::as_str);
    let metrics = route_metrics(route, &method, response.status());
    metrics.requests.increment(1);
    metrics.duration.record(started.elapsed().as_secs_f64());
    response
}

/// Most distinct operation names given their own label; clients choose names, so the set is capped.
const MAX_OPERATION_NAMES: usize = 500;

static OPERATION_NAMES: OnceLock<Mutex<HashSet<String>>> = OnceLock::new();

/// Count one GraphQL operation by name. Names that are not GraphQL names count as `invalid`, and names
/// beyond the first [`MAX_OPERATION_NAMES`] as `other`, so that clients cannot grow the series without end.
pub fn graphql_operation(name: Option<&str>) {
    let label = match name {
        None => "anonymous".to_string(),
        Some(name) if !is_graphql_name(name) => "invalid".to_string(),
        Some(name) => {
            let names = OPERATION_NAMES.get_or_init(|| Mutex::new(HashSet::new()));
            let mut names = match names.lock() {
                Ok(guard) => guard,
                Err(poisoned) => poisoned.into_inner(),
            };
            if names.contains(name) || names.len() < MAX_OPERATION_NAMES {
                names.insert(name.to_string());
                name.to_string()
            } else {
                "other".to_string()
            }
        }
    };
    metrics::counter!("graphql_operations_total", "operation" => label).increment(1);
}

fn is_graphql_name(name: &str) -> bool {
    let mut chars = name.chars();
    chars
        .next()
        .is_some_and(|c| c == '_' || c.is_ascii_alphabetic())
        && chars.all(|c| c == '_' || c.is_ascii_alphanumeric())
        && name.len() <= 64
}

/// Count one rate-limit rejection.
pub fn rate_limited() {
    metrics::counter!("rate_limit_rejections_total").increment(1);
}
