//! Batched reads for pages of tickets (the GraphQL loaders): the readable comments of many tickets
//! and the edit histories of many comments, one query each.
use super::can_read_internal;
use crate::auth::Actor;
use crate::domain::CommentType;
use crate::error::AppResult;
use entity::{comment, comment_edit, ticket, user};
use sea_orm::{
    ColumnTrait, Condition, ConnectionTrait, EntityTrait, JoinType, QueryFilter, QueryOrder,
    QuerySelect, RelationDef,
};
use std::collections::HashMap;

/// A ticket's readable comments with their authors.
#[derive(Debug, Default)]
pub struct TicketComments {
    /// Oldest first.
    pub comments: Vec<comment::Model>,
    /// The authors of these comments, by id (absent when the comment has none).
    pub authors: HashMap<i32, user::Model>,
}

/// The live comments of many tickets in one query, oldest first per ticket: public ones on
/// `public_only`, public and internal ones on `with_internal`. Callers split their tickets with
/// [`can_read_internal`]; every given ticket gets an entry, empty when it has no comments. Their authors
/// come with them.
pub async fn live_by_ticket(
    db: &impl ConnectionTrait,
    public_only: &[i32],
    with_internal: &[i32],
) -> AppResult<HashMap<i32, TicketComments>> {
    let mut out: HashMap<i32, TicketComments> = public_only
        .iter()
        .chain(with_internal)
        .map(|id| (*id, TicketComments::default()))
        .collect();
    if out.is_empty() {
        return Ok(out);
    }
    let mut readable = Condition::any();
    if !public_only.is_empty() {
        readable = readable.add(
            Condition::all()
                .add(comment::Column::TicketId.is_in(public_only.iter().copied()))
                .add(comment::Column::CommentType.eq(CommentType::Public.as_str())),
        );
    }
    if !with_internal.is_empty() {
        readable = readable.add(comment::Column::TicketId.is_in(with_internal.iter().copied()));
    }
    // Authors in the same statement: a comment list is shown with its authors, and a statement of their
    // own was a third of a ticket-with-comments request's round trips.
    let author: RelationDef = comment::Entity::belongs_to(user::Entity)
        .from(comment::Column::AuthorId)
        .to(user::Column::Id)
        .into();
    let rows = comment::Entity::find()
        .join(JoinType::LeftJoin, author)
        .select_also(user::Entity)
        .filter(comment::Column::IsDeleted.eq(false))
        .filter(readable)
        .order_by_asc(comment::Column::CreatedAt)
        .order_by_asc(comment::Column::Id)
        .all(db)
        .await?;
    for (c, author) in rows {
        if let Some(found) = out.get_mut(&c.ticket_id) {
            if let Some(author) = author {
                found.authors.insert(author.id, author);
            }
            found.comments.push(c);
        }
    }
    Ok(out)
}

/// The edit histories of many comments in one query, oldest edit first; every given comment gets
/// an entry. Callers pass the result through [`readable_edits`] before showing it.
pub async fn edits_by_comment(
    db: &impl ConnectionTrait,
    comment_ids: &[i32],
) -> AppResult<HashMap<i32, Vec<comment_edit::Model>>> {
    let mut out: HashMap<i32, Vec<comment_edit::Model>> =
        comment_ids.iter().map(|id| (*id, Vec::new())).collect();
    if out.is_empty() {
        return Ok(out);
    }
    let rows = comment_edit::Entity::find()
        .filter(comment_edit::Column::CommentId.is_in(comment_ids.iter().copied()))
        .order_by_asc(comment_edit::Column::EditedAt)
        .order_by_asc(comment_edit::Column::Id)
        .all(db)
        .await?;
    for e in rows {
        if let Some(list) = out.get_mut(&e.comment_id) {
            list.push(e);
        }
    }
    Ok(out)
}

/// The edits of a comment the actor can read that they may see: an edit whose previous text was
/// internal (the comment was switched from internal to public since) keeps that text from those
/// who may not read internal comments.
pub fn readable_edits(
    actor: &Actor,
    t: &ticket::Model,
    edits: Vec<comment_edit::Model>,
) -> Vec<comment_edit::Model> {
    if can_read_internal(actor, t) {
        return edits;
    }
    edits
        .into_iter()
        .filter(|e| e.previous_comment_type != CommentType::Internal.as_str())
        .collect()
}
