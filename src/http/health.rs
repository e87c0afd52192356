//! Liveness, readiness and the metrics endpoint.
use crate::error::AppError;
use crate::http::client_ip;
use crate::state::AppState;
use axum::extract::{Request, State};
use axum::http::{header, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::Json;
use entity::outbox;
use sea_orm::{ColumnTrait, EntityTrait, PaginatorTrait, QueryFilter};
use serde_json::json;
use sha2::{Digest, Sha256};
use std::time::{Duration, Instant};

/// `GET /healthz`: the process is alive.
pub async fn healthz() -> Json<serde_json::Value> {
    Json(json!({ "status": "ok" }))
}

/// How long a readiness answer is reused: a flood of probes costs one check a second.
const READY_REUSE: Duration = Duration::from_secs(1);

/// What `/readyz` checked.
#[derive(Clone, Copy, Debug)]
struct Checks {
    database: bool,
    migrations: bool,
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
pub async fn readyz(State(state): State<AppState>) -> Response {
    let Checks {
        database,
        migrations,
    } = {
        let mut last = state.ready_cache.0.lock().await;
        match *last {
            Some((at, checks)) if at.elapsed() < READY_REUSE => checks,
            _ => {
                let checks = check(&state).await;
                *last = Some((Instant::now(), checks));
                checks
            }
        }
    };
    let ready = database && migrations;
    let status = if ready {
        StatusCode::OK
    } else {
        StatusCode::SERVICE_UNAVAILABLE
    };
    let body = json!({
        "status": if ready { "ready" } else { "unavailable" },
        "checks": { "database": database, "migrations": migrations },
    });
    (status, Json(body)).into_response()
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
    // The backlog is read at scrape time; an unreachable database leaves the last value.
    let pending = outbox::Entity::find()
        .filter(outbox::Column::Status.eq(crate::notify::outbox::PENDING))
        .count(&state.db.conn)
        .await;
    if let Ok(pending) = pending {
        metrics::gauge!("outbox_pending_messages").set(pending as f64);
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
