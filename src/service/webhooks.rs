//! Webhook endpoints, their delivery log and redelivery; administrators only.
use crate::auth::Actor;
use crate::db::Db;
use crate::error::{AppError, AppResult};
use crate::net::targets;
use crate::notify::outbox::{self, JobKind};
use crate::service::audit;
use crate::service::events::EVENTS;
use crate::service::text;
use crate::service::Take;
use chrono::Utc;
use entity::{outbox as outbox_row, webhook, webhook_delivery};
use sea_orm::{
    ActiveModelTrait, ColumnTrait, EntityTrait, PaginatorTrait, QueryFilter, QueryOrder,
    QuerySelect, Set,
};
use serde_json::json;

/// Fields of a new endpoint.
#[derive(Debug, Clone, Default)]
pub struct NewWebhook {
    /// `http://` or `https://` URL.
    pub url: String,
    /// HMAC key, 1-200 characters.
    pub secret: String,
    /// Event names wanted; empty means all.
    pub events: Vec<String>,
    /// Defaults to true.
    pub active: Option<bool>,
}

/// A partial change of an endpoint.
#[derive(Debug, Clone, Default)]
pub struct WebhookPatch {
    /// New URL.
    pub url: Option<String>,
    /// New secret.
    pub secret: Option<String>,
    /// New event list.
    pub events: Option<Vec<String>>,
    /// Enable or disable.
    pub active: Option<bool>,
}

fn require_admin(actor: &Actor) -> AppResult<()> {
    if actor.is_admin() {
        Ok(())
    } else {
        Err(AppError::forbidden(
            "only administrators may manage webhooks",
        ))
    }
}

/// A checked http(s) URL of at most 2,000 characters whose literal host the target policy allows, or an
/// error on `field`.
pub fn clean_url(field: &str, url: &str, allow_private: bool) -> AppResult<String> {
    // Before parsing: the URL parser silently drops tabs and newlines.
    text::single_line(field, url)?;
    let url = url.trim();
    let parsed = url::Url::parse(url).map_err(|_| AppError::field(field, "enter a valid URL"))?;
    if !matches!(parsed.scheme(), "http" | "https") || parsed.host_str().is_none() {
        return Err(AppError::field(
            field,
            "the URL must be http:// or https://",
        ));
    }
    targets::check_url(&parsed, allow_private).map_err(|why| AppError::field(field, why))?;
    if url.len() > 2000 {
        return Err(AppError::field(
            field,
            "ensure this field has no more than 2000 characters",
        ));
    }
    Ok(url.to_string())
}

fn clean_secret(secret: &str) -> AppResult<String> {
    text::single_line("secret", secret)?;
    let len = secret.chars().count();
    if len == 0 || len > 200 {
        return Err(AppError::field(
            "secret",
            "the secret must be 1-200 characters",
        ));
    }
    Ok(secret.to_string())
}

