//! Projects: any authenticated user reads them, team members change them; archiving is soft.
use crate::auth::Actor;
use crate::db::Db;
use crate::error::{AppError, AppResult, OnConstraint};
use crate::service::audit::{self, Changes};
use crate::service::text;
use chrono::Utc;
use entity::{project, ticket};
use sea_orm::sea_query::{Expr, ExprTrait};
use sea_orm::{
    ActiveModelTrait, ColumnTrait, ConnectionTrait, EntityTrait, QueryFilter, QueryOrder,
    QuerySelect, Set,
};
use serde_json::json;
use std::collections::HashMap;

const NAME_TAKEN: &str = "a project with this name already exists";

/// Fields of a new project.
#[derive(Debug, Clone, Default)]
pub struct NewProject {
    /// Required, unique, 1–200 characters after trimming.
    pub name: String,
    /// Free text; empty when absent.
    pub description: Option<String>,
}

/// A partial change to a project; absent fields stay as they are.
#[derive(Debug, Clone, Default)]
pub struct ProjectPatch {
    /// New name (unique, 1–200 characters after trimming).
    pub name: Option<String>,
    /// New description.
    pub description: Option<String>,
}

fn require_team(actor: &Actor) -> AppResult<()> {
    if actor.is_team() {
        Ok(())
    } else {
        Err(AppError::forbidden("only team members may change projects"))
    }
}

/// Every non-archived project, by name.
pub async fn list(db: &impl ConnectionTrait) -> AppResult<Vec<project::Model>> {
    Ok(project::Entity::find()
        .filter(project::Column::ArchivedAt.is_null())
        .order_by_asc(project::Column::Name)
        .order_by_asc(project::Column::Id)
        .all(db)
        .await?)
}

/// A non-archived project (404 otherwise).
pub async fn get(db: &impl ConnectionTrait, id: i32) -> AppResult<project::Model> {
    project::Entity::find_by_id(id)
        .filter(project::Column::ArchivedAt.is_null())
        .one(db)
        .await?
        .ok_or_else(|| AppError::not_found("project"))
}

/// Non-archived tickets per project, for all `project_ids` in one grouped query (absent → 0).
pub async fn ticket_counts(
    db: &impl ConnectionTrait,
    project_ids: &[i32],
) -> AppResult<HashMap<i32, i64>> {
    if project_ids.is_empty() {
        return Ok(HashMap::new());
    }
    let rows: Vec<(Option<i32>, i64)> = ticket::Entity::find()
        .select_only()
        .column(ticket::Column::ProjectId)
        .column_as(Expr::col(ticket::Column::Id).count(), "ticket_count")
        .filter(ticket::Column::ArchivedAt.is_null())
        .filter(ticket::Column::ProjectId.is_in(project_ids.iter().copied()))
        .group_by(ticket::Column::ProjectId)
        .into_tuple()
        .all(db)
        .await?;
    Ok(rows
        .into_iter()
        .filter_map(|(id, count)| id.map(|id| (id, count)))
        .collect())
}

/// Create a project (team members only).
///
/// Names are unique across archived projects too (the database index covers every row), so the name of
/// an archived project cannot be reused: that answers 400 like any other clash.
pub async fn create(db: &Db, actor: &Actor, input: NewProject) -> AppResult<project::Model> {
    require_team(actor)?;
    let name = text::required_line("name", &input.name)?;
    let description = text::description(input.description.as_deref().unwrap_or(""))?;
    let now = Utc::now();
    let txn = db.begin_write().await?;
    let created = project::ActiveModel {
        name: Set(name),
        description: Set(description),
        created_at: Set(now),
        updated_at: Set(now),
        ..Default::default()
    }
    .insert(&txn)
    .await
    .on_unique("name", NAME_TAKEN)?;
    let changes = json!({
        "name": [null, created.name],
        "description": [null, created.description],
    });
    audit::record(
        &txn,
        audit::Entry::new(Some(actor.id()), "project", created.id, "create").changes(changes),
    )
    .await?;
    txn.commit().await?;
    Ok(created)
}

/// Change a project's name or description (team members only; same uniqueness rule as [`create`]).
pub async fn update(
    db: &Db,
    actor: &Actor,
    id: i32,
    patch: ProjectPatch,
) -> AppResult<project::Model> {
    require_team(actor)?;
    let name = patch
        .name
        .as_deref()
        .map(|name| text::required_line("name", name))
        .transpose()?;
    let description = patch
        .description
        .as_deref()
        .map(text::description)
        .transpose()?;
    let txn = db.begin_write().await?;
    let current = get(&txn, id).await?;
    let next_name = name.unwrap_or_else(|| current.name.clone());
    let next_description = description.unwrap_or_else(|| current.description.clone());
    let mut changes = Changes::new();
    changes.diff("name", &current.name, &next_name);
    changes.diff("description", &current.description, &next_description);
    if changes.is_empty() {
        txn.commit().await?;
        return Ok(current);
    }
    let mut active: project::ActiveModel = current.into();
    active.name = Set(next_name);
    active.description = Set(next_description);
    active.updated_at = Set(Utc::now());
    let saved = active.update(&txn).await.on_unique("name", NAME_TAKEN)?;
    audit::record(
        &txn,
        audit::Entry::new(Some(actor.id()), "project", id, "update").changes(changes.into_value()),
    )
    .await?;
    txn.commit().await?;
    Ok(saved)
}

/// Archive a project (team members only). Its tickets keep their project; it leaves lists and answers 404.
pub async fn archive(db: &Db, actor: &Actor, id: i32) -> AppResult<()> {
    require_team(actor)?;
    let txn = db.begin_write().await?;
    let current = get(&txn, id).await?;
    let now = Utc::now();
    let mut active: project::ActiveModel = current.into();
    active.archived_at = Set(Some(now));
    active.updated_at = Set(now);
    active.update(&txn).await?;
    audit::record(
        &txn,
        audit::Entry::new(Some(actor.id()), "project", id, "archive")
            .changes(json!({ "archived_at": [null, now] })),
    )
    .await?;
    txn.commit().await?;
    Ok(())
}
