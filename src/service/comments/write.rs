//! Comment changes: create, edit (with history) and soft delete, each with its audit record in one
//! transaction.
use super::{can_modify, can_read_internal, counts, get_visible, MAX_BODY_BYTES};
use crate::auth::Actor;
use crate::domain::CommentType;
use crate::error::{AppError, AppResult};
use crate::notify::live::LiveEvent;
use crate::sanitize::{has_visible_content, sanitize_html};
use crate::service::audit::{self, Changes};
use crate::service::events;
use crate::service::sla::policies;
use crate::service::text;
use crate::service::tickets::write::triggered;
use crate::service::{attachments, tickets, WriteDeps};
use crate::storage::BlobStore;
use chrono::Utc;
use entity::{attachment, comment, comment_edit, mail_message, ticket};
use sea_orm::sea_query::Expr;
use sea_orm::sea_query::LockType;
use sea_orm::{
    ActiveModelTrait, ColumnTrait, DatabaseTransaction, EntityTrait, IntoActiveModel, QueryFilter,
    QuerySelect, Set,
};
use serde_json::json;

/// A new comment. The type is parsed at the edge (public when the client sent none).
#[derive(Debug, Clone)]
pub struct NewComment {
    /// HTML body; sanitised here.
    pub body: String,
    /// Public or internal.
    pub comment_type: CommentType,
}

/// An edit; at least one field must be set.
#[derive(Debug, Clone, Default)]
pub struct CommentPatch {
    /// New HTML body; sanitised here.
    pub body: Option<String>,
    /// New type.
    pub comment_type: Option<CommentType>,
}

/// Sanitise a body; too large, or nothing visible left, is a 400 on the field `body`.
pub fn clean_body(raw: &str) -> AppResult<String> {
    text::multi_line("body", raw)?;
    if raw.len() > MAX_BODY_BYTES {
        return Err(AppError::field(
            "body",
            format!("ensure this field has no more than {MAX_BODY_BYTES} bytes"),
        ));
    }
    let clean = sanitize_html(raw).trim().to_string();
    if !has_visible_content(&clean) {
        return Err(AppError::field("body", "this field may not be blank"));
    }
    Ok(clean)
}

fn check_internal_allowed(actor: &Actor, t: &ticket::Model, kind: CommentType) -> AppResult<()> {
    if kind == CommentType::Internal && !can_read_internal(actor, t) {
        return Err(AppError::forbidden(
            "only the team, the assignee and the assigned group may write internal comments",
        ));
    }
    Ok(())
}

/// Add a comment to a ticket the actor can see (404 otherwise). The first public comment by a team
/// member marks the ticket as responded to.
pub async fn create(
    state: WriteDeps<'_>,
    actor: &Actor,
    ticket_id: i32,
    input: NewComment,
) -> AppResult<comment::Model> {
    let (created, _) = create_and_attach(state, actor, ticket_id, input, None, None).await?;
    Ok(created)
}

/// [`create`] with files posted together with the comment (each a client file name and its bytes): they
/// hang on it and commit with it, and they are announced in the comment's one email
/// ([`events::comment_created_with_files`]) rather than one email each. A bad file is a 400 on `file`
/// before anything is written.
/// The bytes go to `storage`. `receipt`, the record of the mail message the comment came from
/// (`service::mail_in`), commits with it, its ticket and comment filled in.
pub async fn create_with_files(
    state: WriteDeps<'_>,
    storage: &dyn BlobStore,
    actor: &Actor,
    ticket_id: i32,
    input: NewComment,
    files: Files,
    receipt: Option<mail_message::ActiveModel>,
) -> AppResult<(comment::Model, Vec<attachment::Model>)> {
    create_and_attach(
        state,
        actor,
        ticket_id,
        input,
        Some((storage, files)),
        receipt,
    )
    .await
}

/// Files posted with a comment: each a client file name and its spooled bytes.
type Files = Vec<(String, attachments::Spooled)>;

