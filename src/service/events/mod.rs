//! Event emission, called by the services inside the change's own transaction: each writes the
//! webhook rows and the emails of one occurrence to the outbox, so they commit or vanish with it.
//!
//! The comments service calls [`comment_created`] after inserting a comment, in the same transaction.
//! Who may receive a comment's text is decided by `service::comments::can_read`, the one rule; people
//! are read through `service::users::recipients`, which gives each email only its own recipient.
use crate::auth::{load_actor, Actor};
use crate::config::Config;
use crate::domain::CommentType;
use crate::error::{AppError, AppResult};
use crate::notify::mailer::Email;
use crate::notify::outbox;
use crate::notify::templates::{render, Occurrence};
use crate::service::automation::Via;
use crate::service::chat::route as chat;
use crate::service::comments::can_read;
use crate::service::sla::clock::{Kind, Target};
use crate::service::users::{self, Recipient};
use chrono::DateTime;
use chrono::Utc;
use entity::{attachment, comment, outbox as outbox_entity, ticket, user_group};
use sea_orm::{ActiveModelTrait, ConnectionTrait};
use sea_orm::{ColumnTrait, EntityTrait, QueryFilter, QuerySelect};
use serde::Serialize;
use std::collections::HashMap;

mod activity;
mod tickets;
pub use activity::{
    attachment_added, comment_created, comment_created_with_files, group_members, rule_chat,
    rule_comment_created, rule_notice, rule_webhook, sla_event, RULE_AUTHOR,
};
pub use tickets::{
    fields_changed, ticket_changed, ticket_changed_rows, ticket_deleted, ticket_linked,
    ticket_merged, ticket_tagged_rows, TicketCreated,
};

/// Every event name an endpoint may subscribe to.
pub const EVENTS: [&str; 13] = [
    "ticket.created",
    "ticket.updated",
    "ticket.status_changed",
    "ticket.assigned",
    "ticket.deleted",
    "comment.created",
    "ticket.sla_at_risk",
    "ticket.sla_breached",
    "attachment.added",
    "ticket.tagged",
    "ticket.linked",
    "ticket.unlinked",
    "ticket.merged",
];

/// A webhook body. Field order is the wire order: `event, ticket_id, title, timestamp`, then the
/// event's own fields.
#[derive(Debug, Serialize)]
struct Body<'a> {
    event: &'a str,
    ticket_id: i32,
    title: &'a str,
    timestamp: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    comment_id: Option<i32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    attachment_id: Option<i32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    filename: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    changes: Option<Vec<&'a str>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    from: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    to: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    assignee: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    target: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    due_at: Option<String>,
    /// How the ticket stands to the one linked (`ticket.linked`, `ticket.unlinked`).
    #[serde(rename = "type", skip_serializing_if = "Option::is_none")]
    link_type: Option<&'a str>,
    /// The ticket at the link's other end.
    #[serde(skip_serializing_if = "Option::is_none")]
    linked_ticket_id: Option<i32>,
    /// The ticket this one was merged into (`ticket.merged`).
    #[serde(skip_serializing_if = "Option::is_none")]
    merged_into: Option<i32>,
    /// Tags put on the ticket (`ticket.tagged`).
    #[serde(skip_serializing_if = "Option::is_none")]
    added: Option<&'a [String]>,
    /// Tags taken off the ticket (`ticket.tagged`).
    #[serde(skip_serializing_if = "Option::is_none")]
    removed: Option<&'a [String]>,
    /// The ticket's tags after the change (`ticket.tagged`).
    #[serde(skip_serializing_if = "Option::is_none")]
    tags: Option<&'a [String]>,
    /// A rule's own words (`rule.notice`): its subject line.
    #[serde(skip_serializing_if = "Option::is_none")]
    subject: Option<&'a str>,
    /// A rule's own words (`rule.notice`): its text.
    #[serde(skip_serializing_if = "Option::is_none")]
    text: Option<&'a str>,
    /// The rule that made the change, when a rule did.
    #[serde(skip_serializing_if = "Option::is_none")]
    via: Option<&'a Via>,
}

