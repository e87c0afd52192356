//! The attachments a viewer may see of many tickets or comments at once, with each list cut in SQL to
//! what that viewer may read.
use super::can_read;
use crate::auth::Actor;
use crate::error::AppResult;
use crate::service::{comments, tickets, Rank, Take};
use entity::{attachment, comment, ticket};
use sea_orm::sea_query::{Expr, ExprTrait, IntoColumnRef, Order};
use sea_orm::{
    ColumnTrait, Condition, ConnectionTrait, EntityTrait, JoinType, QueryFilter, QueryOrder,
    QuerySelect, RelationDef,
};
use std::collections::HashMap;

/// The live attachments the actor may see of each of the tickets `ticket_ids`, oldest first, by ticket
/// id; tickets without any (or that the actor cannot see) are absent. Three statements at most; `take` may
/// cut each ticket's list.
pub async fn readable_by_ticket(
    db: &impl ConnectionTrait,
    actor: &Actor,
    ticket_ids: &[i32],
    take: Take,
) -> AppResult<HashMap<i32, Vec<attachment::Model>>> {
    let rows = readable_rows(
        db,
        actor,
        attachment::Column::TicketId.is_in(ticket_ids.iter().copied()),
        (take, attachment::Column::TicketId),
    )
    .await?;
    let mut out: HashMap<i32, Vec<attachment::Model>> = HashMap::new();
    for a in rows {
        out.entry(a.ticket_id).or_default().push(a);
    }
    Ok(out)
}

/// The live attachments the actor may see of each of the comments `comment_ids`, oldest first, by
/// comment id. Three statements at most; `take` may cut each comment's list.
pub async fn readable_by_comment(
    db: &impl ConnectionTrait,
    actor: &Actor,
    comment_ids: &[i32],
    take: Take,
) -> AppResult<HashMap<i32, Vec<attachment::Model>>> {
    let rows = readable_rows(
        db,
        actor,
        attachment::Column::CommentId.is_in(comment_ids.iter().copied()),
        (take, attachment::Column::CommentId),
    )
    .await?;
    let mut out: HashMap<i32, Vec<attachment::Model>> = HashMap::new();
    for a in rows {
        if let Some(cid) = a.comment_id {
            out.entry(cid).or_default().push(a);
        }
    }
    Ok(out)
}

/// The live attachments matching `filter` that [`can_read`] lets the actor see, oldest first, judged with
/// their tickets and comments as they are now; `take` cuts the list of each `parent`, counting only what
/// the actor may see ([`readable_in_sql`]).
async fn readable_rows(
    db: &impl ConnectionTrait,
    actor: &Actor,
    filter: sea_orm::sea_query::SimpleExpr,
    (take, parent): (Take, attachment::Column),
) -> AppResult<Vec<attachment::Model>> {
    let select = attachment::Entity::find()
        .filter(filter)
        .filter(attachment::Column::DeletedAt.is_null());
    let rank = Rank {
        key: vec![(attachment::Entity, attachment::Column::Id).into_column_ref()],
        parent: (attachment::Entity, parent).into_column_ref(),
        order: vec![(
            (attachment::Entity, attachment::Column::Id).into_column_ref(),
            Order::Asc,
        )],
    };
    let rows = take
        .per_parent(select, rank, |all| readable_in_sql(all, actor))
        .order_by_asc(attachment::Column::Id)
        .all(db)
        .await?;
    if rows.is_empty() {
        return Ok(rows);
    }
    let tickets: HashMap<i32, ticket::Model> = ticket::Entity::find()
        .filter(ticket::Column::Id.is_in(rows.iter().map(|a| a.ticket_id)))
        .all(db)
        .await?
        .into_iter()
        .map(|t| (t.id, t))
        .collect();
    let comment_ids: Vec<i32> = rows.iter().filter_map(|a| a.comment_id).collect();
    let comments: HashMap<i32, comment::Model> = if comment_ids.is_empty() {
        HashMap::new()
    } else {
        comment::Entity::find()
            .filter(comment::Column::Id.is_in(comment_ids))
            .all(db)
            .await?
            .into_iter()
            .map(|c| (c.id, c))
            .collect()
    };
    Ok(rows
        .into_iter()
        .filter(|a| {
            let c = a.comment_id.and_then(|id| comments.get(&id));
            tickets
                .get(&a.ticket_id)
                .is_some_and(|t| can_read(actor, t, a, c))
        })
        .collect())
}

/// `select` joined with the attachments' tickets and comments and restricted to what [`can_read`] lets the
/// actor see, for cutting lists in SQL; the rows are judged again by [`can_read`] once read.
fn readable_in_sql(
    select: sea_orm::Select<attachment::Entity>,
    actor: &Actor,
) -> sea_orm::Select<attachment::Entity> {
    let on_ticket: RelationDef = attachment::Entity::belongs_to(ticket::Entity)
        .from(attachment::Column::TicketId)
        .to(ticket::Column::Id)
        .into();
    let on_comment: RelationDef = attachment::Entity::belongs_to(comment::Entity)
        .from(attachment::Column::CommentId)
        .to(comment::Column::Id)
        .into();
    let comment_ok = Condition::any()
        .add(attachment::Column::CommentId.is_null())
        .add(
            Condition::all()
                .add(
                    Expr::col((comment::Entity, comment::Column::TicketId))
                        .equals((attachment::Entity, attachment::Column::TicketId)),
                )
                .add(comments::readable_by(actor)),
        );
    select
        .join(JoinType::InnerJoin, on_ticket)
        .join(JoinType::LeftJoin, on_comment)
        .filter(Expr::col((ticket::Entity, ticket::Column::ArchivedAt)).is_null())
        .filter(tickets::rules::visible_to(actor))
        .filter(comment_ok)
}
