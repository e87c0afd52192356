//! Chat destinations: Slack and Microsoft Teams channels that hear of tickets, managed by administrators.
//! What each takes is filtered by project, event and priority; internal notes reach only destinations an
//! administrator marked team-only. Messages are rendered when the change happens ([`message`]), written
//! to the outbox with it ([`route`]), and posted by the worker (`notify::chat`), each destination in its own
//! lane, so a dead Slack never delays email.
use crate::auth::Actor;
use crate::db::Db;
use crate::domain::Priority;
use crate::error::{AppError, AppResult};
use crate::service::audit;
use crate::service::text;
use crate::service::webhooks::{clean_events, clean_url};
use chrono::{DateTime, Utc};
use entity::values::{ChatKind, JobKind, JobStatus};
use entity::{chat_delivery, chat_destination, outbox};
use sea_orm::sea_query::{Alias, Expr, ExprTrait, Func, Query, SelectStatement, SubQueryStatement};
use sea_orm::{
    ActiveModelTrait, ColumnTrait, EntityTrait, PaginatorTrait, QueryFilter, QueryOrder,
    QuerySelect, Set,
};
use serde_json::json;
use std::collections::HashMap;

pub mod message;
pub mod route;

/// The events a chat destination can take (a subset of the webhook events, by the same names).
pub const CHAT_EVENTS: [&str; 6] = [
    "ticket.created",
    "ticket.assigned",
    "ticket.status_changed",
    "comment.created",
    "ticket.sla_at_risk",
    "ticket.sla_breached",
];

/// The most destinations a desk keeps: every event that may go to chat reads them all.
pub const MAX_DESTINATIONS: u64 = 100;

/// Fields of a new destination.
#[derive(Debug, Clone)]
pub struct NewChat {
    /// What admins call it, 1-100 characters.
    pub name: String,
    /// Slack or Teams; fixed once made.
    pub kind: ChatKind,
    /// The incoming webhook's URL (Teams; Slack without a bot).
    pub url: Option<String>,
    /// A Slack bot token (with `channel`, instead of `url`).
    pub token: Option<String>,
    /// The Slack channel a bot posts to.
    pub channel: Option<String>,
    /// Only this project's tickets.
    pub project_id: Option<i32>,
    /// Event names taken; empty: all of [`CHAT_EVENTS`].
    pub events: Vec<String>,
    /// Priorities taken; empty: all.
    pub priorities: Vec<Priority>,
    /// Internal notes go to it too (default false).
    pub team_only: Option<bool>,
    /// Defaults to true.
    pub active: Option<bool>,
}

/// A partial change of a destination; `None` leaves a field as it is.
#[derive(Debug, Clone, Default)]
pub struct ChatPatch {
    /// New name.
    pub name: Option<String>,
    /// New webhook URL (`Some(None)` clears it, for a Slack destination turning into a bot).
    pub url: Option<Option<String>>,
    /// New bot token.
    pub token: Option<Option<String>>,
    /// New bot channel.
    pub channel: Option<Option<String>>,
    /// New project filter (`Some(None)`: every ticket).
    pub project_id: Option<Option<i32>>,
    /// New event list.
    pub events: Option<Vec<String>>,
    /// New priority list.
    pub priorities: Option<Vec<Priority>>,
    /// Internal notes or not.
    pub team_only: Option<bool>,
    /// Enable or disable.
    pub active: Option<bool>,
}

fn require_admin(actor: &Actor) -> AppResult<()> {
    if actor.is_admin() {
        Ok(())
    } else {
        Err(AppError::forbidden(
            "only administrators may manage chat destinations",
        ))
    }
}

fn clean_priorities(priorities: &[Priority]) -> serde_json::Value {
    let mut out: Vec<&str> = Vec::new();
    for p in priorities {
        if !out.contains(&p.as_str()) {
            out.push(p.as_str());
        }
    }
    json!(out)
}

/// One word of at most `max` characters (a token or a channel), or a field error.
fn clean_word(field: &str, value: &str, max: usize) -> AppResult<String> {
    let value = value.trim();
    let len = value.chars().count();
    if len == 0 || len > max || value.chars().any(|c| c.is_whitespace() || c.is_control()) {
        return Err(AppError::field(
            field,
            format!("must be 1-{max} characters without spaces"),
        ));
    }
    Ok(value.to_string())
}

/// Where a destination posts, checked as a whole: Teams takes a webhook URL; Slack a webhook URL, or a bot
/// token and a channel.
struct Route {
    url: Option<String>,
    token: Option<String>,
    channel: Option<String>,
}

