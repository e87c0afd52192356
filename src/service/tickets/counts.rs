//! Numbers and names shown beside a ticket: visible comment counts and the people and project it names.
use super::rules;
use crate::auth::Actor;
use crate::domain::CommentType;
use crate::error::AppResult;
use entity::{comment, project, ticket, user};
use sea_orm::{ColumnTrait, ConnectionTrait, EntityTrait, PaginatorTrait, QueryFilter};
use std::collections::HashMap;

/// Non-deleted comments on `t` the actor may read: internal ones only for the team and the ticket's workers.
pub async fn visible_comment_count(
    db: &impl ConnectionTrait,
    actor: &Actor,
    t: &ticket::Model,
) -> AppResult<u64> {
    let mut query = comment::Entity::find()
        .filter(comment::Column::TicketId.eq(t.id))
        .filter(comment::Column::IsDeleted.eq(false));
    if !(actor.is_team() || rules::is_worker(actor, t)) {
        query = query.filter(comment::Column::CommentType.eq(CommentType::Public.as_str()));
    }
    Ok(query.count(db).await?)
}

/// The users with these ids, in one query, keyed by id (missing ids are simply absent).
pub async fn users_by_id(
    db: &impl ConnectionTrait,
    ids: impl IntoIterator<Item = i32>,
) -> AppResult<HashMap<i32, user::Model>> {
    let mut ids: Vec<i32> = ids.into_iter().collect();
    ids.sort_unstable();
    ids.dedup();
    if ids.is_empty() {
        return Ok(HashMap::new());
    }
    let found = user::Entity::find()
        .filter(user::Column::Id.is_in(ids))
        .all(db)
        .await?;
    Ok(found.into_iter().map(|u| (u.id, u)).collect())
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
