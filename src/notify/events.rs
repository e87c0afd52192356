//! Event emission, called by the services inside the change's own transaction: each writes the
//! webhook rows and the emails of one occurrence to the outbox, so they commit or vanish with it.
//!
//! The comments service calls [`comment_created`] after inserting a comment, in the same transaction.
//! Who may receive a comment's text is decided by `service::comments::can_read`, the one rule; people
//! are read through `service::users::recipients`, which gives each email only its own recipient.
use super::mailer::Email;
use super::outbox;
use super::templates::{render, Occurrence};
use crate::auth::{load_actor, Actor};
use crate::domain::CommentType;
use crate::error::{AppError, AppResult};
use crate::service::comments::can_read;
use crate::service::sla::clock::{Kind, Target};
use crate::service::users::{self, Recipient};
use crate::state::AppState;
use chrono::DateTime;
use chrono::Utc;
use entity::{attachment, comment, outbox as outbox_entity, ticket, user_group};
use sea_orm::{ActiveModelTrait, ConnectionTrait};
use sea_orm::{ColumnTrait, EntityTrait, QueryFilter, QuerySelect};
use serde::Serialize;
use std::collections::HashMap;

/// Every event name an endpoint may subscribe to.
pub const EVENTS: [&str; 9] = [
    "ticket.created",
    "ticket.updated",
    "ticket.status_changed",
    "ticket.assigned",
    "ticket.deleted",
    "comment.created",
    "ticket.sla_at_risk",
    "ticket.sla_breached",
    "attachment.added",
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
        }
    }
}

async fn webhooks(
    db: &impl ConnectionTrait,
    state: &AppState,
    body: &Body<'_>,
) -> AppResult<String> {
    let event_id = outbox::new_event_id();
    let json = serde_json::to_string(body).map_err(AppError::internal)?;
    outbox::enqueue_webhooks(db, &state.config, &event_id, body.event, &json).await?;
    Ok(event_id)
}

/// Of `ids`, the people in `known` who have an email address, minus the actor and repeats, in `ids`
/// order.
fn mailable(known: &HashMap<i32, Recipient>, actor: &Actor, ids: &[Option<i32>]) -> Vec<Recipient> {
    let mut seen: Vec<i32> = Vec::new();
    let mut out = Vec::new();
    for id in ids.iter().flatten() {
        if *id == actor.id() || seen.contains(id) {
            continue;
        }
        seen.push(*id);
        if let Some(r) = known.get(id).filter(|r| r.address.is_some()) {
            out.push(r.clone());
        }
    }
    out
}

/// The active users among `ids` who have an email address, minus the actor and repeats, in `ids` order.
async fn recipients(
    db: &impl ConnectionTrait,
    actor: &Actor,
    ids: &[Option<i32>],
) -> AppResult<Vec<Recipient>> {
    let wanted = ids.iter().flatten().copied().filter(|id| *id != actor.id());
    let known = users::recipients(db, wanted).await?;
    Ok(mailable(&known, actor, ids))
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
            let email: Email = render(occurrence, t, address, &r.name);
            let payload = serde_json::to_string(&email).map_err(AppError::internal)?;
            Ok(outbox::row(
                outbox::KIND_EMAIL,
                event_id,
                event,
                None,
                payload,
            ))
        })
        .collect()
}

/// Queue the emails of `occurrence` to `recipients`, minus the actor, users without email and
/// repeats.
async fn emails(
    db: &impl ConnectionTrait,
    event_id: &str,
    event: &str,
    actor: &Actor,
    t: &ticket::Model,
    occurrence: &Occurrence<'_>,
    recipients: &[Option<i32>],
) -> AppResult<()> {
    let to = self::recipients(db, actor, recipients).await?;
    for row in email_rows(event_id, event, t, occurrence, &to)? {
        row.insert(db).await?;
    }
    Ok(())
}

/// `ticket.created`: webhook, and emails to requester and assignee. Who hears of it is read before
/// the creating transaction ([`TicketCreated::prepare`]), so that the transaction, which holds the
/// ticket-number lock, only writes ([`TicketCreated::rows`]).
pub struct TicketCreated {
    targets: Vec<Option<i32>>,
    to: Vec<Recipient>,
}

impl TicketCreated {
    /// Read the webhook endpoints for a ticket of `requester_id` assigned to `assignee_id`, opened by
    /// `actor`; `active` holds those users if they are active (the create has read them already).
    pub async fn prepare(
        db: &impl ConnectionTrait,
        state: &AppState,
        actor: &Actor,
        active: &HashMap<i32, Recipient>,
        requester_id: i32,
        assignee_id: Option<i32>,
    ) -> AppResult<Self> {
        Ok(TicketCreated {
            targets: outbox::webhook_targets(db, &state.config, "ticket.created").await?,
            to: mailable(active, actor, &[Some(requester_id), assignee_id]),
        })
    }