/// `events` as a JSON list of names from `allowed`, each once, or an `events` error naming the unknown one.
pub fn clean_events(events: &[String], allowed: &[&'static str]) -> AppResult<serde_json::Value> {
    let mut out: Vec<&str> = Vec::new();
    for event in events {
        let Some(known) = allowed.iter().find(|e| **e == event.as_str()) else {
            return Err(AppError::field(
                "events",
                format!("unknown event {event:?}; known: {}", allowed.join(", ")),
            ));
        };
        if !out.contains(known) {
            out.push(known);
        }
    }
    Ok(json!(out))
}

/// Every endpoint, oldest first.
pub async fn list(db: &Db, actor: &Actor, take: Take) -> AppResult<Vec<webhook::Model>> {
    require_admin(actor)?;
    let select = webhook::Entity::find().order_by_asc(webhook::Column::Id);
    Ok(take.limit(select).all(&db.conn).await?)
}

/// One endpoint.
pub async fn get(db: &Db, actor: &Actor, id: i32) -> AppResult<webhook::Model> {
    require_admin(actor)?;
    webhook::Entity::find_by_id(id)
        .one(&db.conn)
        .await?
        .ok_or_else(|| AppError::not_found("webhook"))
}

/// Add an endpoint; `allow_private` lets its URL name a private address
/// (`DESKGRAPH_WEBHOOK_ALLOW_PRIVATE`).
pub async fn create(
    db: &Db,
    allow_private: bool,
    actor: &Actor,
    input: NewWebhook,
) -> AppResult<webhook::Model> {
    require_admin(actor)?;
    let url = clean_url("url", &input.url, allow_private)?;
    let secret = clean_secret(&input.secret)?;
    let events = clean_events(&input.events, &EVENTS)?;
    let now = Utc::now();
    let txn = db.begin_write().await?;
    let created = webhook::ActiveModel {
        url: Set(url),
        secret: Set(secret),
        events: Set(events),
        active: Set(input.active.unwrap_or(true)),
        created_at: Set(now),
        updated_at: Set(now),
        ..Default::default()
    }
    .insert(&txn)
    .await?;
    // The secret is never written to the trail, only that it was set.
    let changes = json!({
        "url": [null, created.url],
        "events": [null, created.events],
        "active": [null, created.active],
        "secret": [null, "set"],
    });
    audit::record(
        &txn,
        audit::Entry::new(Some(actor.id()), "webhook", created.id, "create").changes(changes),
    )
    .await?;
    txn.commit().await?;
    Ok(created)
}

/// Change an endpoint (`allow_private` as for [`create`]).
pub async fn update(
    db: &Db,
    allow_private: bool,
    actor: &Actor,
    id: i32,
    patch: WebhookPatch,
) -> AppResult<webhook::Model> {
    let current = get(db, actor, id).await?;
    let mut changes = audit::Changes::new();
    let mut active: webhook::ActiveModel = current.clone().into();
    if let Some(url) = &patch.url {
        let url = clean_url("url", url, allow_private)?;
        changes.diff("url", &current.url, &url);
        active.url = Set(url);
    }
    if let Some(secret) = &patch.secret {
        let secret = clean_secret(secret)?;
        if secret != current.secret {
            changes.diff("secret", &"set", &"changed");
        }
        active.secret = Set(secret);
    }
    if let Some(events) = &patch.events {
        let events = clean_events(events, &EVENTS)?;
        changes.diff("events", &current.events, &events);
        active.events = Set(events);
    }
    if let Some(on) = patch.active {
        changes.diff("active", &current.active, &on);
        active.active = Set(on);
    }
    active.updated_at = Set(Utc::now());
    let txn = db.begin_write().await?;
    let updated = active.update(&txn).await?;
    if !changes.is_empty() {
        audit::record(
            &txn,
            audit::Entry::new(Some(actor.id()), "webhook", id, "update")
                .changes(changes.into_value()),
        )
        .await?;
    }
    txn.commit().await?;
    Ok(updated)
}

/// Remove an endpoint with its pending deliveries and its log.
pub async fn delete(db: &Db, actor: &Actor, id: i32) -> AppResult<()> {
    let current = get(db, actor, id).await?;
    let txn = db.begin_write().await?;
    webhook::Entity::delete_by_id(id).exec(&txn).await?;
    audit::record(
        &txn,
        audit::Entry::new(Some(actor.id()), "webhook", id, "delete")
            .changes(json!({ "url": [current.url, null] })),
    )
    .await?;
    txn.commit().await?;
    Ok(())
}

/// The delivery log, newest first: of one endpoint, of the configured one (`Some(None)`), or all.
pub async fn deliveries(
    db: &Db,
    actor: &Actor,
    webhook_id: Option<Option<i32>>,
    limit: u64,
) -> AppResult<Vec<webhook_delivery::Model>> {
    require_admin(actor)?;
    let mut query = webhook_delivery::Entity::find();
    match webhook_id {
        Some(Some(id)) => query = query.filter(webhook_delivery::Column::WebhookId.eq(id)),
        Some(None) => query = query.filter(webhook_delivery::Column::WebhookId.is_null()),
        None => {}
    }
    Ok(query
        .order_by_desc(webhook_delivery::Column::Id)
        .limit(limit.clamp(1, 500))
        .all(&db.conn)
        .await?)
}

/// One page of an endpoint's delivery log, newest first, with the log's total length.
pub async fn deliveries_page(
    db: &Db,
    actor: &Actor,
    webhook_id: i32,
    offset: u64,
    limit: u64,
) -> AppResult<(Vec<webhook_delivery::Model>, u64)> {
    require_admin(actor)?;
    let query =
        webhook_delivery::Entity::find().filter(webhook_delivery::Column::WebhookId.eq(webhook_id));
    let total = query.clone().count(&db.conn).await?;
    let rows = query
        .order_by_desc(webhook_delivery::Column::Id)
        .offset(offset)
        .limit(limit)
        .all(&db.conn)
        .await?;
    Ok((rows, total))
}

/// Send the message of delivery `delivery_id` again: a new outbox row with the same event id
/// (receivers deduplicate on `X-Webhook-Id`) and body, due now.
pub async fn redeliver(db: &Db, actor: &Actor, delivery_id: i64) -> AppResult<outbox_row::Model> {
    require_admin(actor)?;
    let delivery = webhook_delivery::Entity::find_by_id(delivery_id)
        .one(&db.conn)
        .await?
        .ok_or_else(|| AppError::not_found("webhook delivery"))?;
    let row = outbox_row::Entity::find_by_id(delivery.outbox_id)
        .one(&db.conn)
        .await?
        .filter(|r| r.kind == JobKind::Webhook)
        .ok_or_else(|| AppError::not_found("webhook delivery"))?;
    outbox::requeue(&db.conn, &row).await
}
