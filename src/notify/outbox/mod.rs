//! Writing outbox rows inside a change's transaction (here), and claiming/finishing them for the worker
//! (`queue`).
use crate::config::Config;
use crate::error::AppResult;
use chrono::Utc;
use entity::{outbox, webhook};
use rand::Rng;
use sea_orm::sea_query::InsertStatement;
use sea_orm::{
    ActiveModelTrait, ColumnTrait, ConnectionTrait, EntityTrait, QueryFilter, QueryOrder,
    QueryTrait, Set,
};

pub mod history;
mod queue;
pub use queue::{
    backlog, backoff_ms, claim, claim_except, finish, finish_delivered, release, scheduled,
    Backlog, Destination, Outcome, MAX_WAIT_MS,
};

pub use entity::values::{JobKind, JobStatus};

/// Milliseconds since the epoch, the unit of `due_at_ms` and `locked_until_ms`.
pub fn now_ms() -> i64 {
    Utc::now().timestamp_millis()
}

/// A fresh event id (`evt_` + 32 hex digits), shared by every row of one event.
pub fn new_event_id() -> String {
    let bytes: [u8; 16] = rand::thread_rng().gen();
    format!("evt_{}", hex::encode(bytes))
}

/// Whether an endpoint that asked for `wanted` (empty = all) gets `event`.
pub fn wants(wanted: &serde_json::Value, event: &str) -> bool {
    match wanted.as_array() {
        Some(list) if !list.is_empty() => list.iter().any(|e| e.as_str() == Some(event)),
        _ => true,
    }
}

/// A pending outbox row, due now.
pub fn row(
    kind: JobKind,
    event_id: &str,
    event: &str,
    webhook_id: Option<i32>,
    payload: String,
) -> outbox::ActiveModel {
    outbox::ActiveModel {
        kind: Set(kind),
        event_id: Set(event_id.to_string()),
        event: Set(event.to_string()),
        webhook_id: Set(webhook_id),
        chat_destination_id: Set(None),
        payload: Set(payload),
        status: Set(JobStatus::Pending),
        attempts: Set(0),
        due_at_ms: Set(now_ms()),
        locked_until_ms: Set(0),
        last_error: Set(None),
        created_at: Set(Utc::now()),
        delivered_at: Set(None),
        ..Default::default()
    }
}

/// A pending outbox row sending `email` for `event`.
pub fn email_row(
    event_id: &str,
    event: &str,
    email: &crate::notify::mailer::Email,
) -> AppResult<outbox::ActiveModel> {
    let payload = serde_json::to_string(email).map_err(crate::error::AppError::internal)?;
    Ok(row(JobKind::Email, event_id, event, None, payload))
}

/// The one insert that writes `rows`, for a change that sends its rows together
/// (`crate::db::insert_together`); `None` when there are none.
pub fn insert_of(rows: Vec<outbox::ActiveModel>) -> Option<InsertStatement> {
    if rows.is_empty() {
        return None;
    }
    Some(outbox::Entity::insert_many(rows).into_query())
}

/// The active webhook endpoints, by id: read once per write that may send webhooks.
pub async fn endpoints(db: &impl ConnectionTrait) -> AppResult<Vec<webhook::Model>> {
    Ok(webhook::Entity::find()
        .filter(webhook::Column::Active.eq(true))
        .order_by_asc(webhook::Column::Id)
        .all(db)
        .await?)
}

/// Of `endpoints` (the active ones), those `event` goes to: `None` for the configured URL, then every one
/// that wants it, by id.
pub fn targets(config: &Config, endpoints: &[webhook::Model], event: &str) -> Vec<Option<i32>> {
    let mut targets = Vec::new();
    if config.webhook_url.is_some() {
        targets.push(None);
    }
    targets.extend(
        endpoints
            .iter()
            .filter(|w| wants(&w.events, event))
            .map(|w| Some(w.id)),
    );
    targets
}

/// The endpoints `event` goes to: `None` for the configured URL, then every active endpoint that wants
/// it, by id.
pub async fn webhook_targets(
    db: &impl ConnectionTrait,
    config: &Config,
    event: &str,
) -> AppResult<Vec<Option<i32>>> {
    Ok(targets(config, &endpoints(db).await?, event))
}

/// The pending rows of webhook `body` of `event` for each of `targets`.
pub fn webhook_rows(
    targets: &[Option<i32>],
    event_id: &str,
    event: &str,
    body: &str,
) -> Vec<outbox::ActiveModel> {
    targets
        .iter()
        .map(|target| row(JobKind::Webhook, event_id, event, *target, body.to_string()))
        .collect()
}

/// Queue `body` for the configured endpoint and every active endpoint that wants `event`.
pub async fn enqueue_webhooks(
    db: &impl ConnectionTrait,
    config: &Config,
    event_id: &str,
    event: &str,
    body: &str,
) -> AppResult<usize> {
    let targets = webhook_targets(db, config, event).await?;
    if let Some(insert) = insert_of(webhook_rows(&targets, event_id, event, body)) {
        db.execute(&insert).await?;
    }
    Ok(targets.len())
}

/// A pending chat row for destination `chat_id`, due now.
pub fn chat_row(event_id: &str, event: &str, chat_id: i32, payload: String) -> outbox::ActiveModel {
    let mut row = row(JobKind::Chat, event_id, event, None, payload);
    row.chat_destination_id = Set(Some(chat_id));
    row
}

/// Queue a fresh copy of a webhook or chat row (same event id and body) for another delivery.
pub async fn requeue(db: &impl ConnectionTrait, row: &outbox::Model) -> AppResult<outbox::Model> {
    let mut copy = self::row(
        row.kind,
        &row.event_id,
        &row.event,
        row.webhook_id,
        row.payload.clone(),
    );
    copy.chat_destination_id = Set(row.chat_destination_id);
    Ok(copy.insert(db).await?)
}