    /// The outbox rows announcing `t`.
    pub fn rows(&self, t: &ticket::Model) -> AppResult<Vec<outbox_entity::ActiveModel>> {
        let body = Body::new("ticket.created", t);
        let event_id = outbox::new_event_id();
        let json = serde_json::to_string(&body).map_err(AppError::internal)?;
        let mut rows: Vec<outbox_entity::ActiveModel> = self
            .targets
            .iter()
            .map(|target| {
                outbox::row(
                    outbox::KIND_WEBHOOK,
                    &event_id,
                    body.event,
                    *target,
                    json.clone(),
                )
            })
            .collect();
        rows.extend(email_rows(
            &event_id,
            body.event,
            t,
            &Occurrence::Created,
            &self.to,
        )?);
        Ok(rows)
    }
}

/// Names (REST spelling) of the fields that differ between `before` and `after`, except status and
/// a new assignee, which have their own events.
fn updated_fields(before: &ticket::Model, after: &ticket::Model) -> Vec<&'static str> {
    let checks = [
        ("title", before.title != after.title),
        ("description", before.description != after.description),
        ("priority", before.priority != after.priority),
        ("project", before.project_id != after.project_id),
        // Clearing the assignee is an update; naming one is `ticket.assigned`.
        (
            "assigned_to",
            before.assignee_id != after.assignee_id && after.assignee_id.is_none(),
        ),
        (
            "assigned_group",
            before.assigned_group_id != after.assigned_group_id,
        ),
        ("due_date", before.due_date != after.due_date),
    ];
    checks
        .into_iter()
        .filter(|(_, c)| *c)
        .map(|(n, _)| n)
        .collect()
}

/// A ticket change: `ticket.status_changed` (emails to requester and assignee), `ticket.assigned`
/// (email to the new assignee) and `ticket.updated` (other fields, no email), as they apply.
pub async fn ticket_changed(
    db: &impl ConnectionTrait,
    state: &AppState,
    actor: &Actor,
    before: &ticket::Model,
    after: &ticket::Model,
) -> AppResult<()> {
    let fields = updated_fields(before, after);
    if !fields.is_empty() {
        let mut body = Body::new("ticket.updated", after);
        body.changes = Some(fields);
        webhooks(db, state, &body).await?;
    }
    if before.status != after.status {
        let mut body = Body::new("ticket.status_changed", after);
        body.from = Some(&before.status);
        body.to = Some(&after.status);
        let event_id = webhooks(db, state, &body).await?;
        let occurrence = Occurrence::StatusChanged {
            from: &before.status,
            to: &after.status,
        };
        let recipients = [Some(after.requester_id), after.assignee_id];
        emails(
            db,
            &event_id,
            body.event,
            actor,
            after,
            &occurrence,
            &recipients,
        )
        .await?;
    }
    if let Some(assignee_id) = after
        .assignee_id
        .filter(|_| before.assignee_id != after.assignee_id)
    {
        let username = users::recipients(db, [assignee_id])
            .await?
            .remove(&assignee_id)
            .map(|r| r.username)
            .unwrap_or_default();
        let mut body = Body::new("ticket.assigned", after);
        body.assignee = Some(&username);
        let event_id = webhooks(db, state, &body).await?;
        let recipients = [Some(assignee_id)];
        emails(
            db,
            &event_id,
            body.event,
            actor,
            after,
            &Occurrence::Assigned,
            &recipients,
        )
        .await?;
    }
    Ok(())
}

/// `ticket.deleted` (archived): webhook only.
pub async fn ticket_deleted(
    db: &impl ConnectionTrait,
    state: &AppState,
    t: &ticket::Model,
) -> AppResult<()> {
    webhooks(db, state, &Body::new("ticket.deleted", t)).await?;
    Ok(())
}

/// A new comment `c` on `t`, to call from the comments service inside its transaction.
///
/// Public comments: `comment.created` webhook (with `comment_id`, never the text) and emails to
/// requester and assignee. Internal notes never leave through webhooks and are mailed only to the
/// assignee, and only when the assignee may read them (`service::comments::can_read`).
pub async fn comment_created(
    db: &impl ConnectionTrait,
    state: &AppState,
    actor: &Actor,
    t: &ticket::Model,
    c: &comment::Model,
) -> AppResult<()> {
    comment_created_with_files(db, state, actor, t, c, &[]).await
}

