//! Project mutations (team members only; the service decides).
use crate::graphql::context::viewer;
use crate::graphql::ids;
use crate::graphql::mutation::chat::patched;
use crate::graphql::types::{Project, ProjectMailRules};
use crate::service::project_mail::{self, MailRulesPatch};
use crate::service::projects::{self, NewProject, ProjectPatch};
use async_graphql::{Context, InputObject, MaybeUndefined, Object, Result, SimpleObject, ID};
use entity::values::{ResolvedReply, UnknownSenders};

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

/// A change to how mail to a project is taken in; omitted fields stay.
#[derive(InputObject)]
pub struct UpdateProjectMailRulesInput {
    /// The project.
    project_id: ID,
    /// What a reply to a resolved ticket does.
    resolved_reply: Option<ResolvedReply>,
    /// Which senders without an account may open tickets (null: the service's setting).
    unknown_senders: MaybeUndefined<UnknownSenders>,
    /// The domains `KNOWN_DOMAINS` takes mail from (replaces the list; at most 100).
    sender_domains: Option<Vec<String>>,
}

/// The project's mail rules after the change.
#[derive(SimpleObject)]
pub struct UpdateProjectMailRulesPayload {
    /// The rules.
    mail_rules: ProjectMailRules,
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

    /// Change how mail to a project is taken in (administrators only).
    async fn update_project_mail_rules(
        &self,
        ctx: &Context<'_>,
        input: UpdateProjectMailRulesInput,
    ) -> Result<UpdateProjectMailRulesPayload> {
        let (req, actor) = viewer(ctx)?;
        let id = ids::decode(&input.project_id, "Project", "projectId")?;
        let patch = MailRulesPatch {
            resolved_reply: input.resolved_reply,
            unknown_senders: patched(input.unknown_senders),
            sender_domains: input.sender_domains,
        };
        let rules = project_mail::update(&req.state.db, &actor, id, patch).await?;
        Ok(UpdateProjectMailRulesPayload {
            mail_rules: rules.into(),
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
