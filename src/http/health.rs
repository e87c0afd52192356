//! Liveness, readiness and the metrics endpoint.
use crate::error::AppError;
use crate::http::client_ip;
use crate::http::errors::Door;
use crate::http::routes::Routes;
use crate::notify::outbox::{self, Backlog};
use crate::state::AppState;
use axum::extract::{Request, State};
use axum::http::{header, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use axum::{Extension, Json};
use serde::Serialize;
use sha2::{Digest, Sha256};
use std::collections::BTreeSet;
use std::sync::Arc;
use std::time::{Duration, Instant};
use utoipa::ToSchema;

/// The operational routes: `/healthz`, `/readyz` (with its own remembered answer) and `/metrics`.
pub fn router() -> Routes {
    Routes::new(Door::Rest)
        .route("/healthz", get(healthz))
        .route("/readyz", get(readyz))
        .route("/metrics", get(metrics))
        .map(|router| router.layer(Extension(Arc::new(ReadyCache::default()))))
}

/// `GET /healthz`.
#[derive(Serialize, ToSchema)]
pub struct Health {
    /// `ok`.
    status: &'static str,
}

/// `GET /healthz`: the process is alive.
#[utoipa::path(get, path = "/healthz", tag = "meta", operation_id = "healthz", summary = "Liveness.",
    responses((status = 200, description = "Alive", body = Health)))]
pub async fn healthz() -> Json<Health> {
    Json(Health { status: "ok" })
}

/// How long a readiness answer is reused: a flood of probes costs one check a second.
const READY_REUSE: Duration = Duration::from_secs(1);

/// Readiness checks.
#[derive(Clone, Copy, Debug, Serialize, ToSchema)]
#[schema(as = ReadyChecks)]
pub struct Checks {
    /// The database answers.
    database: bool,
    /// Every migration is applied.
    migrations: bool,
}

/// `GET /readyz` (200 when ready, 503 otherwise).
#[derive(Serialize, ToSchema)]
pub struct Ready {
    /// `ready` or `unavailable`.
    status: &'static str,
    /// Individual checks.
    checks: Checks,
}

/// The last readiness answer and when it was taken. Its lock is held during a check, so concurrent
/// probes wait for that one check and reuse its answer instead of each running SQL.
#[derive(Debug, Default)]
pub struct ReadyCache(tokio::sync::Mutex<Option<(Instant, Checks)>>);

async fn check(state: &AppState) -> Checks {
    // A probe must get an answer quickly, even while the pool waits for a database that is gone.
    let database = tokio::time::timeout(Duration::from_secs(3), state.db.ping())
        .await
        .unwrap_or(false);
    let migrations = database
        && tokio::time::timeout(Duration::from_secs(3), state.db.migrations_applied())
            .await
            .is_ok_and(|applied| applied.unwrap_or(false));
    Checks {
        database,
        migrations,
    }
}

/// `GET /readyz`: the database answers and every migration is applied (503 otherwise), as checked at most
/// once a second.
#[utoipa::path(get, path = "/readyz", tag = "meta", operation_id = "readyz",
    summary = "Readiness: the database answers and every migration is applied (checked at most once a second).",
    responses(
        (status = 200, description = "Ready", body = Ready),
        (status = 503, description = "Not ready", body = Ready),
    ))]
pub async fn readyz(
    State(state): State<AppState>,
    Extension(cache): Extension<Arc<ReadyCache>>,
) -> Response {
    let checks = {
        let mut last = cache.0.lock().await;
        match *last {
            Some((at, checks)) if at.elapsed() < READY_REUSE => checks,
            _ => {
                let checks = check(&state).await;
                *last = Some((Instant::now(), checks));
                checks
            }
        }
    };
    let ready = checks.database && checks.migrations;
    let status = if ready {
        StatusCode::OK
    } else {
        StatusCode::SERVICE_UNAVAILABLE
    };
    let body = Ready {
        status: if ready { "ready" } else { "unavailable" },
        checks,
    };
    (status, Json(body)).into_response()
}