/// [`comment_created`] for a comment posted with `files` (they hang on it): its one email lists their
/// names and sizes, and each file has its `attachment.added` webhook (none on an internal note) but no
/// email of its own. Files on a comment are seen by whoever may read it, so the list reaches exactly
/// those who may see the files.
pub async fn comment_created_with_files(
    db: &impl ConnectionTrait,
    state: &AppState,
    actor: &Actor,
    t: &ticket::Model,
    c: &comment::Model,
    files: &[attachment::Model],
) -> AppResult<()> {
    if c.comment_type != CommentType::Internal.as_str() {
        for a in files {
            attachment_webhook(db, state, t, a).await?;
        }
    }
    let author = if actor.user.full_name.trim().is_empty() {
        actor.user.username.clone()
    } else {
        actor.user.full_name.clone()
    };
    let is_internal = c.comment_type == CommentType::Internal.as_str();
    let occurrence = Occurrence::CommentAdded {
        author: &author,
        body: &c.body,
        internal: is_internal,
        files,
    };
    if is_internal {
        let Some(assignee_id) = t.assignee_id else {
            return Ok(());
        };
        let may_read = load_actor(db, assignee_id)
            .await?
            .is_some_and(|a| can_read(&a, t, c));
        if may_read {
            let event_id = outbox::new_event_id();
            let recipients = [Some(assignee_id)];
            emails(
                db,
                &event_id,
                "comment.created",
                actor,
                t,
                &occurrence,
                &recipients,
            )
            .await?;
        }
        return Ok(());
    }
    let mut body = Body::new("comment.created", t);
    body.comment_id = Some(c.id);
    let event_id = webhooks(db, state, &body).await?;
    let recipients = [Some(t.requester_id), t.assignee_id];
    emails(
        db,
        &event_id,
        body.event,
        actor,
        t,
        &occurrence,
        &recipients,
    )
    .await
}

/// `ticket.sla_at_risk` / `ticket.sla_breached` for `target` of `t`, due at `due`: webhook (with `target`
/// and `due_at`), and an email to the assignee, or to the members of the assigned group when no one is
/// assigned. Nobody caused it, so nobody is left out as its author.
pub async fn sla_event(
    db: &impl ConnectionTrait,
    state: &AppState,
    t: &ticket::Model,
    target: Target,
    kind: Kind,
    due: DateTime<Utc>,
) -> AppResult<()> {
    let mut body = Body::new(kind.event(), t);
    body.target = Some(target.as_str());
    body.due_at = Some(due.to_rfc3339_opts(chrono::SecondsFormat::Micros, true));
    let event_id = webhooks(db, state, &body).await?;
    let ids: Vec<i32> = match (t.assignee_id, t.assigned_group_id) {
        (Some(id), _) => vec![id],
        (None, Some(group)) => {
            user_group::Entity::find()
                .select_only()
                .column(user_group::Column::UserId)
                .filter(user_group::Column::GroupId.eq(group))
                .into_tuple()
                .all(db)
                .await?
        }
        (None, None) => Vec::new(),
    };
    let known = users::recipients(db, ids.iter().copied()).await?;
    let mut to: Vec<Recipient> = known
        .into_values()
        .filter(|r| r.address.is_some())
        .collect();
    to.sort_by_key(|r| r.id);
    let occurrence = Occurrence::Sla {
        target: target.as_str(),
        breached: kind == Kind::Breached,
        due: body.due_at.as_deref().unwrap_or_default(),
    };
    for row in email_rows(&event_id, body.event, t, &occurrence, &to)? {
        row.insert(db).await?;
    }
    Ok(())
}

/// `attachment.added`: a webhook with the attachment's id and name (never its bytes), and emails naming the
/// file to the requester and the assignee, each only if they may see it. Files on internal notes never
/// leave through webhooks and are mailed only to an assignee who may read the note.
pub async fn attachment_added(
    db: &impl ConnectionTrait,
    state: &AppState,
    actor: &Actor,
    t: &ticket::Model,
    a: &attachment::Model,
    on_comment: Option<&comment::Model>,
) -> AppResult<()> {
    let internal = on_comment.is_some_and(|c| c.comment_type == CommentType::Internal.as_str());
    let event_id = if internal {
        outbox::new_event_id()
    } else {
        attachment_webhook(db, state, t, a).await?
    };
    let candidates = if internal {
        vec![t.assignee_id]
    } else {
        vec![Some(t.requester_id), t.assignee_id]
    };
    let mut allowed = Vec::new();
    for id in candidates.into_iter().flatten() {
        let may_see = load_actor(db, id)
            .await?
            .is_some_and(|r| crate::service::attachments::can_read(&r, t, a, on_comment));
        if may_see {
            allowed.push(Some(id));
        }
    }
    let uploader = if actor.user.full_name.trim().is_empty() {
        &actor.user.username
    } else {
        &actor.user.full_name
    };
    let occurrence = Occurrence::FileAttached {
        uploader,
        filename: &a.filename,
        internal,
    };
    emails(
        db,
        &event_id,
        "attachment.added",
        actor,
        t,
        &occurrence,
        &allowed,
    )
    .await
}

/// The `attachment.added` webhook of `a` (never for a file on an internal note: callers check).
async fn attachment_webhook(
    db: &impl ConnectionTrait,
    state: &AppState,
    t: &ticket::Model,
    a: &attachment::Model,
) -> AppResult<String> {
    let mut body = Body::new("attachment.added", t);
    body.comment_id = a.comment_id;
    body.attachment_id = Some(a.id);
    body.filename = Some(&a.filename);
    webhooks(db, state, &body).await
}