async fn create_and_attach(
    state: WriteDeps<'_>,
    actor: &Actor,
    ticket_id: i32,
    input: NewComment,
    files: Option<(&dyn BlobStore, Files)>,
    receipt: Option<mail_message::ActiveModel>,
) -> AppResult<(comment::Model, Vec<attachment::Model>)> {
    let (storage, files) = match files {
        Some((storage, files)) => (Some(storage), files),
        None => (None, Vec::new()),
    };
    for (name, upload) in &files {
        attachments::check(name, upload)?;
    }
    let body = clean_body(&input.body)?;
    let t = tickets::get(&state.db.conn, actor, ticket_id).await?;
    check_internal_allowed(actor, &t, input.comment_type)?;
    let mut staged = Vec::with_capacity(files.len());
    if let Some(storage) = storage {
        for (name, upload) in files {
            staged.push(attachments::stage(state.db, storage, name, upload).await?);
        }
    }
    let is_internal = input.comment_type == CommentType::Internal;
    let triggers = state.triggers.active(&state.db.conn).await?;
    let answering = Answering::read(state, actor, &t, input.comment_type).await?;
    let now = Utc::now();
    let txn = state.db.begin_write().await?;
    let t = landing(&txn, t).await?;
    check_internal_allowed(actor, &t, input.comment_type)?;
    let created = record(&txn, actor, &t, input.comment_type, body, &answering, now).await?;
    let mut attached = Vec::with_capacity(staged.len());
    for file in staged {
        attached.push(attachments::insert(&txn, actor, &t, Some(&created), file).await?);
    }
    if let Some(mut receipt) = receipt {
        receipt.ticket_id = Set(Some(t.id));
        receipt.comment_id = Set(Some(created.id));
        receipt.insert(&txn).await?;
    }
    events::comment_created_with_files(&txn, state.config, actor, &t, &created, &attached).await?;
    // Last, so that the ticket row it locks is held only until the commit: comments on one ticket
    // then write in parallel up to here.
    counts::on_created(&txn, t.id, created.comment_type).await?;
    // The requester's answer to a ticket waiting for them moves it, after the counts: as every write of the
    // comment's transaction takes the ticket row's lock last, no two comments take their locks in opposite
    // orders and wait for each other.
    let reopened = match input.comment_type {
        CommentType::Public => {
            crate::service::tickets::write::on_requester_reply(&txn, state, actor, &t).await?
        }
        CommentType::Internal => None,
    };
    let t = reopened.as_ref().map_or(t, |(_, after)| after.clone());
    let ran = triggered::after_comment(&txn, state, actor, &triggers, &t, is_internal).await?;
    txn.commit().await?;
    if let Some((before, after)) = &reopened {
        crate::service::tickets::write::publish_change(state, before, after).await;
    }
    state
        .live
        .publish(state.db, LiveEvent::comment(t.id, created.id))
        .await;
    if let Some(ran) = ran {
        ran.publish(state, &t).await;
    }
    Ok((created, attached))
}

/// Whether a comment may be the ticket's first response, decided before the transaction.
pub(in crate::service) enum Answering {
    /// It cannot be one: an internal note, or not the team's.
    NotAResponse,
    /// The team's public reply on a ticket answered before: nothing to record.
    AnsweredBefore,
    /// It may be the first, measured against the SLA policies of the ticket's priority (from the remembered
    /// policies).
    First(std::sync::Arc<Vec<policies::Policy>>),
}

impl Answering {
    /// What a comment of `kind` by `actor` on `t` would answer.
    pub(in crate::service) async fn read(
        state: WriteDeps<'_>,
        actor: &Actor,
        t: &ticket::Model,
        kind: CommentType,
    ) -> AppResult<Answering> {
        if kind == CommentType::Internal || !actor.is_team() {
            return Ok(Answering::NotAResponse);
        }
        // A first response is never taken back, so a ticket answered when read stays answered.
        if t.first_responded_at.is_some() {
            return Ok(Answering::AnsweredBefore);
        }
        let of_priority = state
            .policies
            .for_priority(&state.db.conn, t.priority)
            .await?;
        Ok(Answering::First(of_priority))
    }
}

/// The comment row, the first response it may be (conditional, so that a concurrent first response keeps
/// the earlier time) and its audit record, in `txn` on `t` (read in it).
async fn record(
    txn: &DatabaseTransaction,
    actor: &Actor,
    t: &ticket::Model,
    kind: CommentType,
    body: String,
    answering: &Answering,
    now: chrono::DateTime<Utc>,
) -> AppResult<comment::Model> {
    let created = insert(txn, t, Some(actor.id()), kind, body, now).await?;
    if let Answering::First(of_priority) = answering {
        let first = ticket::Entity::update_many()
            .col_expr(ticket::Column::FirstRespondedAt, Expr::value(now))
            .filter(ticket::Column::Id.eq(t.id))
            .filter(ticket::Column::FirstRespondedAt.is_null())
            .exec(txn)
            .await?;
        if first.rows_affected > 0 {
            crate::service::sla::on_first_response(txn, t.id).await?;
            let governing =
                policies::matching(of_priority, t.priority, t.project_id, t.assigned_group_id);
            if let Some(policy) = governing {
                let kept = crate::service::reports::on_first_response(t, &policy.calendar, now)?;
                crate::db::run_together(txn, vec![kept]).await?;
            }
        }
    }
    audit::record(
        txn,
        audit::Entry::new(Some(actor.id()), "comment", created.id, "create")
            .ticket(t.id)
            .internal(kind == CommentType::Internal)
            .changes(json!({
                "body": [null, created.body],
                "comment_type": [null, created.comment_type],
            })),
    )
    .await?;
    Ok(created)
}