impl Route {
    fn check(
        kind: ChatKind,
        url: Option<&str>,
        token: Option<&str>,
        channel: Option<&str>,
        allow_private: bool,
    ) -> AppResult<Route> {
        fn blank(v: Option<&str>) -> Option<&str> {
            v.map(str::trim).filter(|v| !v.is_empty())
        }
        let (url, token, channel) = (blank(url), blank(token), blank(channel));
        let url = url
            .map(|u| clean_url("webhook_url", u, allow_private))
            .transpose()?;
        let token = token.map(|t| clean_word("token", t, 200)).transpose()?;
        let channel = channel.map(|c| clean_word("channel", c, 100)).transpose()?;
        match (kind, &url, &token, &channel) {
            (ChatKind::Teams, Some(_), None, None) | (ChatKind::Slack, Some(_), None, None) => {}
            (ChatKind::Slack, None, Some(_), Some(_)) => {}
            (ChatKind::Teams, None, _, _) => {
                return Err(AppError::field(
                    "webhook_url",
                    "a Teams destination needs its webhook URL",
                ))
            }
            (ChatKind::Teams, Some(_), _, _) => {
                return Err(AppError::field(
                    "token",
                    "a Teams destination takes a webhook URL only",
                ))
            }
            (ChatKind::Slack, Some(_), _, _) => {
                return Err(AppError::field(
                    "webhook_url",
                    "give either a webhook URL or a bot token and a channel, not both",
                ))
            }
            (ChatKind::Slack, None, None, _) => {
                return Err(AppError::field(
                    "webhook_url",
                    "a Slack destination needs a webhook URL, or a bot token and a channel",
                ))
            }
            (ChatKind::Slack, None, Some(_), None) => {
                return Err(AppError::field(
                    "channel",
                    "a Slack bot needs the channel to post to",
                ))
            }
        }
        Ok(Route {
            url,
            token,
            channel,
        })
    }
}

/// Every destination, oldest first.
pub async fn list(db: &Db, actor: &Actor) -> AppResult<Vec<chat_destination::Model>> {
    require_admin(actor)?;
    Ok(chat_destination::Entity::find()
        .order_by_asc(chat_destination::Column::Id)
        .all(&db.conn)
        .await?)
}

/// One destination.
pub async fn get(db: &Db, actor: &Actor, id: i32) -> AppResult<chat_destination::Model> {
    require_admin(actor)?;
    chat_destination::Entity::find_by_id(id)
        .one(&db.conn)
        .await?
        .ok_or_else(|| AppError::not_found("chat destination"))
}

/// What the audit trail keeps of a destination: never its token or its webhook URL (either lets anyone post
/// to the channel), only that they are set.
fn audited(d: &chat_destination::Model) -> serde_json::Value {
    json!({
        "name": d.name,
        "kind": d.kind,
        "url": d.url.as_ref().map(|_| "set"),
        "token": d.token.as_ref().map(|_| "set"),
        "channel": d.channel,
        "project_id": d.project_id,
        "events": d.events,
        "priorities": d.priorities,
        "team_only": d.team_only,
        "active": d.active,
    })
}

fn changes_between(
    before: Option<&serde_json::Value>,
    after: Option<&serde_json::Value>,
) -> serde_json::Value {
    const KEYS: [&str; 10] = [
        "name",
        "kind",
        "url",
        "token",
        "channel",
        "project_id",
        "events",
        "priorities",
        "team_only",
        "active",
    ];
    audit::Changes::between(before, after, &KEYS).into_value()
}

