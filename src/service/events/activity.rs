//! Events about what hangs off a ticket: comments, attachments, and SLA at-risk and breach moments.
use super::*;
use crate::service::chat::message::moment as chat_moment;

/// A new comment `c` on `t`, to call from the comments service inside its transaction.
///
/// Public comments: `comment.created` webhook (with `comment_id`, never the text) and emails to
/// requester and assignee. Internal notes never leave through webhooks and are mailed only to the
/// assignee, and only when the assignee may read them (`service::comments::can_read`).
pub async fn comment_created(
    db: &impl ConnectionTrait,
    config: &Config,
    actor: &Actor,
    t: &ticket::Model,
    c: &comment::Model,
) -> AppResult<()> {
    comment_created_with_files(db, config, actor, t, c, &[]).await
}

/// [`comment_created`] for a comment posted with `files` (they hang on it): its one email lists their
/// names and sizes, and each file has its `attachment.added` webhook (none on an internal note) but no
/// email of its own. Files on a comment are seen by whoever may read it, so the list reaches exactly
/// those who may see the files.
pub async fn comment_created_with_files(
    db: &impl ConnectionTrait,
    config: &Config,
    actor: &Actor,
    t: &ticket::Model,
    c: &comment::Model,
    files: &[attachment::Model],
) -> AppResult<()> {
    if c.comment_type != CommentType::Internal {
        for a in files {
            attachment_webhook(db, config, t, a).await?;
        }
    }
    let author = if actor.user.full_name.trim().is_empty() {
        actor.user.username.clone()
    } else {
        actor.user.full_name.clone()
    };
    let by = CommentBy {
        author: &author,
        skip: Some(actor.id()),
        via: None,
    };
    announce_comment(db, config, &by, t, c, files).await
}

/// How an automation rule's comment is signed in its emails: rules are the desk's own words.
pub const RULE_AUTHOR: &str = "Service desk";

/// A comment `c` on `t` that the rule `via` posted: announced as a person's comment is (webhook for a public
/// one, marked `via` the rule; emails to requester and assignee, or to an assignee who may read an internal
/// one), signed [`RULE_AUTHOR`], and mailed to everyone it concerns, the person whose write set the rule off
/// included (an acknowledgement is for them).
pub async fn rule_comment_created(
    db: &impl ConnectionTrait,
    config: &Config,
    via: &Via,
    t: &ticket::Model,
    c: &comment::Model,
) -> AppResult<()> {
    let by = CommentBy {
        author: RULE_AUTHOR,
        skip: None,
        via: Some(via),
    };
    announce_comment(db, config, &by, t, c, &[]).await
}

/// Who a comment is announced as coming from.
struct CommentBy<'a> {
    /// The name its emails give.
    author: &'a str,
    /// Who is not mailed (the person who wrote it).
    skip: Option<i32>,
    /// The rule that posted it.
    via: Option<&'a Via>,
}

