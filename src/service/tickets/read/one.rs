//! One ticket read on any connection (inside a write's transaction too), behind the one visibility guard.
use crate::auth::Actor;
use crate::domain::parse_ticket_number;
use crate::error::{AppError, AppResult};
use crate::service::tickets::rules;
use entity::ticket;
use sea_orm::{ColumnTrait, ConnectionTrait, EntityTrait, QueryFilter};

/// Whether archived tickets are found.
pub(super) enum Archived {
    /// Never (404).
    Hidden,
    /// By those who may archive and restore them.
    ForArchivers,
}

/// The guard of every one-ticket read: the ticket if the actor may see it, 404 otherwise.
pub(super) fn visible(
    actor: &Actor,
    found: Option<ticket::Model>,
    archived: Archived,
) -> AppResult<ticket::Model> {
    match found {
        Some(t) if t.archived_at.is_none() && rules::can_see(actor, &t) => Ok(t),
        Some(t)
            if t.archived_at.is_some()
                && matches!(archived, Archived::ForArchivers)
                && rules::can_archive(actor) =>
        {
            Ok(t)
        }
        _ => Err(AppError::not_found("ticket")),
    }
}

/// A ticket the actor may see and that is not archived (404 otherwise).
pub async fn get(db: &impl ConnectionTrait, actor: &Actor, id: i32) -> AppResult<ticket::Model> {
    let found = ticket::Entity::find_by_id(id).one(db).await?;
    visible(actor, found, Archived::Hidden)
}

/// Look a ticket up by its number in any spelling (`TKT-042`, `tkt-42`, `42`).
pub async fn get_by_number(
    db: &impl ConnectionTrait,
    actor: &Actor,
    number: &str,
    prefix: &str,
) -> AppResult<ticket::Model> {
    let n = parse_ticket_number(number, prefix).ok_or_else(|| AppError::not_found("ticket"))?;
    let found = ticket::Entity::find()
        .filter(ticket::Column::Number.eq(n))
        .one(db)
        .await?;
    visible(actor, found, Archived::Hidden)
}

/// Like [`get`], but also returns archived tickets to those who may archive them (for restore).
pub async fn get_including_archived(
    db: &impl ConnectionTrait,
    actor: &Actor,
    id: i32,
) -> AppResult<ticket::Model> {
    let found = ticket::Entity::find_by_id(id).one(db).await?;
    visible(actor, found, Archived::ForArchivers)
}

/// The tickets of `ids` the actor may see and that are not archived, by id (one statement); the others are
/// absent.
pub async fn get_many(
    db: &impl ConnectionTrait,
    actor: &Actor,
    ids: &[i32],
) -> AppResult<std::collections::HashMap<i32, ticket::Model>> {
    let found = ticket::Entity::find()
        .filter(ticket::Column::Id.is_in(ids.iter().copied()))
        .all(db)
        .await?;
    Ok(found
        .into_iter()
        .filter_map(|t| visible(actor, Some(t), Archived::Hidden).ok())
        .map(|t| (t.id, t))
        .collect())
}
