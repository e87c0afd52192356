//! The people and project a ticket names, loaded in batches for list pages and details.
use crate::auth::Actor;
use crate::error::AppResult;
use crate::service::users;
use entity::{project, ticket, user};
use sea_orm::{ConnectionTrait, EntityTrait};
use std::collections::HashMap;

/// The people a page of tickets names (requesters and assignees), in one query, as the actor may see
/// them.
pub async fn people_of(
    db: &impl ConnectionTrait,
    actor: &Actor,
    tickets: &[ticket::Model],
) -> AppResult<HashMap<i32, user::Model>> {
    let ids = tickets
        .iter()
        .flat_map(|t| std::iter::once(t.requester_id).chain(t.assignee_id));
    users::people(db, actor, ids).await
}

/// The ticket's project, archived or not (tickets keep their project).
pub async fn project_of(
    db: &impl ConnectionTrait,
    t: &ticket::Model,
) -> AppResult<Option<project::Model>> {
    match t.project_id {
        Some(id) => Ok(project::Entity::find_by_id(id).one(db).await?),
        None => Ok(None),
    }
}