/// A public comment `actor` adds to `t` (locked in `txn` by the write it is part of: a status move with a
/// note), its body already cleaned ([`clean_body`]): recorded, announced and counted as [`create`] does, and
/// seen by the triggers as a comment added, in the same transaction. The live event is the caller's to
/// publish once it has committed.
pub(in crate::service) async fn add_in(
    txn: &DatabaseTransaction,
    state: WriteDeps<'_>,
    actor: &Actor,
    triggers: &[crate::service::automation::Trigger],
    t: &ticket::Model,
    body: String,
    answering: &Answering,
) -> AppResult<(comment::Model, Option<triggered::Ran>)> {
    let kind = CommentType::Public;
    let created = record(txn, actor, t, kind, body, answering, Utc::now()).await?;
    events::comment_created(txn, state.config, actor, t, &created).await?;
    counts::on_created(txn, t.id, kind).await?;
    let ran = triggered::after_comment(txn, state, actor, triggers, t, false).await?;
    Ok((created, ran))
}

/// The ticket a comment meant for `t` lands on, read again inside the comment's transaction: `t` itself, or
/// the ticket it was merged into. The row is read under a key-share lock, which a merge's exclusive lock
/// waits for: either the merge waits for the comment (and then moves it along) or the comment waits for the
/// merge (and then lands on the target), so none is left behind on a merged ticket.
async fn landing(txn: &DatabaseTransaction, t: ticket::Model) -> AppResult<ticket::Model> {
    let read = |id: i32| {
        ticket::Entity::find_by_id(id)
            .filter(ticket::Column::ArchivedAt.is_null())
            .lock(LockType::KeyShare)
    };
    let now = read(t.id)
        .one(txn)
        .await?
        .ok_or_else(|| AppError::not_found("ticket"))?;
    match now.merged_into_id {
        None => Ok(now),
        Some(target) => read(target)
            .one(txn)
            .await?
            .ok_or_else(|| AppError::not_found("ticket")),
    }
}

/// A new live comment row: the one insert every comment goes through.
async fn insert(
    txn: &impl sea_orm::ConnectionTrait,
    t: &ticket::Model,
    author: Option<i32>,
    comment_type: CommentType,
    body: String,
    now: chrono::DateTime<Utc>,
) -> AppResult<comment::Model> {
    Ok(comment::ActiveModel {
        ticket_id: Set(t.id),
        author_id: Set(author),
        body: Set(body),
        comment_type: Set(comment_type),
        created_at: Set(now),
        updated_at: Set(now),
        edit_count: Set(0),
        public_edit_count: Set(0),
        is_deleted: Set(false),
        ..Default::default()
    }
    .insert(txn)
    .await?)
}

/// A public comment `actor` posts on `t` as part of another write in `txn` (a merge tells each requester):
/// recorded and announced as theirs, but not a first response (nobody answered the requester).
pub(in crate::service) async fn post_notice(
    txn: &DatabaseTransaction,
    config: &crate::config::Config,
    actor: &Actor,
    t: &ticket::Model,
    body: String,
) -> AppResult<comment::Model> {
    let created = insert(
        txn,
        t,
        Some(actor.id()),
        CommentType::Public,
        body,
        Utc::now(),
    )
    .await?;
    audit::record(
        txn,
        audit::Entry::new(Some(actor.id()), "comment", created.id, "create")
            .ticket(t.id)
            .changes(json!({
                "body": [null, created.body],
                "comment_type": [null, created.comment_type],
            })),
    )
    .await?;
    events::comment_created(txn, config, actor, t, &created).await?;
    counts::on_created(txn, t.id, CommentType::Public).await?;
    Ok(created)
}

