//! Comments on tickets: who may read, write, edit and delete them (here, and nowhere else), reading
//! and counting; changes live in `write`. Every read that returns text, or earlier versions of it,
//! takes the viewer and returns only what they may read (`batch`); there is no other way in.
mod batch;
mod counts;
mod write;

pub(in crate::service) use batch::readable_by;
pub use batch::{live_by_ticket, readable_edits, TicketComments};
pub use counts::{recount, recount_all, visible_count};
pub(in crate::service) use write::post_by_rule;
pub(in crate::service) use write::post_notice;
pub(in crate::service) use write::{add_in, Answering};
pub use write::{clean_body, create, create_with_files, delete, edit, CommentPatch, NewComment};

use crate::auth::Actor;
use crate::domain::CommentType;
use crate::error::{AppError, AppResult};
use crate::service::tickets::{self, rules};
use entity::{comment, ticket};
use sea_orm::{ConnectionTrait, DbBackend, EntityTrait, QuerySelect};

/// Largest accepted comment body, in bytes, before sanitising.
pub const MAX_BODY_BYTES: usize = 64 * 1024;

/// Whether the actor may read, and write, internal comments on this ticket: the team, the assignee
/// and members of the assigned group.
pub fn can_read_internal(actor: &Actor, t: &ticket::Model) -> bool {
    actor.is_team() || rules::is_worker(actor, t)
}

/// Whether the actor may read this comment of a ticket they can see.
pub fn can_read(actor: &Actor, t: &ticket::Model, c: &comment::Model) -> bool {
    c.comment_type != CommentType::Internal || can_read_internal(actor, t)
}

/// Whether the actor may edit or delete this comment: its author, or staff/admin.
pub fn can_modify(actor: &Actor, c: &comment::Model) -> bool {
    c.author_id == Some(actor.id()) || actor.is_staff_or_admin()
}

/// How many edits of `c` the actor is told of: every one when they may read internal text on `t`,
/// otherwise only those whose earlier version was public (the versions [`readable_edits`] gives them).
pub fn visible_edit_count(actor: &Actor, t: &ticket::Model, c: &comment::Model) -> i32 {
    if can_read_internal(actor, t) {
        c.edit_count
    } else {
        c.public_edit_count
    }
}

/// `c` as the actor may be shown it: its edit count is [`visible_edit_count`], and a comment whose every
/// edit is hidden from them does not say when or by whom it was edited. Only for display: writes work on
/// the stored row.
pub fn seen_by(actor: &Actor, t: &ticket::Model, mut c: comment::Model) -> comment::Model {
    c.edit_count = visible_edit_count(actor, t, &c);
    if c.edit_count == 0 {
        c.edited_at = None;
        c.edited_by_id = None;
    }
    c
}

/// The live (not deleted) comments of a ticket the actor can see, oldest first, with their authors,
/// without the internal ones when the actor may not read them, each [`seen_by`] the actor. 404 when the
/// actor cannot see `t`.
pub async fn list_visible(
    db: &impl ConnectionTrait,
    actor: &Actor,
    t: &ticket::Model,
) -> AppResult<TicketComments> {
    if t.archived_at.is_some() || !rules::can_see(actor, t) {
        return Err(AppError::not_found("ticket"));
    }
    let mut found = live_by_ticket(db, actor, &[t.id])
        .await?
        .remove(&t.id)
        .unwrap_or_default();
    found.comments = found
        .comments
        .into_iter()
        .map(|c| seen_by(actor, t, c))
        .collect();
    Ok(found)
}

/// A live comment the actor may read, with its ticket; 404 for anything else (missing, deleted, on
/// a ticket they cannot see, or internal when they may not read internal comments).
pub async fn get_visible(
    db: &impl ConnectionTrait,
    actor: &Actor,
    comment_id: i32,
) -> AppResult<(comment::Model, ticket::Model)> {
    let mut select = comment::Entity::find_by_id(comment_id);
    if db.get_database_backend() == DbBackend::Postgres {
        // Inside a write transaction this holds the row until commit, so edits queue up.
        select = select.lock_exclusive();
    }
    let found = select
        .one(db)
        .await?
        .filter(|c| !c.is_deleted)
        .ok_or_else(|| AppError::not_found("comment"))?;
    let t = tickets::get(db, actor, found.ticket_id)
        .await
        .map_err(|err| match err {
            AppError::NotFound(_) => AppError::not_found("comment"),
            other => other,
        })?;
    if !can_read(actor, &t, &found) {
        return Err(AppError::not_found("comment"));
    }
    Ok((found, t))
}

/// Like [`get_visible`], but 404 unless the comment belongs to `ticket_id` (REST paths name both).
pub async fn get_visible_on(
    db: &impl ConnectionTrait,
    actor: &Actor,
    ticket_id: i32,
    comment_id: i32,
) -> AppResult<(comment::Model, ticket::Model)> {
    let (c, t) = get_visible(db, actor, comment_id).await?;
    if c.ticket_id != ticket_id {
        return Err(AppError::not_found("comment"));
    }
    Ok((c, t))
}
