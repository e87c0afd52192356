//! Reading comments and their earlier versions for one viewer, for one ticket or a page of them: the
//! visibility rules are applied inside each query (the ticket is joined), so whatever ids a caller
//! passes, only what the viewer may read comes back.
use crate::auth::Actor;
use crate::domain::CommentType;
use crate::error::AppResult;
use crate::service::tickets::rules;
use crate::service::users;
use crate::service::{Rank, Take};
use entity::{comment, comment_edit, ticket, user};
use sea_orm::sea_query::{Expr, ExprTrait, IntoColumnRef, Order};
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
    /// The authors of these comments, by id (absent when the comment has none), as the viewer may see them.
    pub authors: HashMap<i32, user::Model>,
}

fn on_ticket() -> RelationDef {
    comment::Entity::belongs_to(ticket::Entity)
        .from(comment::Column::TicketId)
        .to(ticket::Column::Id)
        .into()
}

/// Text of the given type is readable by the actor on the joined ticket: public text by anyone who
/// sees it, internal text by the team, the assignee and the assigned group (`super::can_read_internal`).
fn type_readable(actor: &Actor, kind: Expr) -> Option<Condition> {
    if actor.is_team() {
        return None;
    }
    Some(
        Condition::any()
            .add(kind.eq(CommentType::Public.as_str()))
            .add(rules::worked_by(actor)),
    )
}

/// Restricts a comment query joined with its ticket to what the actor may read: live comments on
/// non-archived tickets they can see, internal ones only where they may read internal comments.
pub(in crate::service) fn readable_by(actor: &Actor) -> Condition {
    let mut all = Condition::all()
        .add(comment::Column::IsDeleted.eq(false))
        .add(Expr::col((ticket::Entity, ticket::Column::ArchivedAt)).is_null())
        .add(rules::visible_to(actor));
    if let Some(kind) = type_readable(
        actor,
        Expr::col((comment::Entity, comment::Column::CommentType)),
    ) {
        all = all.add(kind);
    }
    all
}

/// The comments of many tickets the actor may read, in one query, oldest first per ticket, with their
/// authors. Every given ticket gets an entry, empty when it has no comment the actor may read (or
/// when the actor cannot see the ticket at all).
pub async fn live_by_ticket(
    db: &impl ConnectionTrait,
    actor: &Actor,
    ticket_ids: &[i32],
) -> AppResult<HashMap<i32, TicketComments>> {
    let mut out: HashMap<i32, TicketComments> = ticket_ids
        .iter()
        .map(|id| (*id, TicketComments::default()))
        .collect();
    if out.is_empty() {
        return Ok(out);
    }
    // Authors in the same statement: a comment list is shown with its authors, and a statement of their
    // own was a third of a ticket-with-comments request's round trips.
    let author: RelationDef = comment::Entity::belongs_to(user::Entity)
        .from(comment::Column::AuthorId)
        .to(user::Column::Id)
        .into();
    let rows = comment::Entity::find()
        .join(JoinType::InnerJoin, on_ticket())
        .join(JoinType::LeftJoin, author)
        .select_also(user::Entity)
        .filter(comment::Column::TicketId.is_in(ticket_ids.iter().copied()))
        .filter(readable_by(actor))
        .order_by_asc(comment::Column::CreatedAt)
        .order_by_asc(comment::Column::Id)
        .all(db)
        .await?;
    for (c, author) in rows {
        if let Some(found) = out.get_mut(&c.ticket_id) {
            if let Some(author) = author {
                found
                    .authors
                    .insert(author.id, users::seen_by(actor, author));
            }
            found.comments.push(c);
        }
    }
    Ok(out)
}

/// The earlier versions of many comments that the actor may read, in one query, oldest edit first;
/// every given comment gets an entry. A version whose text was internal (the comment was made public
/// since) is left out for those who may not read internal comments; a comment the actor may not read
/// (deleted, internal, on a ticket they cannot see) has none. `take` may cut each comment's list.
pub async fn readable_edits(
    db: &impl ConnectionTrait,
    actor: &Actor,
    comment_ids: &[i32],
    take: Take,
) -> AppResult<HashMap<i32, Vec<comment_edit::Model>>> {
    let mut out: HashMap<i32, Vec<comment_edit::Model>> =
        comment_ids.iter().map(|id| (*id, Vec::new())).collect();
    if out.is_empty() {
        return Ok(out);
    }
    let on_comment: RelationDef = comment_edit::Entity::belongs_to(comment::Entity)
        .from(comment_edit::Column::CommentId)
        .to(comment::Column::Id)
        .into();
    let mut select = comment_edit::Entity::find()
        .join(JoinType::InnerJoin, on_comment)
        .join(JoinType::InnerJoin, on_ticket())
        .filter(comment_edit::Column::CommentId.is_in(comment_ids.iter().copied()))
        .filter(readable_by(actor));
    let previous = Expr::col((
        comment_edit::Entity,
        comment_edit::Column::PreviousCommentType,
    ));
    if let Some(kind) = type_readable(actor, previous) {
        select = select.filter(kind);
    }
    let rank = Rank {
        key: vec![(comment_edit::Entity, comment_edit::Column::Id).into_column_ref()],
        parent: (comment_edit::Entity, comment_edit::Column::CommentId).into_column_ref(),
        order: vec![
            (
                (comment_edit::Entity, comment_edit::Column::EditedAt).into_column_ref(),
                Order::Asc,
            ),
            (
                (comment_edit::Entity, comment_edit::Column::Id).into_column_ref(),
                Order::Asc,
            ),
        ],
    };
    let rows = take
        .per_parent(select, rank, |same| same)
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
