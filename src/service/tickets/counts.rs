//! The people and project a ticket names, loaded in batches for list pages and details.
use crate::error::AppResult;
use entity::{project, ticket, user};
use sea_orm::{ConnectionTrait, EntityTrait};
use std::collections::HashMap;

/// The users with these ids, in one query, keyed by id (missing ids are simply absent).
pub async fn users_by_id(
    db: &impl ConnectionTrait,
    ids: impl IntoIterator<Item = i32>,
) -> AppResult<HashMap<i32, user::Model>> {
    crate::service::users::by_id(db, ids).await
}

/// The users a page of tickets names (requesters and assignees), in one query.
pub async fn people_of(
    db: &impl ConnectionTrait,
    tickets: &[ticket::Model],
) -> AppResult<HashMap<i32, user::Model>> {
    let ids = tickets
        .iter()
        .flat_map(|t| std::iter::once(t.requester_id).chain(t.assignee_id));
    users_by_id(db, ids).await
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