/// Add a destination; `allow_private` lets its URL name a private address
/// (`DESKGRAPH_WEBHOOK_ALLOW_PRIVATE`).
pub async fn create(
    db: &Db,
    allow_private: bool,
    actor: &Actor,
    input: NewChat,
) -> AppResult<chat_destination::Model> {
    require_admin(actor)?;
    let name = text::required_name("name", &input.name, 100)?;
    let route = Route::check(
        input.kind,
        input.url.as_deref(),
        input.token.as_deref(),
        input.channel.as_deref(),
        allow_private,
    )?;
    let events = clean_events(&input.events, &CHAT_EVENTS)?;
    if let Some(id) = input.project_id {
        crate::service::automation::triggers::check_project(&db.conn, "project", id).await?;
    }
    let kept = chat_destination::Entity::find().count(&db.conn).await?;
    if kept >= MAX_DESTINATIONS {
        return Err(AppError::bad_request(format!(
            "a desk keeps at most {MAX_DESTINATIONS} chat destinations; remove one first"
        )));
    }
    let now = Utc::now();
    let txn = db.begin_write().await?;
    let created = chat_destination::ActiveModel {
        name: Set(name),
        kind: Set(input.kind),
        url: Set(route.url),
        token: Set(route.token),
        channel: Set(route.channel),
        project_id: Set(input.project_id),
        events: Set(events),
        priorities: Set(clean_priorities(&input.priorities)),
        team_only: Set(input.team_only.unwrap_or(false)),
        active: Set(input.active.unwrap_or(true)),
        created_at: Set(now),
        updated_at: Set(now),
        ..Default::default()
    }
    .insert(&txn)
    .await?;
    audit::record(
        &txn,
        audit::Entry::new(Some(actor.id()), "chat_destination", created.id, "create")
            .changes(changes_between(None, Some(&audited(&created)))),
    )
    .await?;
    txn.commit().await?;
    Ok(created)
}

/// Change a destination (`allow_private` as for [`create`]); its kind stays.
pub async fn update(
    db: &Db,
    allow_private: bool,
    actor: &Actor,
    id: i32,
    patch: ChatPatch,
) -> AppResult<chat_destination::Model> {
    let current = get(db, actor, id).await?;
    let mut active: chat_destination::ActiveModel = current.clone().into();
    if let Some(name) = &patch.name {
        active.name = Set(text::required_name("name", name, 100)?);
    }
    let pick = |patched: &Option<Option<String>>, kept: &Option<String>| match patched {
        Some(v) => v.clone(),
        None => kept.clone(),
    };
    let route = Route::check(
        current.kind,
        pick(&patch.url, &current.url).as_deref(),
        pick(&patch.token, &current.token).as_deref(),
        pick(&patch.channel, &current.channel).as_deref(),
        allow_private,
    )?;
    active.url = Set(route.url);
    active.token = Set(route.token);
    active.channel = Set(route.channel);
    if let Some(project) = patch.project_id {
        if let Some(pid) = project {
            crate::service::automation::triggers::check_project(&db.conn, "project", pid).await?;
        }
        active.project_id = Set(project);
    }
    if let Some(events) = &patch.events {
        active.events = Set(clean_events(events, &CHAT_EVENTS)?);
    }
    if let Some(priorities) = &patch.priorities {
        active.priorities = Set(clean_priorities(priorities));
    }
    if let Some(on) = patch.team_only {
        active.team_only = Set(on);
    }
    if let Some(on) = patch.active {
        active.active = Set(on);
    }
    active.updated_at = Set(Utc::now());
    let txn = db.begin_write().await?;
    let updated = active.update(&txn).await?;
    let changes = changes_between(Some(&audited(&current)), Some(&audited(&updated)));
    if changes.as_object().is_some_and(|c| !c.is_empty()) {
        audit::record(
            &txn,
            audit::Entry::new(Some(actor.id()), "chat_destination", id, "update").changes(changes),
        )
        .await?;
    }
    txn.commit().await?;
    Ok(updated)
}

/// Remove a destination; its messages not yet posted are given up, its threads forgotten.
pub async fn delete(db: &Db, actor: &Actor, id: i32) -> AppResult<()> {
    let current = get(db, actor, id).await?;
    let txn = db.begin_write().await?;
    chat_destination::Entity::delete_by_id(id)
        .exec(&txn)
        .await?;
    audit::record(
        &txn,
        audit::Entry::new(Some(actor.id()), "chat_destination", id, "delete")
            .changes(changes_between(Some(&audited(&current)), None)),
    )
    .await?;
    txn.commit().await?;
    Ok(())
}

/// One message to a destination, and how its delivery went (an outbox row, without its body).
#[derive(Debug, Clone, PartialEq)]
pub struct Delivery {
    /// The outbox row's id.
    pub id: i64,
    /// What it was about (`ticket.created`, …).
    pub event: String,
    /// Waiting, delivered, or given up.
    pub status: JobStatus,
    /// Tries made so far.
    pub attempts: i32,
    /// What the last failed try met (the destination's answer, a refused address, `channel_not_found`).
    pub last_error: Option<String>,
    /// When the change it tells of happened.
    pub created_at: DateTime<Utc>,
    /// When it was delivered.
    pub delivered_at: Option<DateTime<Utc>>,
    /// When a waiting message is tried next.
    pub next_attempt_at: Option<DateTime<Utc>>,
}

