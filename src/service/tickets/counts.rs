//! Batched counts over many tickets at once (for list pages and GraphQL loaders).
use crate::domain::CommentType;
use crate::error::AppResult;
use entity::comment;
use sea_orm::sea_query::{Expr, ExprTrait};
use sea_orm::{ColumnTrait, ConnectionTrait, EntityTrait, QueryFilter, QuerySelect};
use std::collections::HashMap;

/// Non-deleted comments per ticket, public only unless `with_internal`; tickets without any are absent.
/// The caller decides `with_internal` per ticket with [`super::rules::can_read_internal_comments`].
pub async fn visible_comments_by_ticket(
    db: &impl ConnectionTrait,
    ticket_ids: &[i32],
    with_internal: bool,
) -> AppResult<HashMap<i32, i64>> {
    let mut select = comment::Entity::find()
        .select_only()
        .column(comment::Column::TicketId)
        .column_as(Expr::col(comment::Column::Id).count(), "n")
        .filter(comment::Column::TicketId.is_in(ticket_ids.iter().copied()))
        .filter(comment::Column::IsDeleted.eq(false))
        .group_by(comment::Column::TicketId);
    if !with_internal {
        select = select.filter(comment::Column::CommentType.eq(CommentType::Public.as_str()));
    }
    let rows: Vec<(i32, i64)> = select.into_tuple().all(db).await?;
    Ok(rows.into_iter().collect())
}