/// Destinations reported at the last scrape, so one whose backlog drained drops to 0.
static REPORTED: std::sync::Mutex<BTreeSet<String>> = std::sync::Mutex::new(BTreeSet::new());

/// `outbox_destination_pending{destination}` and `outbox_destination_oldest_age_seconds{destination}`.
fn destination_gauges(backlog: &[Backlog]) {
    let now = chrono::Utc::now();
    let current: BTreeSet<String> = backlog.iter().map(|b| b.destination.label()).collect();
    if let Ok(mut reported) = REPORTED.lock() {
        for gone in reported.difference(&current) {
            metrics::gauge!("outbox_destination_pending", "destination" => gone.clone()).set(0.0);
            metrics::gauge!("outbox_destination_oldest_age_seconds", "destination" => gone.clone())
                .set(0.0);
        }
        *reported = current;
    }
    for b in backlog {
        let label = b.destination.label();
        let age = (now - b.oldest).num_milliseconds().max(0) as f64 / 1000.0;
        metrics::gauge!("outbox_destination_pending", "destination" => label.clone())
            .set(b.pending as f64);
        metrics::gauge!("outbox_destination_oldest_age_seconds", "destination" => label).set(age);
    }
}

/// Whether `req` may read the metrics: from this host, or with `DESKGRAPH_METRICS_TOKEN` as its bearer.
fn may_scrape(state: &AppState, req: &Request) -> bool {
    if client_ip::is_local(req, &state.config.trusted_proxies) {
        return true;
    }
    let Some(expected) = &state.config.metrics_token else {
        return false;
    };
    let sent = req
        .headers()
        .get(header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.strip_prefix("Bearer "))
        .unwrap_or("");
    // Digests compared, so the time taken says nothing about how much of the token was right.
    Sha256::digest(sent.trim().as_bytes()) == Sha256::digest(expected.as_bytes())
}

/// `GET /metrics`: Prometheus text format, for this host or the holder of `DESKGRAPH_METRICS_TOKEN`.
#[utoipa::path(get, path = "/metrics", tag = "meta", operation_id = "metrics",
    summary = "Prometheus metrics: for clients on this host, or with `DESKGRAPH_METRICS_TOKEN` as a bearer token.",
    responses(
        (status = 200, description = "Prometheus text format", content_type = "text/plain", body = String),
        (status = 403, description = "Another host, without the metrics token", body = crate::error::bodies::Error),
    ))]
pub async fn metrics(State(state): State<AppState>, req: Request) -> Response {
    if !may_scrape(&state, &req) {
        return AppError::forbidden(
            "metrics are served to this host, or with DESKGRAPH_METRICS_TOKEN as a bearer token",
        )
        .into_response();
    }
    let pool_size = match state.db.conn.get_database_backend() {
        sea_orm::DbBackend::Postgres => state.db.conn.get_postgres_connection_pool().size(),
        _ => state.db.conn.get_sqlite_connection_pool().size(),
    };
    metrics::gauge!("db_pool_connections").set(f64::from(pool_size));
    // The backlog is read at scrape time; an unreachable database leaves the last value. Rows due
    // later (scheduled SLA checks) are reported apart: they are not waiting on anything.
    let now = outbox::now_ms();
    if let Ok(backlog) = outbox::backlog(&state.db.conn, now).await {
        let due: i64 = backlog.iter().map(|b| b.pending).sum();
        metrics::gauge!("outbox_pending_messages").set(due as f64);
        destination_gauges(&backlog);
    }
    if let Ok(scheduled) = outbox::scheduled(&state.db.conn, now).await {
        metrics::gauge!("outbox_scheduled_messages").set(scheduled as f64);
    }
    // SQL statements run since start: the benchmark divides its delta by requests served.
    metrics::counter!("db_statements_total").absolute(state.db.statement_count());
    metrics::counter!("graphql_plain_objects_total").absolute(
        state
            .plain_objects
            .load(std::sync::atomic::Ordering::Relaxed),
    );
    let body = crate::http::metrics::handle()
        .map(|h| h.render())
        .unwrap_or_default();
    ([(header::CONTENT_TYPE, "text/plain; version=0.0.4")], body).into_response()
}
