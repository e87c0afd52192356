//! `project` and the `projects` connection.
use crate::error::AppError;
use crate::graphql::context::viewer;
use crate::graphql::engine::prefetch;
use crate::graphql::ids;
use crate::graphql::list_connection::{list_connection, page_of};
use crate::graphql::types::Project;
use crate::service::projects;
use async_graphql::{Context, Object, Result, ID};

list_connection!(
    ProjectConnection,
    ProjectEdge,
    Project,
    entity::project::Model
);

/// Project queries.
#[derive(Default)]
pub struct ProjectQuery;

#[Object]
impl ProjectQuery {
    /// One non-archived project by global id or database id; give exactly one.
    async fn project(
        &self,
        ctx: &Context<'_>,
        id: Option<ID>,
        database_id: Option<i32>,
    ) -> Result<Option<Project>> {
        let (req, _) = viewer(ctx)?;
        let db_id = match (id, database_id) {
            (Some(id), None) => {
                ids::decode(&id, "Project", "id").map_err(|_| AppError::not_found("project"))?
            }
            (None, Some(db_id)) => db_id,
            _ => return Err(AppError::bad_request("give exactly one of id and databaseId").into()),
        };
        Ok(Some(Project(
            projects::get(&req.state.db.conn, db_id).await?,
        )))
    }

    /// Non-archived projects, by name.
    async fn projects(
        &self,
        ctx: &Context<'_>,
        first: Option<i32>,
        after: Option<String>,
    ) -> Result<ProjectConnection> {
        let (req, _) = viewer(ctx)?;
        let all = projects::list(&req.state.db.conn).await?;
        let page = page_of(all, first, after)?;
        prefetch::project_page(ctx, req, &page.rows).await?;
        Ok(ProjectConnection::from_page(page))
    }
}
