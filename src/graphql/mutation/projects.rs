//! Project mutations (team members only; the service decides).
use crate::graphql::context::viewer;
use crate::graphql::ids;
use crate::graphql::types::Project;
use crate::service::projects::{self, NewProject, ProjectPatch};
use async_graphql::{Context, InputObject, Object, Result, SimpleObject, ID};

/// Project mutations.
#[derive(Default)]
pub struct ProjectMutation;

/// A new project.
#[derive(InputObject)]
pub struct CreateProjectInput {
    /// Unique, 1-200 characters.
    name: String,
    /// Free text.
    description: Option<String>,
}

/// A change to a project; omitted fields stay.
#[derive(InputObject)]
pub struct UpdateProjectInput {
    /// The project.
    id: ID,
    /// New name (unique, 1-200 characters).
    name: Option<String>,
    /// New description.
    description: Option<String>,
}

/// Names one project.
#[derive(InputObject)]
pub struct DeleteProjectInput {
    /// The project.
    id: ID,
}

/// The created project.
#[derive(SimpleObject)]
pub struct CreateProjectPayload {
    /// The project.
    project: Project,
}

/// The changed project.
#[derive(SimpleObject)]
pub struct UpdateProjectPayload {
    /// The project after the change.
    project: Project,
}

/// The archived project's id.
#[derive(SimpleObject)]
pub struct DeleteProjectPayload {
    /// Global id of the archived project.
    deleted_project_id: ID,
}

fn project_id(id: &ID) -> Result<i32> {
    Ok(ids::decode(id, "Project", "id")?)
}

#[Object]
impl ProjectMutation {
    /// Create a project.
    async fn create_project(
        &self,
        ctx: &Context<'_>,
        input: CreateProjectInput,
    ) -> Result<CreateProjectPayload> {
        let (req, actor) = viewer(ctx)?;
        let new = NewProject {
            name: input.name,
            description: input.description,
        };
        let project = projects::create(&req.state.db, &actor, new).await?;
        Ok(CreateProjectPayload {
            project: Project(project),
        })
    }

    /// Rename or re-describe a project.
    async fn update_project(
        &self,
        ctx: &Context<'_>,
        input: UpdateProjectInput,
    ) -> Result<UpdateProjectPayload> {
        let (req, actor) = viewer(ctx)?;
        let id = project_id(&input.id)?;
        let patch = ProjectPatch {
            name: input.name,
            description: input.description,
        };
        let project = projects::update(&req.state.db, &actor, id, patch).await?;
        Ok(UpdateProjectPayload {
            project: Project(project),
        })
    }

    /// Archive a project; its tickets keep it.
    async fn delete_project(
        &self,
        ctx: &Context<'_>,
        input: DeleteProjectInput,
    ) -> Result<DeleteProjectPayload> {
        let (req, actor) = viewer(ctx)?;
        let id = project_id(&input.id)?;
        projects::archive(&req.state.db, &actor, id).await?;
        Ok(DeleteProjectPayload {
            deleted_project_id: ids::encode("Project", id),
        })
    }
}
