//! Which destinations hear of an event, and their outbox rows, written in the change's own transaction so
//! they commit or vanish with it.
use super::message::{excerpt, render, sla_state, News};
use crate::config::Config;
use crate::error::{AppError, AppResult};
use crate::notify::chat::Payload;
use crate::notify::outbox;
use crate::service::users::{self, Recipient};
use entity::{chat_destination, outbox as outbox_row, ticket};
use sea_orm::{ColumnTrait, ConnectionTrait, EntityTrait, QueryFilter, QueryOrder};
use std::collections::HashMap;

/// What happened, beyond the ticket itself.
#[derive(Debug, Clone)]
pub struct About<'a> {
    /// The event's name (one of [`super::CHAT_EVENTS`]).
    pub event: &'a str,
    /// What happened, in words.
    pub headline: String,
    /// The text it is about (stored HTML), when there is one.
    pub text: Option<&'a str>,
    /// Whether it is an internal note (only team-only destinations take it).
    pub internal: bool,
}

/// The active destinations, by id: read once per event that may go to chat.
pub async fn destinations(db: &impl ConnectionTrait) -> AppResult<Vec<chat_destination::Model>> {
    Ok(chat_destination::Entity::find()
        .filter(chat_destination::Column::Active.eq(true))
        .order_by_asc(chat_destination::Column::Id)
        .all(db)
        .await?)
}

/// Whether `d` takes `about` on `t`: its event, project and priority filters, and internal notes only when
/// it is team-only.
pub fn takes(d: &chat_destination::Model, about: &About<'_>, t: &ticket::Model) -> bool {
    d.active
        && (!about.internal || d.team_only)
        && outbox::wants(&d.events, about.event)
        && outbox::wants(&d.priorities, t.priority.as_str())
        && d.project_id.is_none_or(|p| Some(p) == t.project_id)
}

/// The ticket's page under `base`, the public URL (`DESKGRAPH_PUBLIC_URL`), when it is configured.
fn link(base: Option<&str>, t: &ticket::Model) -> Option<String> {
    Some(format!("{}/tickets/{}/", base?, t.id))
}

/// The news of `about` on `t`, naming people from `people` (`clock`: the ticket's SLA state).
fn news(
    base: Option<&str>,
    t: &ticket::Model,
    about: &About<'_>,
    people: &HashMap<i32, Recipient>,
    clock: Option<String>,
) -> News {
    let name = |id: i32| {
        people
            .get(&id)
            .map_or_else(|| format!("user {id}"), |r| r.name.clone())
    };
    let mut facts = vec![
        ("Priority", t.priority.to_string()),
        ("Status", t.status.to_string()),
        ("Requester", name(t.requester_id)),
        (
            "Assignee",
            t.assignee_id.map_or_else(|| "nobody".to_string(), name),
        ),
    ];
    if let Some(clock) = clock {
        facts.push(("SLA", clock));
    }
    News {
        number: t.ticket_number.clone(),
        title: t.title.clone(),
        headline: about.headline.clone(),
        excerpt: about.text.and_then(excerpt),
        facts,
        link: link(base, t),
    }
}

/// One row per destination in `to`, each with its rendered message.
fn rows_for(
    event_id: &str,
    event: &str,
    t: &ticket::Model,
    news: &News,
    to: &[&chat_destination::Model],
) -> AppResult<Vec<outbox_row::ActiveModel>> {
    to.iter()
        .map(|d| {
            let payload = Payload {
                ticket_id: t.id,
                message: render(d.kind, news),
            };
            let json = serde_json::to_string(&payload).map_err(AppError::internal)?;
            Ok(outbox::chat_row(event_id, event, d.id, json))
        })
        .collect()
}

/// The chat rows of `about` on `t` (event `event_id`): none, and only the destinations read, when no
/// destination takes it; otherwise the people and the clock are read once for all of them.
pub async fn rows(
    db: &impl ConnectionTrait,
    config: &Config,
    event_id: &str,
    t: &ticket::Model,
    about: &About<'_>,
) -> AppResult<Vec<outbox_row::ActiveModel>> {
    let all = destinations(db).await?;
    rows_to(db, config, &all, event_id, t, about).await
}

/// [`rows`] among the destinations `all` (the active ones, read already).
pub async fn rows_to(
    db: &impl ConnectionTrait,
    config: &Config,
    all: &[chat_destination::Model],
    event_id: &str,
    t: &ticket::Model,
    about: &About<'_>,
) -> AppResult<Vec<outbox_row::ActiveModel>> {
    let to: Vec<&chat_destination::Model> = all.iter().filter(|d| takes(d, about, t)).collect();
    if to.is_empty() {
        return Ok(Vec::new());
    }
    let news = read_news(db, config, t, about).await?;
    rows_for(event_id, about.event, t, &news, &to)
}

/// The news of `about` on `t`, its people and its clock read now (two statements).
async fn read_news(
    db: &impl ConnectionTrait,
    config: &Config,
    t: &ticket::Model,
    about: &About<'_>,
) -> AppResult<News> {
    let people = users::named(
        db,
        [Some(t.requester_id), t.assignee_id].into_iter().flatten(),
    )
    .await?;
    let clock = crate::service::sla::views(db, [t.id])
        .await?
        .remove(&t.id)
        .and_then(|v| sla_state(&v));
    let base = config.accounts.public_url.as_deref();
    Ok(news(base, t, about, &people, clock))
}

/// A new ticket's chat rows, from what was read before its transaction: the destinations (`all`) and the
/// people named (`people`); `base` is the public URL, `clock` the state of the SLA clock it starts with.
pub fn created_rows(
    base: Option<&str>,
    event_id: &str,
    t: &ticket::Model,
    all: &[chat_destination::Model],
    people: &HashMap<i32, Recipient>,
    clock: Option<String>,
) -> AppResult<Vec<outbox_row::ActiveModel>> {
    let about = About {
        event: "ticket.created",
        headline: "New ticket".to_string(),
        text: Some(&t.description),
        internal: false,
    };
    let to: Vec<&chat_destination::Model> = all.iter().filter(|d| takes(d, &about, t)).collect();
    if to.is_empty() {
        return Ok(Vec::new());
    }
    rows_for(
        event_id,
        about.event,
        t,
        &news(base, t, &about, people, clock),
        &to,
    )
}

/// A rule's message about `t` for destination `id` (event `rule.notice`): `subject` as what happened, `text`
/// under it (plain text). None when the destination is gone or switched off.
pub async fn rule_rows(
    db: &impl ConnectionTrait,
    config: &Config,
    event_id: &str,
    t: &ticket::Model,
    id: i32,
    subject: &str,
    text: &str,
) -> AppResult<Vec<outbox_row::ActiveModel>> {
    let Some(d) = chat_destination::Entity::find_by_id(id)
        .one(db)
        .await?
        .filter(|d| d.active)
    else {
        return Ok(Vec::new());
    };
    let about = About {
        event: "rule.notice",
        headline: subject.to_string(),
        text: None,
        internal: false,
    };
    let mut news = read_news(db, config, t, &about).await?;
    news.excerpt = Some(text.trim())
        .filter(|s| !s.is_empty())
        .map(|s| s.chars().take(super::message::EXCERPT_CHARS).collect());
    rows_for(event_id, about.event, t, &news, &[&d])
}
