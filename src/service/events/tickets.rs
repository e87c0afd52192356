//! Ticket events: created, changed (status, assignment, other fields) and deleted.
use super::*;

/// `ticket.created`: webhook, and emails to requester and assignee. Who hears of it is read before
/// the creating transaction ([`TicketCreated::prepare`]), so that the transaction, which holds the
/// ticket-number lock, only writes ([`TicketCreated::rows`]).
pub struct TicketCreated {
    targets: Vec<Option<i32>>,
    endpoints: Vec<entity::webhook::Model>,
    to: Vec<Recipient>,
    chats: Vec<entity::chat_destination::Model>,
    named: HashMap<i32, Recipient>,
    public_url: Option<String>,
}

impl TicketCreated {
    /// Read the webhook endpoints for a ticket of `requester_id` assigned to `assignee_id`, opened by
    /// `actor`; `active` holds those users if they are active (the create has read them already).
    pub async fn prepare(
        db: &impl ConnectionTrait,
        config: &Config,
        actor: &Actor,
        active: &HashMap<i32, Recipient>,
        requester_id: i32,
        assignee_id: Option<i32>,
    ) -> AppResult<Self> {
        let mut named = active.clone();
        named
            .entry(actor.id())
            .or_insert_with(|| Recipient::from(actor.user.clone()));
        let endpoints = outbox::endpoints(db).await?;
        Ok(TicketCreated {
            targets: outbox::targets(config, &endpoints, "ticket.created"),
            endpoints,
            to: mailable(active, Some(actor.id()), &[Some(requester_id), assignee_id]),
            chats: chat::destinations(db).await?,
            named,
            public_url: config.accounts.public_url.clone(),
        })
    }

    /// The webhook endpoints and chat destinations read for the announcement, for the rest of the write's
    /// events (those of the rules its creation sets off).
    pub fn hooks(&self) -> Hooks {
        Hooks::known(self.endpoints.clone(), self.chats.clone())
    }

