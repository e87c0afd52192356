//! `project` and the `projects` connection.
use crate::error::AppError;
use crate::graphql::context::viewer;
use crate::graphql::engine::prefetch;
use crate::graphql::ids;
use crate::graphql::list_connection::{list_connection, page_of};
use crate::graphql::types::{Project, ProjectMailRules};
use crate::service::{project_mail, projects};
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

    /// How mail to a project is taken in. Team members only; FORBIDDEN otherwise.
    async fn project_mail_rules(
        &self,
        ctx: &Context<'_>,
        project_id: ID,
    ) -> Result<ProjectMailRules> {
        let (req, actor) = viewer(ctx)?;
        let id = ids::decode(&project_id, "Project", "projectId")
            .map_err(|_| AppError::not_found("project"))?;
        Ok(project_mail::get(&req.state.db, &actor, id).await?.into())
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
