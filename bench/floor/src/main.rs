//! Bench-only floor for deskgraph's harness (`bench/run.sh`), adapted from `shared/perf/floor` to deskgraph's
//! schema (`tickets.project_id` is nullable, so the project is a LEFT JOIN; ties break on id like deskgraph).
//! Not part of the service, not a workspace member.
//!
//! "Floor" peer for the ticketing perf workload: the fastest reasonable Rust implementation of
//!   A: GET /api/tickets/        -> 20 newest non-archived tickets + requester/assignee/project fields
//!   A-count: GET /api/tickets-count/ -> A plus the total `count`, as the REST contract's page has it
//!   B: GET /api/tickets/{id}/   -> one ticket by id + the same nested fields
//! One JOIN query per request (sqlx caches it as a prepared statement), serde_json output.
//! Env: DATABASE_URL (default postgres://perf:perf@127.0.0.1/perf), PORT (default 8003), POOL_SIZE (default 8).
use axum::{
    extract::{Path, State},
    http::StatusCode,
    response::{IntoResponse, Response},
    routing::get,
    Json, Router,
};
use chrono::{DateTime, Utc};
use serde::Serialize;
use sqlx::{postgres::PgPoolOptions, FromRow, PgPool};

const LIST_SQL: &str = "SELECT t.id, t.ticket_number, t.title, t.status, t.priority, t.created_at, t.updated_at, \
       r.username AS requester_username, r.full_name AS requester_full_name, \
       a.username AS assignee_username, p.name AS project_name \
  FROM tickets t \
  JOIN users r ON r.id = t.requester_id \
  LEFT JOIN users a ON a.id = t.assignee_id \
  LEFT JOIN projects p ON p.id = t.project_id \
 WHERE t.archived_at IS NULL \
 ORDER BY t.created_at DESC, t.id DESC \
 LIMIT 20";

const DETAIL_SQL: &str = "SELECT t.id, t.ticket_number, t.title, t.description, t.status, t.priority, \
       t.created_at, t.updated_at, t.archived_at, \
       r.username AS requester_username, r.full_name AS requester_full_name, \
       a.username AS assignee_username, p.name AS project_name \
  FROM tickets t \
  JOIN users r ON r.id = t.requester_id \
  LEFT JOIN users a ON a.id = t.assignee_id \
  LEFT JOIN projects p ON p.id = t.project_id \
 WHERE t.id = $1";

#[derive(FromRow)]
struct ListRow {
    id: i32,
    ticket_number: String,
    title: String,
    status: String,
    priority: String,
    created_at: DateTime<Utc>,
    updated_at: DateTime<Utc>,
    requester_username: String,
    requester_full_name: String,
    assignee_username: Option<String>,
    project_name: Option<String>,
}

#[derive(FromRow)]
struct DetailRow {
    id: i32,
    ticket_number: String,
    title: String,
    description: String,
    status: String,
    priority: String,
    created_at: DateTime<Utc>,
    updated_at: DateTime<Utc>,
    archived_at: Option<DateTime<Utc>>,
    requester_username: String,
    requester_full_name: String,
    assignee_username: Option<String>,
    project_name: Option<String>,
}

#[derive(Serialize)]
struct Requester {
    username: String,
    full_name: String,
}

#[derive(Serialize)]
struct Assignee {
    username: String,
}

#[derive(Serialize)]
struct Project {
    name: String,
}

#[derive(Serialize)]
struct ListItem {
    id: i32,
    ticket_number: String,
    title: String,
    status: String,
    priority: String,
    created_at: DateTime<Utc>,
    updated_at: DateTime<Utc>,
    requester: Requester,
    assignee: Option<Assignee>,
    project: Option<Project>,
}

#[derive(Serialize)]
struct ListPage {
    #[serde(skip_serializing_if = "Option::is_none")]
    count: Option<i64>,
    results: Vec<ListItem>,
}

