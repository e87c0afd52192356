//! Each ticket's comment counts, kept on its row: `public_comment_count` (live public comments) and
//! `all_comment_count` (live comments, internal included). Every comment write adjusts them in its own
//! transaction, with a row-level `n = n + delta`, so they stay exact under concurrent writers; reads take
//! them with the ticket and [`visible_count`] picks the one a viewer sees.
use super::can_read_internal;
use crate::auth::Actor;
use crate::domain::CommentType;
use crate::error::AppResult;
use entity::ticket;
use sea_orm::sea_query::{Expr, ExprTrait};
use sea_orm::{ColumnTrait, ConnectionTrait, EntityTrait, QueryFilter, Statement};

/// How many comments of `t` the actor may read: all of them where they may read internal comments
/// ([`can_read_internal`]), otherwise the public ones.
pub fn visible_count(actor: &Actor, t: &ticket::Model) -> i64 {
    if can_read_internal(actor, t) {
        t.all_comment_count
    } else {
        t.public_comment_count
    }
}

/// What one live comment of this type adds to (`1`) or takes from (`-1`) the two counts, times `sign`.
fn deltas(kind: CommentType, sign: i64) -> (i64, i64) {
    let public = i64::from(kind == CommentType::Public);
    (public * sign, sign)
}

/// Add `(public, all)` to the ticket's counts (call inside the comment write's transaction).
async fn adjust(
    db: &impl ConnectionTrait,
    ticket_id: i32,
    (public, all): (i64, i64),
) -> AppResult<()> {
    if public == 0 && all == 0 {
        return Ok(());
    }
    let column = |c: ticket::Column| Expr::col((ticket::Entity, c));
    ticket::Entity::update_many()
        .col_expr(
            ticket::Column::PublicCommentCount,
            column(ticket::Column::PublicCommentCount).add(public),
        )
        .col_expr(
            ticket::Column::AllCommentCount,
            column(ticket::Column::AllCommentCount).add(all),
        )
        .filter(ticket::Column::Id.eq(ticket_id))
        .exec(db)
        .await?;
    Ok(())
}

/// A live comment of type `kind` was added to the ticket.
pub(super) async fn on_created(
    db: &impl ConnectionTrait,
    ticket_id: i32,
    kind: CommentType,
) -> AppResult<()> {
    adjust(db, ticket_id, deltas(kind, 1)).await
}

/// A live comment of type `kind` left the ticket (soft delete).
pub(super) async fn on_deleted(
    db: &impl ConnectionTrait,
    ticket_id: i32,
    kind: CommentType,
) -> AppResult<()> {
    adjust(db, ticket_id, deltas(kind, -1)).await
}

/// A live comment's type changed from `from` to `to` (nothing to do when it did not).
pub(super) async fn on_retyped(
    db: &impl ConnectionTrait,
    ticket_id: i32,
    from: CommentType,
    to: CommentType,
) -> AppResult<()> {
    let (gone, _) = deltas(from, -1);
    let (came, _) = deltas(to, 1);
    adjust(db, ticket_id, (gone + came, 0)).await
}

/// Count every ticket's comments again from the comments table (after bulk loads such as
/// `deskgraph seed`, which insert comments without the service).
pub async fn recount_all(db: &impl ConnectionTrait) -> AppResult<()> {
    let sql = format!("UPDATE tickets SET {}", RECOUNTED);
    db.execute_unprepared(&sql).await?;
    Ok(())
}

/// Count one ticket's comments again from the comments table.
pub async fn recount(db: &impl ConnectionTrait, ticket_id: i32) -> AppResult<()> {
    let backend = db.get_database_backend();
    let placeholder = match backend {
        sea_orm::DbBackend::Postgres => "$1",
        _ => "?",
    };
    let sql = format!("UPDATE tickets SET {RECOUNTED} WHERE id = {placeholder}");
    db.execute_raw(Statement::from_sql_and_values(
        backend,
        sql,
        [ticket_id.into()],
    ))
    .await?;
    Ok(())
}

/// Both counts of a row of `tickets`, from its live comments (as the migration back-fills them).
const RECOUNTED: &str = "\
    public_comment_count = (SELECT count(*) FROM comments c WHERE c.ticket_id = tickets.id \
    AND c.is_deleted = false AND c.comment_type = 'public'), \
    all_comment_count = (SELECT count(*) FROM comments c WHERE c.ticket_id = tickets.id \
    AND c.is_deleted = false)";
