//! Batched loads for nested fields: one query per kind of record per request, whatever the page size.
//! Only records every viewer may see once they hold their id (groups, projects, counts); anything
//! whose answer depends on who asks is in `viewer`.
pub mod attachments;
pub mod comments;
pub mod viewer;

use crate::error::AppError;
use entity::{group, project};
use sea_orm::{ColumnTrait, DatabaseConnection, EntityTrait, QueryFilter};
use std::collections::HashMap;
use std::sync::Arc;

/// Errors are shared between every resolver waiting on the same batch.
pub type LoadError = Arc<AppError>;

/// A group by id.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct GroupKey(pub i32);
/// A project by id.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct ProjectKey(pub i32);
/// The number of non-archived tickets of a project.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct ProjectTicketCountKey(pub i32);
/// The loader behind the request's `DataLoader`.
pub struct DbLoader {
    db: DatabaseConnection,
}

impl DbLoader {
    /// A loader over this connection.
    pub fn new(db: DatabaseConnection) -> Self {
        DbLoader { db }
    }
}

fn shared(err: impl Into<AppError>) -> LoadError {
    Arc::new(err.into())
}

impl async_graphql::dataloader::Loader<GroupKey> for DbLoader {
    type Value = group::Model;
    type Error = LoadError;

    async fn load(&self, keys: &[GroupKey]) -> Result<HashMap<GroupKey, group::Model>, LoadError> {
        let rows = group::Entity::find()
            .filter(group::Column::Id.is_in(keys.iter().map(|k| k.0)))
            .all(&self.db)
            .await
            .map_err(shared)?;
        Ok(rows.into_iter().map(|g| (GroupKey(g.id), g)).collect())
    }
}

impl async_graphql::dataloader::Loader<ProjectKey> for DbLoader {
    type Value = project::Model;
    type Error = LoadError;

    async fn load(
        &self,
        keys: &[ProjectKey],
    ) -> Result<HashMap<ProjectKey, project::Model>, LoadError> {
        let rows = project::Entity::find()
            .filter(project::Column::Id.is_in(keys.iter().map(|k| k.0)))
            .all(&self.db)
            .await
            .map_err(shared)?;
        Ok(rows.into_iter().map(|p| (ProjectKey(p.id), p)).collect())
    }
}

impl async_graphql::dataloader::Loader<ProjectTicketCountKey> for DbLoader {
    type Value = i64;
    type Error = LoadError;

    async fn load(
        &self,
        keys: &[ProjectTicketCountKey],
    ) -> Result<HashMap<ProjectTicketCountKey, i64>, LoadError> {
        let ids: Vec<i32> = keys.iter().map(|k| k.0).collect();
        let counts = crate::service::projects::ticket_counts(&self.db, &ids)
            .await
            .map_err(shared)?;
        Ok(keys
            .iter()
            .map(|k| (*k, counts.get(&k.0).copied().unwrap_or(0)))
            .collect())
    }
}

/// The SLA clock of a ticket (asked only of tickets the viewer already holds).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct TicketSlaKey(pub i32);

impl async_graphql::dataloader::Loader<TicketSlaKey> for DbLoader {
    type Value = crate::service::sla::SlaView;
    type Error = LoadError;

    async fn load(
        &self,
        keys: &[TicketSlaKey],
    ) -> Result<HashMap<TicketSlaKey, crate::service::sla::SlaView>, LoadError> {
        let views = crate::service::sla::views(&self.db, keys.iter().map(|k| k.0))
            .await
            .map_err(shared)?;
        Ok(views
            .into_iter()
            .map(|(id, v)| (TicketSlaKey(id), v))
            .collect())
    }
}