impl<'a> Body<'a> {
    fn new(event: &'a str, t: &'a ticket::Model) -> Self {
        Body {
            event,
            ticket_id: t.id,
            title: &t.title,
            // The webhook's own wire format (docs/events.md): UTC, microseconds, `Z`.
            timestamp: Utc::now().to_rfc3339_opts(chrono::SecondsFormat::Micros, true),
            comment_id: None,
            attachment_id: None,
            filename: None,
            changes: None,
            from: None,
            to: None,
            assignee: None,
            target: None,
            due_at: None,
            link_type: None,
            linked_ticket_id: None,
            merged_into: None,
            added: None,
            removed: None,
            tags: None,
            subject: None,
            text: None,
            via: None,
        }
    }
}

/// The followers of ticket `ticket_id`, who hear of it as its requester does.
async fn followers(db: &impl ConnectionTrait, ticket_id: i32) -> AppResult<Vec<i32>> {
    Ok(entity::ticket_follower::Entity::find()
        .select_only()
        .column(entity::ticket_follower::Column::UserId)
        .filter(entity::ticket_follower::Column::TicketId.eq(ticket_id))
        .into_tuple::<i32>()
        .all(db)
        .await?)
}

/// The webhook endpoints and chat destinations one write's events go to, each read at most once for the
/// write however many events it makes (or handed over by a read made before its transaction).
#[derive(Debug, Default)]
pub struct Hooks {
    endpoints: Option<Vec<entity::webhook::Model>>,
    chats: Option<Vec<entity::chat_destination::Model>>,
}

impl Hooks {
    /// Hooks already read: the active webhook `endpoints` and chat destinations `chats`.
    pub fn known(
        endpoints: Vec<entity::webhook::Model>,
        chats: Vec<entity::chat_destination::Model>,
    ) -> Self {
        Hooks {
            endpoints: Some(endpoints),
            chats: Some(chats),
        }
    }

    /// The active webhook endpoints, read on first use.
    async fn endpoints(
        &mut self,
        db: &impl ConnectionTrait,
    ) -> AppResult<&[entity::webhook::Model]> {
        read_once(&mut self.endpoints, outbox::endpoints(db)).await
    }

    /// The active chat destinations, read on first use.
    async fn chats(
        &mut self,
        db: &impl ConnectionTrait,
    ) -> AppResult<&[entity::chat_destination::Model]> {
        read_once(&mut self.chats, chat::destinations(db)).await
    }

    /// Whether any active chat destination is known to exist (`None`: not read yet).
    pub fn any_chat(&self) -> Option<bool> {
        self.chats.as_ref().map(|c| !c.is_empty())
    }
}

/// What `slot` holds, `read` into it first when it holds nothing yet (`read` runs only then).
async fn read_once<T>(
    slot: &mut Option<Vec<T>>,
    read: impl std::future::Future<Output = AppResult<Vec<T>>>,
) -> AppResult<&[T]> {
    if slot.is_none() {
        *slot = Some(read.await?);
    }
    Ok(slot.as_deref().unwrap_or_default())
}

/// The event id and webhook rows of `body`, for the endpoints that want it.
async fn webhook_rows(
    db: &impl ConnectionTrait,
    hooks: &mut Hooks,
    config: &Config,
    body: &Body<'_>,
) -> AppResult<(String, Vec<outbox_entity::ActiveModel>)> {
    let event_id = outbox::new_event_id();
    let json = serde_json::to_string(body).map_err(AppError::internal)?;
    let targets = outbox::targets(config, hooks.endpoints(db).await?, body.event);
    let rows = outbox::webhook_rows(&targets, &event_id, body.event, &json);
    Ok((event_id, rows))
}

async fn webhooks(
    db: &impl ConnectionTrait,
    config: &Config,
    body: &Body<'_>,
) -> AppResult<String> {
    let (event_id, rows) = webhook_rows(db, &mut Hooks::default(), config, body).await?;
    queue(db, rows).await?;
    Ok(event_id)
}