impl From<outbox::Model> for Delivery {
    fn from(row: outbox::Model) -> Self {
        let next_attempt_at = (row.status == JobStatus::Pending)
            .then(|| DateTime::<Utc>::from_timestamp_millis(row.due_at_ms))
            .flatten();
        Delivery {
            id: row.id,
            event: row.event,
            status: row.status,
            attempts: row.attempts,
            last_error: row.last_error,
            created_at: row.created_at,
            delivered_at: row.delivered_at,
            next_attempt_at,
        }
    }
}

/// A destination's messages, newest first, one window of them with how many there are (administrators; 404 for
/// a destination that does not exist).
pub async fn deliveries(
    db: &Db,
    actor: &Actor,
    id: i32,
    offset: u64,
    limit: u64,
) -> AppResult<(Vec<Delivery>, u64)> {
    get(db, actor, id).await?;
    let of_destination = outbox::Entity::find()
        .filter(outbox::Column::ChatDestinationId.eq(id))
        .filter(outbox::Column::Kind.eq(JobKind::Chat));
    let total = of_destination.clone().count(&db.conn).await?;
    let rows = of_destination
        .order_by_desc(outbox::Column::Id)
        .offset(offset)
        .limit(limit)
        .all(&db.conn)
        .await?;
    Ok((rows.into_iter().map(Delivery::from).collect(), total))
}

/// The id of each destination's newest row in `E` (one per destination, none for a destination without
/// rows), as a subquery: an index seek per destination on `(destination, id)`.
fn newest_of_each<E: EntityTrait>(id: E::Column, destination: E::Column) -> SelectStatement {
    let newest = Alias::new("newest");
    let newest_of_one = Query::select()
        .expr(Func::max(Expr::col((newest.clone(), id))))
        .from_as(E::default(), newest.clone())
        .and_where(
            Expr::col((newest, destination))
                .equals((chat_destination::Entity, chat_destination::Column::Id)),
        )
        .to_owned();
    Query::select()
        .expr(Expr::SubQuery(
            None,
            Box::new(SubQueryStatement::from(newest_of_one)),
        ))
        .from(chat_destination::Entity)
        .to_owned()
}

/// Each destination's latest message, by destination (administrators), in one statement whatever the number of
/// destinations.
pub async fn latest_deliveries(db: &Db, actor: &Actor) -> AppResult<HashMap<i32, Delivery>> {
    require_admin(actor)?;
    let ids =
        newest_of_each::<outbox::Entity>(outbox::Column::Id, outbox::Column::ChatDestinationId);
    let rows = outbox::Entity::find()
        .filter(outbox::Column::Id.in_subquery(ids))
        .filter(outbox::Column::Kind.eq(JobKind::Chat))
        .all(&db.conn)
        .await?;
    Ok(rows
        .into_iter()
        .filter_map(|row| Some((row.chat_destination_id?, Delivery::from(row))))
        .collect())
}

/// A destination's tries, newest first: every post of every message with the answer it met, one window of them
/// with how many there are (administrators; 404 for a destination that does not exist).
pub async fn attempts(
    db: &Db,
    actor: &Actor,
    id: i32,
    offset: u64,
    limit: u64,
) -> AppResult<(Vec<chat_delivery::Model>, u64)> {
    get(db, actor, id).await?;
    let of_destination =
        chat_delivery::Entity::find().filter(chat_delivery::Column::DestinationId.eq(id));
    let total = of_destination.clone().count(&db.conn).await?;
    let rows = of_destination
        .order_by_desc(chat_delivery::Column::Id)
        .offset(offset)
        .limit(limit)
        .all(&db.conn)
        .await?;
    Ok((rows, total))
}

/// Each destination's latest try, by destination (administrators), in one statement.
pub async fn latest_attempts(
    db: &Db,
    actor: &Actor,
) -> AppResult<HashMap<i32, chat_delivery::Model>> {
    require_admin(actor)?;
    let ids = newest_of_each::<chat_delivery::Entity>(
        chat_delivery::Column::Id,
        chat_delivery::Column::DestinationId,
    );
    let rows = chat_delivery::Entity::find()
        .filter(chat_delivery::Column::Id.in_subquery(ids))
        .all(&db.conn)
        .await?;
    Ok(rows
        .into_iter()
        .map(|row| (row.destination_id, row))
        .collect())
}