    /// The outbox rows announcing `t`, whose SLA clock starts as `clock` when a policy applies.
    pub fn rows(
        &self,
        t: &ticket::Model,
        clock: Option<&entity::ticket_sla::Model>,
    ) -> AppResult<Vec<outbox_entity::ActiveModel>> {
        let body = Body::new("ticket.created", t);
        let event_id = outbox::new_event_id();
        let json = serde_json::to_string(&body).map_err(AppError::internal)?;
        let mut rows: Vec<outbox_entity::ActiveModel> = self
            .targets
            .iter()
            .map(|target| {
                outbox::row(
                    outbox::JobKind::Webhook,
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
        let sla = clock.and_then(|c| {
            crate::service::chat::message::sla_state(&crate::service::sla::view_of(c.clone(), None))
        });
        rows.extend(chat::created_rows(
            self.public_url.as_deref(),
            &event_id,
            t,
            &self.chats,
            &self.named,
            sla,
        )?);
        Ok(rows)
    }
}

/// `ticket.tagged`'s outbox rows, to the endpoints in `hooks`: a webhook naming the tags `added` to and
/// `removed` from `t`, and the ticket's `tags` after (no email: tags are the team's).
#[allow(clippy::too_many_arguments)]
pub async fn ticket_tagged_rows(
    db: &impl ConnectionTrait,
    hooks: &mut Hooks,
    config: &Config,
    t: &ticket::Model,
    added: &[String],
    removed: &[String],
    tags: &[String],
    via: Option<&Via>,
) -> AppResult<Vec<outbox_entity::ActiveModel>> {
    let mut body = Body::new("ticket.tagged", t);
    body.via = via;
    body.added = Some(added);
    body.removed = Some(removed);
    body.tags = Some(tags);
    Ok(webhook_rows(db, hooks, config, &body).await?.1)
}

/// `ticket.linked` or `ticket.unlinked` (`event`): a webhook naming how `t` stands to ticket `other` (no
/// email).
pub async fn ticket_linked(
    db: &impl ConnectionTrait,
    config: &Config,
    event: &'static str,
    t: &ticket::Model,
    link_type: &str,
    other: i32,
) -> AppResult<()> {
    let mut body = Body::new(event, t);
    body.link_type = Some(link_type);
    body.linked_ticket_id = Some(other);
    webhooks(db, config, &body).await?;
    Ok(())
}

/// `ticket.merged`: a webhook naming the ticket `source` went into (no email: each requester is told in a
/// comment).
pub async fn ticket_merged(
    db: &impl ConnectionTrait,
    config: &Config,
    source: &ticket::Model,
    target: &ticket::Model,
) -> AppResult<()> {
    let mut body = Body::new("ticket.merged", source);
    body.merged_into = Some(target.id);
    webhooks(db, config, &body).await?;
    Ok(())
}

/// `ticket.updated` for custom field changes: a webhook naming each changed field as `custom_fields.<key>`
/// (no email, as for other field changes), marked `via` the rule that made them when one did.
pub async fn fields_changed(
    db: &impl ConnectionTrait,
    config: &Config,
    t: &ticket::Model,
    names: &[String],
    via: Option<&Via>,
) -> AppResult<()> {
    let mut body = Body::new("ticket.updated", t);
    body.changes = Some(names.iter().map(String::as_str).collect());
    body.via = via;
    webhooks(db, config, &body).await?;
    Ok(())
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

/// A ticket change (made by a rule when `via` names one, marked so in the bodies; `skip` made it and is not
/// mailed): `ticket.status_changed` (emails to requester and assignee), `ticket.assigned`
/// (email to the new assignee) and `ticket.updated` (other fields, no email), as they apply.
pub async fn ticket_changed(
    db: &impl ConnectionTrait,
    config: &Config,
    skip: Option<i32>,
    via: Option<&Via>,
    before: &ticket::Model,
    after: &ticket::Model,
) -> AppResult<()> {
    let mut hooks = Hooks::default();
    let rows = ticket_changed_rows(db, &mut hooks, config, skip, via, before, after).await?;
    queue(db, rows).await
}

/// The outbox rows of [`ticket_changed`], to the endpoints and chat destinations in `hooks`.
pub async fn ticket_changed_rows(
    db: &impl ConnectionTrait,
    hooks: &mut Hooks,
    config: &Config,
    skip: Option<i32>,
    via: Option<&Via>,
    before: &ticket::Model,
    after: &ticket::Model,
) -> AppResult<Vec<outbox_entity::ActiveModel>> {
    let mut rows = Vec::new();
    let fields = updated_fields(before, after);
    let new_body = |event| {
        let mut body = Body::new(event, after);
        body.via = via;
        body
    };
    if !fields.is_empty() {
        let mut body = new_body("ticket.updated");
        body.changes = Some(fields);
        rows.extend(webhook_rows(db, hooks, config, &body).await?.1);
    }
    if before.status != after.status {
        let mut body = new_body("ticket.status_changed");
        body.from = Some(before.status.as_str());
        body.to = Some(after.status.as_str());
        let headline = format!("Status: {} → {}", before.status, after.status);
        let occurrence = Occurrence::StatusChanged {
            from: before.status.as_str(),
            to: after.status.as_str(),
        };
        let mut recipients = vec![Some(after.requester_id), after.assignee_id];
        recipients.extend(followers(db, after.id).await?.into_iter().map(Some));
        let told = Told {
            headline,
            occurrence,
            recipients,
            skip,
        };
        rows.extend(announce(db, hooks, config, &body, after, told).await?);
    }
    if let Some(assignee_id) = after
        .assignee_id
        .filter(|_| before.assignee_id != after.assignee_id)
    {
        let assignee = users::recipients(db, [assignee_id])
            .await?
            .remove(&assignee_id);
        let username = assignee
            .as_ref()
            .map(|r| r.username.clone())
            .unwrap_or_default();
        let mut body = new_body("ticket.assigned");
        body.assignee = Some(&username);
        let named = assignee.map_or_else(|| format!("user {assignee_id}"), |r| r.name);
        let told = Told {
            headline: format!("Assigned to {named}"),
            occurrence: Occurrence::Assigned,
            recipients: vec![Some(assignee_id)],
            skip,
        };
        rows.extend(announce(db, hooks, config, &body, after, told).await?);
    }
    Ok(rows)
}

/// Who hears of an event on chat and by email: the chat line's `headline`, and the `occurrence` mailed to
/// `recipients` but `skip`.
struct Told<'a> {
    headline: String,
    occurrence: Occurrence<'a>,
    recipients: Vec<Option<i32>>,
    skip: Option<i32>,
}

/// The outbox rows of `body`'s event on `t`: its webhooks, then its chat lines and emails as `told`.
async fn announce(
    db: &impl ConnectionTrait,
    hooks: &mut Hooks,
    config: &Config,
    body: &Body<'_>,
    t: &ticket::Model,
    told: Told<'_>,
) -> AppResult<Vec<outbox_entity::ActiveModel>> {
    let (event_id, mut rows) = webhook_rows(db, hooks, config, body).await?;
    let about = chat::About {
        event: body.event,
        headline: told.headline,
        text: None,
        internal: false,
    };
    rows.extend(chat_rows(db, hooks, config, &event_id, t, &about).await?);
    let (skip, occurrence, to) = (told.skip, &told.occurrence, &told.recipients);
    rows.extend(mail_rows(db, &event_id, body.event, skip, t, occurrence, to).await?);
    Ok(rows)
}

/// `ticket.deleted` (archived): webhook only.
pub async fn ticket_deleted(
    db: &impl ConnectionTrait,
    config: &Config,
    t: &ticket::Model,
) -> AppResult<()> {
    webhooks(db, config, &Body::new("ticket.deleted", t)).await?;
    Ok(())
}