/// Edit a comment (its author, or staff/admin). Each real change keeps the previous text in the edit
/// history; an edit that changes nothing records nothing and returns the comment as it was.
pub async fn edit(
    state: WriteDeps<'_>,
    actor: &Actor,
    comment_id: i32,
    patch: CommentPatch,
) -> AppResult<comment::Model> {
    if patch.body.is_none() && patch.comment_type.is_none() {
        return Err(AppError::bad_request(
            "send the new body, the new comment_type, or both",
        ));
    }
    let body = patch.body.as_deref().map(clean_body).transpose()?;
    let txn = state.db.begin_write().await?;
    let (current, t) = get_visible(&txn, actor, comment_id).await?;
    if !can_modify(actor, &current) {
        return Err(AppError::forbidden(
            "only the author or staff may edit this comment",
        ));
    }
    if let Some(kind) = patch.comment_type {
        check_internal_allowed(actor, &t, kind)?;
    }
    let new_body = body.unwrap_or_else(|| current.body.clone());
    let new_type = patch.comment_type.unwrap_or(current.comment_type);
    let mut changes = Changes::new();
    changes.diff("body", &current.body, &new_body);
    changes.diff("comment_type", &current.comment_type, &new_type);
    if changes.is_empty() {
        txn.commit().await?;
        return Ok(current);
    }
    let was_internal = current.comment_type == CommentType::Internal;
    let is_internal = new_type == CommentType::Internal;
    let now = Utc::now();
    comment_edit::ActiveModel {
        comment_id: Set(current.id),
        edited_by_id: Set(Some(actor.id())),
        previous_body: Set(current.body.clone()),
        previous_comment_type: Set(current.comment_type),
        edited_at: Set(now),
        ..Default::default()
    }
    .insert(&txn)
    .await?;
    let edit_count = current.edit_count + 1;
    let public_edit_count =
        current.public_edit_count + i32::from(current.comment_type == CommentType::Public);
    let current_type = current.comment_type;
    let mut active = current.into_active_model();
    active.body = Set(new_body);
    active.comment_type = Set(new_type);
    active.updated_at = Set(now);
    active.edited_at = Set(Some(now));
    active.edited_by_id = Set(Some(actor.id()));
    active.edit_count = Set(edit_count);
    active.public_edit_count = Set(public_edit_count);
    let updated = active.update(&txn).await?;
    audit::record(
        &txn,
        audit::Entry::new(Some(actor.id()), "comment", updated.id, "update")
            .ticket(t.id)
            // An entry that once concerned internal text stays internal.
            .internal(was_internal || is_internal)
            .changes(changes.into_value()),
    )
    .await?;
    // Last, as in `create`.
    counts::on_retyped(&txn, t.id, current_type, updated.comment_type).await?;
    txn.commit().await?;
    Ok(updated)
}

/// Soft-delete a comment (its author, or staff/admin): the row and its history stay, but it leaves
/// every list and count and answers 404 from then on.
pub async fn delete(state: WriteDeps<'_>, actor: &Actor, comment_id: i32) -> AppResult<()> {
    let txn = state.db.begin_write().await?;
    let (current, t) = get_visible(&txn, actor, comment_id).await?;
    if !can_modify(actor, &current) {
        return Err(AppError::forbidden(
            "only the author or staff may delete this comment",
        ));
    }
    let is_internal = current.comment_type == CommentType::Internal;
    let now = Utc::now();
    let mut active = current.into_active_model();
    active.is_deleted = Set(true);
    active.deleted_at = Set(Some(now));
    active.deleted_by_id = Set(Some(actor.id()));
    let deleted = active.update(&txn).await?;
    audit::record(
        &txn,
        audit::Entry::new(Some(actor.id()), "comment", deleted.id, "delete")
            .ticket(t.id)
            .internal(is_internal)
            .changes(json!({ "is_deleted": [false, true] })),
    )
    .await?;
    // Last, as in `create`.
    counts::on_deleted(&txn, t.id, deleted.comment_type).await?;
    txn.commit().await?;
    Ok(())
}

/// A comment the rule `via` posts on `t` inside the write that set it off (`txn`): `body` is HTML the rule
/// rendered from plain text. It has no author, does not count as the team's first response (an automatic
/// acknowledgement is not one), and is recorded and announced as the rule's.
pub(in crate::service) async fn post_by_rule(
    txn: &impl sea_orm::ConnectionTrait,
    config: &crate::config::Config,
    via: &crate::service::automation::Via,
    t: &ticket::Model,
    comment_type: CommentType,
    body: String,
) -> AppResult<comment::Model> {
    let created = insert(txn, t, None, comment_type, body, Utc::now()).await?;
    audit::record(
        txn,
        audit::Entry::new(None, "comment", created.id, "create")
            .ticket(t.id)
            .internal(comment_type == CommentType::Internal)
            .changes(json!({
                "body": [null, created.body],
                "comment_type": [null, created.comment_type],
                "via": via,
            })),
    )
    .await?;
    events::rule_comment_created(txn, config, via, t, &created).await?;
    counts::on_created(txn, t.id, comment_type).await?;
    Ok(created)
}