async fn announce_comment(
    db: &impl ConnectionTrait,
    config: &Config,
    by: &CommentBy<'_>,
    t: &ticket::Model,
    c: &comment::Model,
    files: &[attachment::Model],
) -> AppResult<()> {
    let author = by.author;
    let is_internal = c.comment_type == CommentType::Internal;
    let occurrence = Occurrence::CommentAdded {
        author,
        body: &c.body,
        internal: is_internal,
        files,
    };
    if is_internal {
        // The assignee and the followers, each only when they may read the note.
        let mut readers = Vec::new();
        for id in t.assignee_id.into_iter().chain(followers(db, t.id).await?) {
            let may_read = load_actor(db, id)
                .await?
                .is_some_and(|a| can_read(&a, t, c));
            if may_read {
                readers.push(Some(id));
            }
        }
        let event_id = outbox::new_event_id();
        let about = chat::About {
            event: "comment.created",
            headline: format!("Internal note by {author}"),
            text: Some(&c.body),
            internal: true,
        };
        chat(db, config, &event_id, t, &about).await?;
        if !readers.is_empty() {
            let recipients = readers;
            emails(
                db,
                &event_id,
                "comment.created",
                by.skip,
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
    body.via = by.via;
    let event_id = webhooks(db, config, &body).await?;
    let about = chat::About {
        event: body.event,
        headline: format!("{author} commented"),
        text: Some(&c.body),
        internal: false,
    };
    chat(db, config, &event_id, t, &about).await?;
    let mut recipients = vec![Some(t.requester_id), t.assignee_id];
    recipients.extend(followers(db, t.id).await?.into_iter().map(Some));
    emails(
        db,
        &event_id,
        body.event,
        by.skip,
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
    config: &Config,
    t: &ticket::Model,
    target: Target,
    kind: Kind,
    due: DateTime<Utc>,
) -> AppResult<()> {
    let mut body = Body::new(crate::service::sla::clock::event_name(kind), t);
    body.target = Some(target.as_str());
    body.due_at = Some(due.to_rfc3339_opts(chrono::SecondsFormat::Micros, true));
    let event_id = webhooks(db, config, &body).await?;
    let what = target.as_str().replace('_', " ");
    let about = chat::About {
        event: body.event,
        headline: match kind {
            Kind::Breached => format!("SLA breached: {what} was due {}", chat_moment(due)),
            _ => format!("SLA at risk: {what} due {}", chat_moment(due)),
        },
        text: None,
        internal: false,
    };
    chat(db, config, &event_id, t, &about).await?;
    let ids: Vec<i32> = match (t.assignee_id, t.assigned_group_id) {
        (Some(id), _) => vec![id],
        (None, Some(group)) => group_members(db, group).await?,
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
    config: &Config,
    actor: &Actor,
    t: &ticket::Model,
    a: &attachment::Model,
    on_comment: Option<&comment::Model>,
) -> AppResult<()> {
    let internal = on_comment.is_some_and(|c| c.comment_type == CommentType::Internal);
    let event_id = if internal {
        outbox::new_event_id()
    } else {
        attachment_webhook(db, config, t, a).await?
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
        Some(actor.id()),
        t,
        &occurrence,
        &allowed,
    )
    .await
}

/// The `attachment.added` webhook of `a` (never for a file on an internal note: callers check).
async fn attachment_webhook(
    db: &impl ConnectionTrait,
    config: &Config,
    t: &ticket::Model,
    a: &attachment::Model,
) -> AppResult<String> {
    let mut body = Body::new("attachment.added", t);
    body.comment_id = a.comment_id;
    body.attachment_id = Some(a.id);
    body.filename = Some(&a.filename);
    webhooks(db, config, &body).await
}

/// The ids of the members of `group`.
pub async fn group_members(db: &impl ConnectionTrait, group: i32) -> AppResult<Vec<i32>> {
    Ok(user_group::Entity::find()
        .select_only()
        .column(user_group::Column::UserId)
        .filter(user_group::Column::GroupId.eq(group))
        .into_tuple()
        .all(db)
        .await?)
}

/// A rule's email about `t` to the people `to` (the active ones with an address, each once): `subject` and
/// `text` as the rule filled them in, plain text. Its outbox rows commit with the write that set the rule
/// off.
pub async fn rule_notice(
    db: &impl ConnectionTrait,
    t: &ticket::Model,
    to: &[i32],
    subject: &str,
    text: &str,
) -> AppResult<()> {
    let event_id = outbox::new_event_id();
    let occurrence = Occurrence::Notice {
        subject,
        body: text,
    };
    let ids: Vec<Option<i32>> = to.iter().copied().map(Some).collect();
    emails(db, &event_id, "rule.notice", None, t, &occurrence, &ids).await
}

/// A rule's message about `t` in chat destination `destination`: `subject` as what happened and `text` under
/// it, as the rule filled them in. A rule names its destination, so the destination's own filters do not
/// apply; one deleted or switched off since the rule was saved gets nothing. Its outbox row commits with the
/// write that set the rule off.
pub async fn rule_chat(
    db: &impl ConnectionTrait,
    config: &Config,
    t: &ticket::Model,
    destination: i32,
    subject: &str,
    text: &str,
) -> AppResult<()> {
    let event_id = outbox::new_event_id();
    let rows = chat::rule_rows(db, config, &event_id, t, destination, subject, text).await?;
    if let Some(insert) = outbox::insert_of(rows) {
        db.execute(&insert).await?;
    }
    Ok(())
}

/// A rule's webhook delivery about `t` to endpoint `endpoint` (event `rule.notice`, which no endpoint
/// subscribes to: the rule names it): the usual body with `subject` and `text` as the rule filled them in,
/// and `via` the rule. Signed and retried like every delivery; an endpoint deleted or switched off since gives
/// it up.
pub async fn rule_webhook(
    db: &impl ConnectionTrait,
    t: &ticket::Model,
    endpoint: i32,
    via: &Via,
    subject: &str,
    text: &str,
) -> AppResult<()> {
    let mut body = Body::new("rule.notice", t);
    body.subject = Some(subject);
    body.text = Some(text);
    body.via = Some(via);
    let json = serde_json::to_string(&body).map_err(AppError::internal)?;
    let event_id = outbox::new_event_id();
    outbox::row(
        outbox::JobKind::Webhook,
        &event_id,
        body.event,
        Some(endpoint),
        json,
    )
    .insert(db)
    .await?;
    Ok(())
}
