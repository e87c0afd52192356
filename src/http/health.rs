//! Liveness, readiness and the metrics endpoint.
use crate::state::AppState;
use axum::extract::State;
use axum::http::{header, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::Json;
use serde_json::json;

/// `GET /healthz`: the process is alive.
pub async fn healthz() -> Json<serde_json::Value> {
    Json(json!({ "status": "ok" }))
}

/// `GET /readyz`: the database answers and every migration is applied (503 otherwise).
pub async fn readyz(State(state): State<AppState>) -> Response {
    let database = state.db.ping().await;
    let migrations = database && state.db.migrations_applied().await.unwrap_or(false);
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

/// `GET /metrics`: Prometheus text format.
pub async fn metrics(State(state): State<AppState>) -> Response {
    let pool_size = match state.db.conn.get_database_backend() {
        sea_orm::DbBackend::Postgres => state.db.conn.get_postgres_connection_pool().size(),
        _ => state.db.conn.get_sqlite_connection_pool().size(),
    };
    metrics::gauge!("db_pool_connections").set(f64::from(pool_size));
    // SQL statements run since start: the benchmark divides its delta by requests served.
    metrics::counter!("db_statements_total").absolute(state.db.statement_count());
    let body = crate::http::metrics::handle()
        .map(|h| h.render())
        .unwrap_or_default();
    ([(header::CONTENT_TYPE, "text/plain; version=0.0.4")], body).into_response()
}