/// Write `rows` to the outbox, in one statement.
async fn queue(db: &impl ConnectionTrait, rows: Vec<outbox_entity::ActiveModel>) -> AppResult<()> {
    if let Some(insert) = outbox::insert_of(rows) {
        db.execute(&insert).await?;
    }
    Ok(())
}

/// Of `ids`, the people in `known` who have an email address, minus `skip` (who caused the occurrence) and
/// repeats, in `ids` order.
fn mailable(
    known: &HashMap<i32, Recipient>,
    skip: Option<i32>,
    ids: &[Option<i32>],
) -> Vec<Recipient> {
    let mut seen: Vec<i32> = Vec::new();
    let mut out = Vec::new();
    for id in ids.iter().flatten() {
        if Some(*id) == skip || seen.contains(id) {
            continue;
        }
        seen.push(*id);
        if let Some(r) = known.get(id).filter(|r| r.address.is_some()) {
            out.push(r.clone());
        }
    }
    out
}

/// The active users among `ids` who have an email address, minus `skip` and repeats, in `ids` order.
async fn recipients(
    db: &impl ConnectionTrait,
    skip: Option<i32>,
    ids: &[Option<i32>],
) -> AppResult<Vec<Recipient>> {
    let wanted = ids.iter().flatten().copied().filter(|id| Some(*id) != skip);
    let known = users::recipients(db, wanted).await?;
    Ok(mailable(&known, skip, ids))
}

/// The chat rows of `about` on `t` (event `event_id`) for the destinations that take it.
async fn chat_rows(
    db: &impl ConnectionTrait,
    hooks: &mut Hooks,
    config: &Config,
    event_id: &str,
    t: &ticket::Model,
    about: &chat::About<'_>,
) -> AppResult<Vec<outbox_entity::ActiveModel>> {
    let all = hooks.chats(db).await?;
    chat::rows_to(db, config, all, event_id, t, about).await
}

/// Queue the chat messages of `about` on `t` (event `event_id`) for the destinations that take it.
async fn chat(
    db: &impl ConnectionTrait,
    config: &Config,
    event_id: &str,
    t: &ticket::Model,
    about: &chat::About<'_>,
) -> AppResult<()> {
    let rows = chat_rows(db, &mut Hooks::default(), config, event_id, t, about).await?;
    queue(db, rows).await
}

/// One outbox row per recipient, each with its rendered email.
fn email_rows(
    event_id: &str,
    event: &str,
    t: &ticket::Model,
    occurrence: &Occurrence<'_>,
    to: &[Recipient],
) -> AppResult<Vec<outbox_entity::ActiveModel>> {
    to.iter()
        .filter_map(|r| Some((r.address.as_deref()?, r)))
        .map(|(address, r)| {
            let email: Email = render(occurrence, t, address, &r.name, r.lang);
            outbox::email_row(event_id, event, &email)
        })
        .collect()
}

/// The emails of `occurrence` to `recipients`, minus `skip` (who caused it: nobody is mailed what they did
/// themselves), users without email and repeats.
async fn mail_rows(
    db: &impl ConnectionTrait,
    event_id: &str,
    event: &str,
    skip: Option<i32>,
    t: &ticket::Model,
    occurrence: &Occurrence<'_>,
    recipients: &[Option<i32>],
) -> AppResult<Vec<outbox_entity::ActiveModel>> {
    let to = self::recipients(db, skip, recipients).await?;
    email_rows(event_id, event, t, occurrence, &to)
}

/// Queue the emails of [`mail_rows`].
async fn emails(
    db: &impl ConnectionTrait,
    event_id: &str,
    event: &str,
    skip: Option<i32>,
    t: &ticket::Model,
    occurrence: &Occurrence<'_>,
    recipients: &[Option<i32>],
) -> AppResult<()> {
    let rows = mail_rows(db, event_id, event, skip, t, occurrence, recipients).await?;
    queue(db, rows).await
}
