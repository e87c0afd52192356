//! Liveness, readiness and the metrics endpoint.
use crate::notify::outbox::Backlog;
use crate::state::AppState;
use axum::extract::State;
use axum::http::{header, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::Json;
use entity::outbox;
use sea_orm::{ColumnTrait, EntityTrait, PaginatorTrait, QueryFilter};
use serde_json::json;
use std::collections::BTreeSet;

/// `GET /healthz`: the process is alive.
pub async fn healthz() -> Json<serde_json::Value> {
    Json(json!({ "status": "ok" }))
}

/// `GET /readyz`: the database answers and every migration is applied (503 otherwise).
pub async fn readyz(State(state): State<AppState>) -> Response {
    // A probe must get an answer quickly, even while the pool waits for a database that is gone.
    let database = tokio::time::timeout(std::time::Duration::from_secs(3), state.db.ping())
        .await
        .unwrap_or(false);
    let migrations = database
        && tokio::time::timeout(
            std::time::Duration::from_secs(3),
            state.db.migrations_applied(),
        )
        .await
        .is_ok_and(|applied| applied.unwrap_or(false));
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

/// `GET /metrics`: Prometheus text format.
pub async fn metrics(State(state): State<AppState>) -> Response {
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
    if let Ok(backlog) = crate::notify::outbox::backlog(&state.db.conn).await {
        destination_gauges(&backlog);
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