const COUNT_SQL: &str = "SELECT count(*) FROM tickets WHERE archived_at IS NULL";

#[derive(Serialize)]
struct Detail {
    id: i32,
    ticket_number: String,
    title: String,
    description: String,
    status: String,
    priority: String,
    created_at: DateTime<Utc>,
    updated_at: DateTime<Utc>,
    archived_at: Option<DateTime<Utc>>,
    requester: Requester,
    assignee: Option<Assignee>,
    project: Option<Project>,
}

fn internal(e: sqlx::Error) -> Response {
    (StatusCode::INTERNAL_SERVER_ERROR, e.to_string()).into_response()
}

async fn list(State(pool): State<PgPool>) -> Result<Json<ListPage>, Response> {
    list_page(&pool, false).await
}

/// A as the REST contract has it: the page plus the total `count` of matching tickets.
async fn list_with_count(State(pool): State<PgPool>) -> Result<Json<ListPage>, Response> {
    list_page(&pool, true).await
}

async fn list_page(pool: &PgPool, with_count: bool) -> Result<Json<ListPage>, Response> {
    let count = if with_count {
        let (n,): (i64,) = sqlx::query_as(COUNT_SQL).fetch_one(pool).await.map_err(internal)?;
        Some(n)
    } else {
        None
    };
    let rows: Vec<ListRow> = sqlx::query_as(LIST_SQL).fetch_all(pool).await.map_err(internal)?;
    let results = rows
        .into_iter()
        .map(|r| ListItem {
            id: r.id,
            ticket_number: r.ticket_number,
            title: r.title,
            status: r.status,
            priority: r.priority,
            created_at: r.created_at,
            updated_at: r.updated_at,
            requester: Requester { username: r.requester_username, full_name: r.requester_full_name },
            assignee: r.assignee_username.map(|username| Assignee { username }),
            project: r.project_name.map(|name| Project { name }),
        })
        .collect();
    Ok(Json(ListPage { count, results }))
}

async fn detail(State(pool): State<PgPool>, Path(id): Path<i32>) -> Result<Json<Detail>, Response> {
    let row: Option<DetailRow> = sqlx::query_as(DETAIL_SQL)
        .bind(id)
        .fetch_optional(&pool)
        .await
        .map_err(internal)?;
    let r = row.ok_or_else(|| (StatusCode::NOT_FOUND, "not found").into_response())?;
    Ok(Json(Detail {
        id: r.id,
        ticket_number: r.ticket_number,
        title: r.title,
        description: r.description,
        status: r.status,
        priority: r.priority,
        created_at: r.created_at,
        updated_at: r.updated_at,
        archived_at: r.archived_at,
        requester: Requester { username: r.requester_username, full_name: r.requester_full_name },
        assignee: r.assignee_username.map(|username| Assignee { username }),
        project: r.project_name.map(|name| Project { name }),
    }))
}

#[tokio::main]
async fn main() {
    let url = std::env::var("DATABASE_URL").unwrap_or_else(|_| "postgres://perf:perf@127.0.0.1/perf".into());
    let port: u16 = std::env::var("PORT").ok().and_then(|p| p.parse().ok()).unwrap_or(8003);
    let pool_size: u32 = std::env::var("POOL_SIZE").ok().and_then(|p| p.parse().ok()).unwrap_or(8);
    let pool = PgPoolOptions::new()
        .max_connections(pool_size)
        .min_connections(pool_size)
        .connect(&url)
        .await
        .expect("connect to postgres");
    let app = Router::new()
        .route("/api/tickets/", get(list))
        .route("/api/tickets-count/", get(list_with_count))
        .route("/api/tickets/{id}/", get(detail))
        .with_state(pool);
    let listener = tokio::net::TcpListener::bind(("127.0.0.1", port)).await.expect("bind");
    eprintln!("floor listening on 127.0.0.1:{port} (pool {pool_size})");
    axum::serve(listener, app).await.expect("serve");
}
